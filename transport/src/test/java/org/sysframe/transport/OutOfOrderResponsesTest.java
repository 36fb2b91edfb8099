package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.transport.support.TestServers;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sysframe.testsupport.WireBytes;
import org.sysframe.transport.support.RawRequest;
import org.sysframe.transport.support.RawServer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sysframe.transport.support.Payloads.nativeCopy;
import static org.sysframe.transport.support.Payloads.pattern;

/**
 * Responses that do not come in request order: the client keeps the ones not awaited aside and hands
 * each to the recv of its id, byte-exact; events arriving meanwhile are kept for nextEvent.
 */
@EachBackend
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class OutOfOrderResponsesTest {
    @TempDir Path dir;

    private static ClientOptions client(String path, String recvFraming) {
        return ClientOptions.defaults().socketPath(path).recv(RecvFraming.parse(recvFraming));
    }

    @ParameterizedTest
    @ValueSource(strings = {"exact", "readahead", "readahead:64"})
    void twoPipelinedPingsAnsweredInReverseOrderEachGetTheirOwnPayload(String framing) throws Exception {
        String path = dir.resolve("reverse.sock").toString();
        byte[] a = pattern(20, 1);
        byte[] b = pattern(300, 2); // over a 64-byte read-ahead buffer: the large-payload path
        try (RawServer raw = new RawServer(path, c -> {
                RawRequest r1 = c.expect(GroutApi.PING, a);
                RawRequest r2 = c.expect(GroutApi.PING, b);
                // Both responses, second request's first, in one write.
                c.write(WireBytes.concat(WireBytes.response(r2.id(), 0, r2.payload()), WireBytes.response(r1.id(), 0, r1.payload())));
            });
             GroutClient client = GroutClient.connect(client(path, framing));
             Arena arena = Arena.ofConfined()) {
            MemorySegment pa = nativeCopy(arena, a);
            MemorySegment pb = nativeCopy(arena, b);
            int id1 = client.send(GroutApi.PING, pa, 0, pa.byteSize());
            int id2 = client.send(GroutApi.PING, pb, 0, pb.byteSize());
            assertTrue(id1 != id2, "distinct ids");

            Response r1 = client.recv(GroutApi.PING, id1);
            assertEquals(id1, r1.id());
            assertEquals(0, r1.status());
            assertArrayEquals(a, r1.toByteArray());

            Response r2 = client.recv(GroutApi.PING, id2);
            assertEquals(id2, r2.id());
            assertEquals(0, r2.status());
            assertArrayEquals(b, r2.toByteArray());

            assertEquals(0, client.pendingEvents());
            assertTrue(client.isUsable());
            raw.awaitScript();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"exact", "readahead", "readahead:64"})
    void eventArrivingBeforeTheAwaitedResponseIsKeptForNextEvent(String framing) throws Exception {
        String path = dir.resolve("event.sock").toString();
        int evType = GroutApi.type(0x5f5f, 0x0042);
        byte[] ev = pattern(5, 3);
        byte[] bigEv = pattern(200, 4);
        byte[] ping = pattern(33, 5);
        try (RawServer raw = new RawServer(path, c -> {
                RawRequest r = c.expect(GroutApi.PING, ping);
                c.write(WireBytes.concat(WireBytes.event(evType, ev), WireBytes.event(evType + 1, bigEv),
                        WireBytes.response(r.id(), 0, r.payload())));
            });
             GroutClient client = GroutClient.connect(client(path, framing));
             Arena arena = Arena.ofConfined()) {
            Response r = client.sendRecv(GroutApi.PING, nativeCopy(arena, ping));
            assertArrayEquals(ping, r.toByteArray());
            assertEquals(2, client.pendingEvents());

            Event e1 = client.nextEvent();
            assertEquals(evType, e1.type());
            assertArrayEquals(ev, e1.toByteArray());
            Event e2 = client.nextEvent();
            assertEquals(evType + 1, e2.type());
            assertArrayEquals(bigEv, e2.toByteArray());
            assertEquals(0, client.pendingEvents());
            raw.awaitScript();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"exact", "readahead", "readahead:64"})
    void hundredPipelinedPingsToAGroutServerReceivedInReverseIdOrderReturnEveryPayload(String framing) throws Exception {
        String path = dir.resolve("pipelined.sock").toString();
        int n = 100;
        try (GroutServer server = TestServers.start(ServerOptions.defaults().socketPath(path));
             GroutClient client = GroutClient.connect(client(path, framing));
             Arena arena = Arena.ofConfined()) {
            int[] ids = new int[n];
            byte[][] payloads = new byte[n][];
            Set<Integer> distinct = new HashSet<>();
            for (int i = 0; i < n; i++) {
                payloads[i] = pattern(i * 3 % 151, 100 + i); // 0 to 150 bytes, the first empty
                MemorySegment p = nativeCopy(arena, payloads[i]);
                ids[i] = client.send(GroutApi.PING, p, 0, p.byteSize());
                distinct.add(ids[i]);
            }
            assertEquals(n, distinct.size(), "every request has its own id");
            for (int i = n - 1; i >= 0; i--) {
                Response r = client.recv(GroutApi.PING, ids[i]);
                assertEquals(ids[i], r.id());
                assertEquals(0, r.status());
                assertArrayEquals(payloads[i], r.toByteArray(), "payload of request " + i);
            }
            // Nothing left over: the next call is answered in step.
            byte[] last = pattern(64, 999);
            assertArrayEquals(last, client.sendRecv(GroutApi.PING, nativeCopy(arena, last)).toByteArray());
            assertEquals(0, client.pendingEvents());
        }
    }
}
