package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.LoopsIndependent;
import org.sysframe.transport.support.TestClients;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sysframe.testsupport.WireBytes;
import org.sysframe.transport.support.Payloads;
import org.sysframe.transport.support.RawRequest;
import org.sysframe.transport.support.RawServer;
import org.sysframe.transport.support.ServerFixture;

import java.lang.foreign.Arena;

import static org.sysframe.transport.support.ServerFixture.guard;
import static org.sysframe.transport.support.ServerFixture.clientOptions;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sysframe.transport.support.Payloads.nativeCopy;

/**
 * Responses no request of the client asked for (an id never sent, the id the client will use next) are
 * dropped and counted ({@link ClientStats#unmatched()}) and never answer a later request; the awaited
 * response is returned, byte-exact.
 *
 * <p>Outcomes are exact; nothing is timed. Waits are progress-based and bounded only as hang guards:
 * receive timeouts on every raw socket, a deadline on every wait, and a preemptive timeout around each test body.
 */
@EachBackend(alsoOverSharedMemory = true)
@LoopsIndependent
class UnsolicitedResponsesTest {
    private static final int HDR = RequestHeader.SIZE;
    private static final int MAX = GroutApi.MAX_MSG_LEN;

    @RegisterExtension
    final ServerFixture fx = new ServerFixture();

    @ParameterizedTest
    @ValueSource(strings = {"exact", "readahead", "readahead:64"})
    void responseForAnIdNeverSentIsDroppedAndCountedAndTheAwaitedOneArrivingAfterItIsReturned(
            String recv) throws Throwable {
        String p = fx.path("unsolicited.sock");
        byte[] junk = Payloads.unique(66, 100);
        byte[] first = Payloads.unique(1, 40);
        byte[] second = Payloads.unique(2, 41);
        RawServer hs = fx.track(new RawServer(p, 0x4321, s -> {
            RawRequest r = s.readRequest();
            assertEquals(GroutApi.PING, r.type());
            s.write(WireBytes.concat(WireBytes.response(0xbeef, 0, junk.length, junk),
                    WireBytes.response(r.id(), 0, r.payload().length, r.payload())));
            RawRequest r2 = s.readRequest();
            s.write(WireBytes.response(r2.id(), 0, r2.payload().length, r2.payload()));
            s.awaitEof();
        }));
        guard(() -> {
            try (GroutClient c = TestClients.connect(clientOptions(p).recv(RecvFraming.parse(recv))); Arena a =
                    Arena.ofConfined()) {
                assertEquals(0x4321, c.maxIfaces());
                Response r = c.call(GroutApi.PING, nativeCopy(a, first));
                assertEquals(TestClients.firstId(c), r.id(), "the awaited id, not 0xbeef");
                assertArrayEquals(first, r.toByteArray());
                r = c.call(GroutApi.PING, nativeCopy(a, second));
                assertEquals(TestClients.firstId(c) + 1, r.id());
                assertArrayEquals(second, r.toByteArray());
                // 0xbeef answered no call: dropped and counted, nothing kept.
                ClientStats st = c.stats();
                assertEquals(1, st.unmatched(), "the answer for 0xbeef was dropped and counted");
                assertEquals(0, st.late());
                assertEquals(0, st.inFlight());
                assertEquals(0, c.pendingEvents());
                assertTrue(c.isUsable());
            }
        });
        hs.awaitScript();
    }

    /**
     * A response for the id the client will use next arrives before that request is sent. It answers
     * no request of this client; the request sent afterwards with that id must get its own answer.
     */
    @ParameterizedTest
    @ValueSource(strings = {"exact", "readahead"})
    void unsolicitedResponseForTheNextIdDoesNotAnswerTheRequestSentLaterWithThatId(String recv) throws Throwable {
        String p = fx.path("early.sock");
        byte[] junk = Payloads.unique(67, 30);
        byte[] first = Payloads.unique(3, 20);
        byte[] second = Payloads.unique(4, 21);
        RawServer hs = fx.track(new RawServer(p, 0x4321, s -> {
            RawRequest r = s.readRequest();
            s.write(WireBytes.concat(WireBytes.response(r.id() + 1, 0, junk.length, junk),
                    WireBytes.response(r.id(), 0, r.payload().length, r.payload())));
            RawRequest r2 = s.readRequest();
            assertEquals(r.id() + 1, r2.id());
            s.write(WireBytes.response(r2.id(), 0, r2.payload().length, r2.payload()));
            s.awaitEof();
        }));
        guard(() -> {
            try (GroutClient c = TestClients.connect(clientOptions(p).recv(RecvFraming.parse(recv))); Arena a =
                    Arena.ofConfined()) {
                assertArrayEquals(first, c.call(GroutApi.PING, nativeCopy(a, first)).toByteArray());
                Response r = c.call(GroutApi.PING, nativeCopy(a, second));
                assertArrayEquals(second, r.toByteArray(),
                        "the second request was answered with the bytes of a response for its id that arrived before "
                        + "it was sent");
                assertEquals(1, c.stats().unmatched(),
                        "the early answer for the second request's id answered no call: dropped and counted");
                assertTrue(c.isUsable());
            }
        });
        hs.awaitScript();
    }
}
