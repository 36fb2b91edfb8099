package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.LoopsIndependent;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sysframe.testsupport.Gc;
import org.sysframe.testsupport.ProcessProbe;
import org.sysframe.testsupport.WireBytes;
import org.sysframe.transport.support.ClientStreamModel;
import org.sysframe.transport.support.Payloads;
import org.sysframe.transport.support.RawServer;
import org.sysframe.transport.support.ServerFixture;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Locale;
import java.util.Random;

import static org.sysframe.transport.support.ServerFixture.guard;
import static org.sysframe.transport.support.ServerFixture.clientOptions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sysframe.transport.support.Payloads.nativeCopy;

/**
 * A server sending garbage instead of a response (a megabyte of random bytes, an event header declaring
 * 2^40 bytes) makes the client fail with EMSGSIZE, clearly, unusable afterwards, allocating nothing.
 *
 * <p>Outcomes are exact; nothing is timed. Waits are progress-based and bounded only as hang guards:
 * receive timeouts on every raw socket, a deadline on every wait, and a preemptive timeout around each test body.
 */
@EachBackend
@LoopsIndependent
class GarbageResponsesTest {
    private static final int HDR = RequestHeader.SIZE;
    private static final int MAX = GroutApi.MAX_MSG_LEN;

    @RegisterExtension
    final ServerFixture fx = new ServerFixture();

    @ParameterizedTest
    @ValueSource(strings = {"exact", "readahead", "readahead:64"})
    void oneMegabyteOfRandomGarbageInsteadOfAResponseFailsClearlyBreaksTheClientAndAllocatesNothing(
            String recv) throws Throwable {
        String p = fx.path("garbage.sock");
        byte[] garbage = new byte[1 << 20];
        new Random(0x6a7ba6eL).nextBytes(garbage);
        ClientStreamModel.Outcome expected = ClientStreamModel.clientReading(garbage, 2);
        assertEquals(Errno.EMSGSIZE, expected.errno(), "the seed's garbage decodes to " + expected);
        Arena shared = fx.track(Arena.ofShared());
        MemorySegment g = nativeCopy(shared, garbage);
        RawServer.Script script = s -> {
            s.readRequest();
            try {
                s.socket.sendFully(g, 0, g.byteSize());
            } catch (ErrnoException e) { // the client gave up and closed: EPIPE or ECONNRESET
                if (e.errno() != Errno.EPIPE && e.errno() != Errno.ECONNRESET) throw e;
            }
        };
        String warmPath = fx.path("garbage-warm-up.sock");
        RawServer warmServer = fx.track(new RawServer(warmPath, 0x4321, script));
        RawServer hs = fx.track(new RawServer(p, 0x4321, script));
        guard(() -> {
            GroutClient warm = fx.track(GroutClient.connect(clientOptions(warmPath).recv(RecvFraming.parse(recv))));
            GroutClient c = fx.track(GroutClient.connect(clientOptions(p).recv(RecvFraming.parse(recv))));
            try (Arena a = Arena.ofConfined()) {
                MemorySegment ping = nativeCopy(a, Payloads.unique(5, 16));
                // The same failure once, unmeasured: classes loaded and code compiled before the measurement.
                assertThrows(ErrnoException.class, () -> warm.call(GroutApi.PING, ping));
                warm.close();
                Gc.settle();
                ProcessProbe.nativeMemory().otherCommitted();
                long otherBefore = ProcessProbe.nativeMemory().otherCommitted();
                long heapBefore = ProcessProbe.threadAllocatedBytes();
                ErrnoException e = assertThrows(ErrnoException.class, () -> c.call(GroutApi.PING, ping));
                long heap = ProcessProbe.threadAllocatedBytes() - heapBefore;
                long otherAfter = ProcessProbe.nativeMemory().otherCommitted();
                System.out.printf(Locale.ROOT,
                        "garbage [%s]: %s (model: %s after %d answers for other ids and %d events); "
                                + "heap allocated by the call %,d bytes; NMT Other %,d -> %,d bytes%n",
                        recv, e.getMessage(), expected.header(), expected.unmatched(), expected.events(), heap,
                                otherBefore, otherAfter);
                assertEquals(expected.errno(), e.errno(), e.getMessage());
                assertTrue(e.getMessage().contains(expected.header()), e.getMessage());
                assertTrue(e.getMessage().contains("payload_len " + Long.toUnsignedString(expected.payloadLen())),
                        e.getMessage());
                assertFalse(c.isUsable());
                ClientStats st = c.stats();
                assertEquals(expected.unmatched(), st.unmatched(),
                        "answers for other ids read before the bad header, dropped and counted");
                assertEquals(expected.events(), st.events(), "events read before the bad header");
                ErrnoException next = assertThrows(ErrnoException.class, () -> c.call(GroutApi.PING, ping));
                assertEquals(Errno.ENOTCONN, next.errno(), next.getMessage());
                assertTrue(heap < (1L << 20), "the failing call allocated " + heap + " bytes on the heap");
                assertTrue(otherAfter - otherBefore < (1L << 20), "NMT Other grew by " + (otherAfter - otherBefore));
            }
            c.close();
        });
        warmServer.awaitScript();
        hs.awaitScript();
    }

    @ParameterizedTest
    @ValueSource(strings = {"exact", "readahead", "readahead:64"})
    void eventHeaderDeclaringTwoToTheFortyBytesFailsWithEMSGSIZE(String recv) throws Throwable {
        String p = fx.path("event40.sock");
        long declared = 1L << 40;
        RawServer hs = fx.track(new RawServer(p, 0x4321, s -> {
            s.readRequest();
            s.write(WireBytes.concat(WireBytes.eventHeader(GroutApi.type(0x5f5f, 0x40), declared), new byte[8]));
            s.awaitEof();
        }));
        guard(() -> {
            try (GroutClient c = GroutClient.connect(clientOptions(p).recv(RecvFraming.parse(recv))); Arena a =
                    Arena.ofConfined()) {
                MemorySegment ping = nativeCopy(a, Payloads.unique(9, 8));
                ErrnoException e = assertThrows(ErrnoException.class, () -> c.call(GroutApi.PING, ping));
                assertEquals(Errno.EMSGSIZE, e.errno(), e.getMessage());
                assertTrue(e.getMessage().contains("event header"), e.getMessage());
                assertTrue(e.getMessage().contains("payload_len " + declared), e.getMessage());
                assertFalse(c.isUsable());
                assertEquals(0, c.pendingEvents());
                assertEquals(Errno.ENOTCONN, assertThrows(ErrnoException.class, () ->
                        c.nextEvent(Duration.ofSeconds(10))).errno());
            }
        });
        hs.awaitScript();
    }
}
