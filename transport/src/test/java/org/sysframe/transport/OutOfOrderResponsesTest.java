package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.TestClients;
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
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sysframe.transport.support.Payloads.nativeCopy;
import static org.sysframe.transport.support.Payloads.pattern;

/**
 * Responses that do not come in request order: the client hands each to the request of its id
 * (a pipeline's handler, a future), byte-exact, whatever the order they come or are awaited in; events
 * arriving meanwhile are kept for nextEvent.
 */
@EachBackend(alsoOverSharedMemory = true)
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class OutOfOrderResponsesTest {
    @TempDir Path dir;

    private static ClientOptions client(String path, String recvFraming) {
        return TestClients.options(path).recv(RecvFraming.parse(recvFraming));
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
                c.write(WireBytes.concat(WireBytes.response(r2.id(), 0, r2.payload()),
                        WireBytes.response(r1.id(), 0, r1.payload())));
            });
             GroutClient client = TestClients.connect(client(path, framing));
             Arena arena = Arena.ofConfined()) {
            MemorySegment pa = nativeCopy(arena, a);
            MemorySegment pb = nativeCopy(arena, b);
            // A pipeline sends both requests before any answer is read (futures would send the second only once
            // the first answer came: this server answers nothing before it read both).
            Map<Integer, byte[]> got = new HashMap<>();
            List<Integer> order = new ArrayList<>();
            int id1, id2;
            try (Pipeline p = client.pipeline(PipelineOptions.window(2))) {
                id1 = p.queue(GroutApi.PING, pa, 0, pa.byteSize());
                id2 = p.queue(GroutApi.PING, pb, 0, pb.byteSize());
                assertTrue(id1 != id2, "distinct ids");
                p.flush();
                while (p.inFlight() > 0) {
                    p.poll((id, status, payload, off, len, latency) -> {
                        assertEquals(0, status);
                        order.add(id);
                        got.put(id, payload.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE));
                    }, 2, true);
                }
            }
            assertEquals(List.of(id2, id1), order, "the second request's answer came first");
            assertArrayEquals(a, got.get(id1));
            assertArrayEquals(b, got.get(id2));
            assertEquals(0, client.pendingEvents());
            assertEquals(0, client.stats().unmatched(), "both answers found their call");
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
             GroutClient client = TestClients.connect(client(path, framing));
             Arena arena = Arena.ofConfined()) {
            Response r = client.call(GroutApi.PING, nativeCopy(arena, ping));
            assertArrayEquals(ping, r.toByteArray());
            assertEquals(2, client.pendingEvents());

            Event e1 = client.nextEvent(Duration.ofSeconds(10));
            assertEquals(evType, e1.type());
            assertArrayEquals(ev, e1.toByteArray());
            Event e2 = client.nextEvent(Duration.ofSeconds(10));
            assertEquals(evType + 1, e2.type());
            assertArrayEquals(bigEv, e2.toByteArray());
            assertEquals(0, client.pendingEvents());
            raw.awaitScript();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"exact", "readahead", "readahead:64"})
    void hundredPipelinedPingsToAGroutServerReceivedInReverseIdOrderReturnEveryPayload(
            String framing) throws Exception {
        String path = dir.resolve("pipelined.sock").toString();
        int n = 100;
        try (GroutServer server = TestServers.start(ServerOptions.defaults().socketPath(path));
             GroutClient client = TestClients.connect(client(path, framing));
             Arena arena = Arena.ofConfined()) {
            List<CompletableFuture<Response>> futures = new ArrayList<>();
            byte[][] payloads = new byte[n][];
            for (int i = 0; i < n; i++) {
                payloads[i] = pattern(i * 3 % 151, 100 + i); // 0 to 150 bytes, the first empty
                MemorySegment p = nativeCopy(arena, payloads[i]);
                futures.add(client.callAsync(GroutApi.PING, p, 0, p.byteSize()));
            }
            // Ids are reused once answered (the client's id table grows with the calls in flight at once, not with the
            // calls made): each answer is told apart by its payload.
            for (int i = n - 1; i >= 0; i--) {
                Response r = futures.get(i).get(10, TimeUnit.SECONDS);
                assertEquals(0, r.status());
                assertArrayEquals(payloads[i], r.toByteArray(), "payload of request " + i);
            }
            assertEquals(0, client.stats().unmatched(), "every answer found its call");
            // Nothing left over: the next call is answered in step.
            byte[] last = pattern(64, 999);
            assertArrayEquals(last, client.call(GroutApi.PING, nativeCopy(arena, last)).toByteArray());
            assertEquals(0, client.pendingEvents());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {4096, 100_000})
    void hundredFuturesWithLargePayloadsAreEachSentAndAnsweredWithTheirOwn(int size) throws Exception {
        // Over 64 KiB together (100 x 4 KiB), or each (10 x 100 KB): more than the send queue takes while the client's
        // own thread receives for the futures sent first; each must still be sent, by its caller.
        String path = dir.resolve("large.sock").toString();
        int n = size > 64 * 1024 ? 10 : 100;
        try (GroutServer server = TestServers.start(ServerOptions.defaults().socketPath(path));
             GroutClient client = TestClients.connect(TestClients.options(path).receiveTimeoutMillis(2000));
             Arena arena = Arena.ofConfined()) {
            List<CompletableFuture<Response>> futures = new ArrayList<>();
            byte[][] payloads = new byte[n][];
            for (int i = 0; i < n; i++) {
                payloads[i] = pattern(size, 300 + i);
                MemorySegment p = nativeCopy(arena, payloads[i]);
                futures.add(client.callAsync(GroutApi.PING, p, 0, p.byteSize()));
            }
            for (int i = 0; i < n; i++) {
                Response r = futures.get(i).get(10, TimeUnit.SECONDS);
                assertArrayEquals(payloads[i], r.toByteArray(), "payload of request " + i);
            }
            ClientStats st = client.stats();
            assertEquals(0, st.unmatched());
            assertEquals(0, st.late());
            assertEquals(0, st.inFlight());
            assertTrue(client.isUsable());
        }
    }
}
