package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.transport.wire.ResponseHeader;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sysframe.testsupport.Awaits;
import org.sysframe.testsupport.Gc;
import org.sysframe.testsupport.ProcessProbe;
import org.sysframe.transport.support.Payloads;
import org.sysframe.transport.support.RawSockets;
import org.sysframe.transport.support.ServerFixture;
import org.sysframe.transport.support.TestServers;
import org.sysframe.unix.UnixSocket;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

import static org.sysframe.transport.support.ServerFixture.guard;
import static org.sysframe.transport.support.ServerFixture.clientOptions;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sysframe.transport.support.ServerFixture.awaitConnectionCount;

/**
 * A client that never reads: the server stops reading from it once its answers cannot leave, its queued
 * output stays bounded, other clients are served meanwhile, and it gets every answer once it reads.
 *
 * <p>Outcomes are exact; nothing is timed. Waits are progress-based and bounded only as hang guards:
 * receive timeouts on every raw socket, a deadline on every wait, and a preemptive timeout around each test body.
 */
@EachBackend
class NonReadingClientTest {
    private static final int HDR = RequestHeader.SIZE;
    private static final int MAX = GroutApi.MAX_MSG_LEN;
    private static final Duration HANG_GUARD = Duration.ofSeconds(45);

    @RegisterExtension
    final ServerFixture fx = new ServerFixture();

    @Test
    void nonReadingClientIsNotReadFromItsOutputStaysBoundedAndItGetsEveryResponseOnceItReads() throws Exception {
        final int count = 64;
        final int len = 64 * 1024;
        final int frame = HDR + len;
        String p = fx.path("slow-reader.sock");
        guard(() -> {
            // One loop whatever -Dsysframe.test.loops says: "20 refusals, a normal ping apart" is the slow client's
            // steady state only if each normal ping is a turn of the slow client's own loop. With two loops the two
            // clients sat on different loops, and under load the slow client's loop read 64 KiB more afterwards.
            GroutServer server = fx.track(TestServers.startOneLoop(ServerOptions.defaults().socketPath(p)));
            int maxQueued = server.config().maxQueuedOutput();
            Arena shared = fx.track(Arena.ofShared());
            MemorySegment requests = shared.allocate((long) count * frame, 8);
            for (int i = 0; i < count; i++) {
                RequestHeader.write(requests, (long) i * frame, 1000 + i, GroutApi.PING, len);
                MemorySegment.copy(Payloads.unique(500 + i, len), 0, requests, JAVA_BYTE, (long) i * frame + HDR, len);
            }
            MemorySegment scratch = shared.allocate(2L * (HDR + MAX), 8);
            MemorySegment answer = shared.allocate(frame, 8);
            GroutClient normal = fx.track(GroutClient.connect(clientOptions(p)));
            MemorySegment normalPayload = shared.allocate(len, 8);
            long[] normalPings = {0};
            Runnable pingNormal = () -> {
                long n = normalPings[0]++;
                int l = (int) ((n * 4099) % (len + 1));
                for (int i = 0; i < l; i += 4096) normalPayload.set(JAVA_BYTE, i, Payloads.uniqueByte((int) n, i));
                try {
                    Response r = normal.call(GroutApi.PING, normalPayload, 0, l);
                    assertEquals(l, r.length());
                    assertEquals(-1, MemorySegment.mismatch(r.buffer(), r.offset(), r.offset() + l, normalPayload, 0,
                            l), "normal client's ping " + n);
                } catch (IOException e) {
                    throw new AssertionError("normal client's ping " + n + " failed: " + e.getMessage(), e);
                }
            };

            // Warm-up: every path once (a raw 64 KiB ping included), then the baseline.
            for (int i = 0; i < 50; i++) pingNormal.run();
            try (UnixSocket w = UnixSocket.connect(p)) {
                w.setReceiveTimeout(RawSockets.RECV_TIMEOUT_MS);
                RawSockets.hello(w, scratch, 1);
                w.sendFully(requests, 0, frame);
                w.recvFully(answer, 0, frame);
            }
            awaitConnectionCount(server, 1);
            Gc.settle();
            ProcessProbe.nativeMemory().otherCommitted();
            long before = ProcessProbe.nativeMemory().otherCommitted();

            UnixSocket slow = fx.track(RawSockets.connect(p));
            RawSockets.hello(slow, scratch, 1);
            long total = (long) count * frame;
            long sent = 0;
            // Send without blocking until the kernel takes no more, while the server keeps serving the
            // normal client (each ping is a full turn of its loop): 20 refusals in a row, one turn apart.
            for (int refused = 0; refused < 20; ) {
                long n = slow.send(requests, sent, Math.min(total - sent, 65536), UnixSocket.MSG_DONTWAIT);
                if (n == UnixSocket.WOULD_BLOCK) {
                    refused++;
                    pingNormal.run();
                    continue;
                }
                refused = 0;
                sent += n;
                assertTrue(sent < total, "the server took all " + count + " requests (" + total
                        + " bytes) from a client that reads nothing");
            }
            long unreadOut = RawSockets.ioctlInt(slow, RawSockets.SIOCOUTQ);
            long answersWaiting = RawSockets.ioctlInt(slow, RawSockets.SIOCINQ);
            long handled = slowRequests(server, normalPings[0]);

            // The server goes on serving the normal client and reads nothing more from the slow one.
            for (int i = 0; i < 300; i++) pingNormal.run();
            assertEquals(UnixSocket.WOULD_BLOCK, slow.send(requests, sent, Math.min(total - sent, 65536),
                    UnixSocket.MSG_DONTWAIT), "the server read more from a client whose responses it cannot send");
            assertEquals(unreadOut, RawSockets.ioctlInt(slow, RawSockets.SIOCOUTQ),
                    "kernel memory of the slow client's unread requests");
            assertEquals(handled, slowRequests(server, normalPings[0]),
                    "requests the server handled for the slow client");
            assertEquals(2, server.connectionCount(), "the slow client was not closed");
            Gc.settle();
            long after = ProcessProbe.nativeMemory().otherCommitted();
            long growth = after - before;
            System.out.printf(Locale.ROOT, "slow reader: sent %,d of %,d request bytes before the kernel refused more; "
                            + "server handled %d requests (hello included); %,d bytes of answers wait in its receive "
                                    + "queue, "
                            + "RawSockets.SIOCOUTQ %,d; NMT Other committed %,d -> %,d bytes (%+,d; limit "
                                    + "maxQueuedOutput %,d + 1 MiB); "
                            + "normal client %d pings meanwhile%n",
                    sent, total, handled, answersWaiting, unreadOut, before, after, growth, maxQueued, normalPings[0]);
            assertTrue(unreadOut > 0, "requests left unread in the kernel");
            assertTrue(handled < count + 1, "handled " + handled);
            assertTrue(growth < maxQueued + (1L << 20), "NMT Other grew by " + growth
                    + " bytes for one client that does not read");

            // Now the slow client reads (and sends the rest): every answer, byte-exact, in order.
            long alreadySent = sent;
            AtomicReference<Throwable> senderFailure = new AtomicReference<>();
            Thread sender = new Thread(() -> {
                try {
                    slow.sendFully(requests, alreadySent, total - alreadySent);
                } catch (Throwable t) {
                    senderFailure.set(t);
                }
            }, "slow client sender");
            sender.setDaemon(true);
            sender.start();
            for (int i = 0; i < count; i++) {
                slow.recvFully(answer, 0, frame);
                assertEquals(1000 + i, ResponseHeader.forId(answer, 0), "for_id of answer " + i);
                assertEquals(0, ResponseHeader.status(answer, 0));
                assertEquals(len, ResponseHeader.payloadLen(answer, 0));
                assertEquals(-1, MemorySegment.mismatch(answer, HDR, frame, requests, (long) i * frame + HDR,
                        (long) (i + 1) * frame), "payload of answer " + i);
            }
            sender.join(Awaits.HANG_GUARD.toMillis());
            assertNull(senderFailure.get());
            assertEquals(0, RawSockets.ioctlInt(slow, RawSockets.SIOCOUTQ),
                    "every request byte was read by the server");
            assertEquals(0, RawSockets.ioctlInt(slow, RawSockets.SIOCINQ), "no answer beyond the " + count
                    + " asked for");
            pingNormal.run();
            slow.close();
            normal.close();
            awaitConnectionCount(server, 0);
        });
    }

    /** Requests the server handled on the slow connection: the open connection that is not the normal client's. */
    private static long slowRequests(GroutServer server, long normalPings) throws IOException {
        List<ConnectionStats> open = server.openConnections();
        assertEquals(2, open.size(), "open connections " + open);
        long normalRequests = 1 + normalPings;
        ConnectionStats other = open.get(0).requests() == normalRequests ? open.get(1) : open.get(0);
        assertTrue(open.get(0).requests() == normalRequests || open.get(1).requests() == normalRequests,
                open.toString());
        return other.requests();
    }
}
