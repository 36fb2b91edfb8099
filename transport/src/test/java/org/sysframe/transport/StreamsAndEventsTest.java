package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.TestClients;
import org.sysframe.transport.wire.EventHeader;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.MessageSpecs;

import org.sysframe.transport.support.TestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sysframe.transport.support.Payloads.nativeCopy;
import static org.sysframe.transport.support.Payloads.pattern;

/**
 * Stream responses (many items then an empty terminator) and events pushed to subscribers, through a
 * {@link GroutServer} with handlers of a test module (0x5f5f). The servers here run one loop even in
 * the suite's several-loops pass: these tests pin that an event reaches a subscriber of the same loop
 * before the publisher's answer, which across loops (an event goes through the other loop's task
 * queue) does not hold; {@code EventLoopsTest} pins cross-loop delivery.
 */
@EachBackend(alsoOverSharedMemory = true)
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamsAndEventsTest {
    static final int MODULE = 0x5f5f;
    /** Request: u32 count, u32 failAfter (0: never). Response: a stream of count 68-byte items. */
    static final int STREAM = GroutApi.type(MODULE, 1);
    /** Request: u32 ev_type, then the event's payload. Publishes it, then answers ok. */
    static final int PUBLISH = GroutApi.type(MODULE, 2);
    static final int EV1 = GroutApi.type(MODULE, 0x10);
    static final int EV2 = GroutApi.type(MODULE, 0x11);
    static final int ITEM = 68;
    static final int ITEMS = 10_000;

    @TempDir Path dir;

    /** The bytes of stream item i: its index, then bytes that depend on it. */
    static void fillItem(MemorySegment s, int i) {
        s.set(JAVA_INT_UNALIGNED, 0, i);
        for (int j = 4; j < ITEM; j++) s.set(JAVA_BYTE, j, (byte) (i * 131 + j * 17 + (i >>> 8)));
    }

    static byte[] item(int i) {
        byte[] b = new byte[ITEM];
        fillItem(MemorySegment.ofArray(b), i);
        return b;
    }

    static void streamHandler(Request req, Reply reply) {
        int count = req.buffer().get(JAVA_INT_UNALIGNED, req.offset());
        int failAfter = req.buffer().get(JAVA_INT_UNALIGNED, req.offset() + 4);
        try (Arena a = Arena.ofConfined()) { // the loop thread's own; items are copied before item() returns
            MemorySegment s = a.allocate(ITEM, 8);
            for (int i = 0; i < count; i++) {
                if (failAfter > 0 && i == failAfter) {
                    reply.error(Errno.EIO);
                    return;
                }
                fillItem(s, i);
                reply.item(s, 0, ITEM);
            }
        }
        reply.end();
    }

    static void publishHandler(Request req, Reply reply) {
        int evType = req.buffer().get(JAVA_INT_UNALIGNED, req.offset());
        reply.publish(evType, req.buffer(), req.offset() + 4, req.length() - 4);
        reply.ok();
    }

    ServerOptions serverOptions(String path, FlushMode flush) {
        return ServerOptions.defaults().socketPath(path).flush(flush)
                .handle(STREAM, 8, StreamsAndEventsTest::streamHandler)
                .handle(PUBLISH, 4, StreamsAndEventsTest::publishHandler);
    }

    static ClientOptions clientOptions(String path, RecvFraming recv) {
        return TestClients.options(path).recv(recv)
                .specs(MessageSpecs.grout().put(STREAM, 8, ITEM, true).put(PUBLISH, 4, 0, false));
    }

    static MemorySegment streamRequest(Arena a, int count, int failAfter) {
        MemorySegment s = a.allocate(8, 8);
        s.set(JAVA_INT_UNALIGNED, 0, count);
        s.set(JAVA_INT_UNALIGNED, 4, failAfter);
        return s;
    }

    static MemorySegment publishRequest(Arena a, int evType, byte[] payload) {
        MemorySegment s = a.allocate(4L + payload.length, 8);
        s.set(JAVA_INT_UNALIGNED, 0, evType);
        MemorySegment.copy(payload, 0, s, JAVA_BYTE, 4, payload.length);
        return s;
    }

    static void assertPing(GroutClient c, Arena a, byte[] payload) throws Exception {
        Response r = c.call(GroutApi.PING, nativeCopy(a, payload));
        assertEquals(0, r.status());
        assertArrayEquals(payload, r.toByteArray(), "ping echo");
    }

    static void assertEvent(Event e, int evType, byte[] payload) {
        assertNotNull(e, "no event came within the wait");
        assertEquals(evType, e.type(), "ev_type");
        assertArrayEquals(payload, e.toByteArray(), "event payload");
    }

    // ---------------------------------------------------------------------------------------------
    // Streams

    static Stream<Arguments> flushAndFraming() {
        return Stream.of(
                Arguments.of(FlushMode.DEFERRED, RecvFraming.READAHEAD),
                Arguments.of(FlushMode.DEFERRED, RecvFraming.EXACT),
                Arguments.of(FlushMode.IMMEDIATE, RecvFraming.READAHEAD),
                Arguments.of(FlushMode.IMMEDIATE, RecvFraming.EXACT));
    }

    @ParameterizedTest
    @MethodSource("flushAndFraming")
    void streamOfTenThousand68ByteItemsYieldsEveryItemByteExactThenFalse(FlushMode flush,
            RecvFraming recv) throws Exception {
        String path = dir.resolve("stream.sock").toString();
        try (GroutServer server = TestServers.startOneLoop(serverOptions(path, flush));
             GroutClient client = TestClients.connect(clientOptions(path, recv));
             Arena a = Arena.ofConfined()) {
            ResponseStream s = client.stream(STREAM, streamRequest(a, ITEMS, 0), 0, 8);
            int n = 0;
            while (s.next()) {
                Response r = s.current();
                assertEquals(0, r.status());
                assertEquals(ITEM, r.length(), "item " + n);
                assertArrayEquals(item(n), r.toByteArray(), "item " + n);
                n++;
            }
            assertEquals(ITEMS, n);
            assertFalse(s.next(), "still false after the terminator");
            assertTrue(client.isUsable());
            assertPing(client, a, pattern(40, 1));
            // A second stream on the same connection works the same.
            try (ResponseStream again = client.stream(STREAM, streamRequest(a, 3, 0), 0, 8)) {
                for (int i = 0; i < 3; i++) {
                    assertTrue(again.next());
                    assertArrayEquals(item(i), again.current().toByteArray());
                }
                assertFalse(again.next());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(FlushMode.class)
    void closingAStreamAfterTenItemsDrainsTheRestAndTheNextPingWorks(FlushMode flush) throws Exception {
        String path = dir.resolve("stop.sock").toString();
        try (GroutServer server = TestServers.startOneLoop(serverOptions(path, flush));
             GroutClient client = TestClients.connect(clientOptions(path, RecvFraming.READAHEAD));
             Arena a = Arena.ofConfined()) {
            ResponseStream s = client.stream(STREAM, streamRequest(a, ITEMS, 0), 0, 8);
            for (int i = 0; i < 10; i++) {
                assertTrue(s.next());
                assertArrayEquals(item(i), s.current().toByteArray());
            }
            s.close();
            assertFalse(s.next());
            assertTrue(client.isUsable());
            assertPing(client, a, pattern(100, 2));
            assertPing(client, a, pattern(0, 3));
        }
    }

    @ParameterizedTest
    @EnumSource(FlushMode.class)
    void streamFailingAfterThreeItemsThrowsApiExceptionOnTheFourthNextAndTheClientStaysUsable(
            FlushMode flush) throws Exception {
        String path = dir.resolve("fail.sock").toString();
        try (GroutServer server = TestServers.startOneLoop(serverOptions(path, flush));
             GroutClient client = TestClients.connect(clientOptions(path, RecvFraming.READAHEAD));
             Arena a = Arena.ofConfined()) {
            ResponseStream s = client.stream(STREAM, streamRequest(a, 10, 3), 0, 8);
            for (int i = 0; i < 3; i++) {
                assertTrue(s.next());
                assertArrayEquals(item(i), s.current().toByteArray());
            }
            ApiException e = assertThrows(ApiException.class, s::next);
            assertEquals(Errno.EIO, e.errno());
            assertEquals("EIO", e.errnoName());
            assertEquals(STREAM, e.type());
            assertFalse(s.next(), "the error ended the stream");
            assertTrue(client.isUsable());
            assertPing(client, a, pattern(7, 4));
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Events

    @ParameterizedTest
    @EnumSource(FlushMode.class)
    void subscribersGetPublishedEventsInterleavedWithTheirOwnPingResponses(FlushMode flush) throws Exception {
        String path = dir.resolve("events.sock").toString();
        try (GroutServer server = TestServers.startOneLoop(serverOptions(path, flush));
             GroutClient a = TestClients.connect(clientOptions(path, RecvFraming.READAHEAD));
             GroutClient all = TestClients.connect(clientOptions(path, RecvFraming.EXACT));
             GroutClient b = TestClients.connect(clientOptions(path, RecvFraming.READAHEAD));
             Arena mem = Arena.ofConfined()) {
            a.subscribe(EV1, false);
            all.subscribe(GroutApi.EVENT_ALL, false);

            int rounds = 6;
            int[] types = new int[rounds];
            byte[][] payloads = new byte[rounds][];
            int ev1Count = 0;
            for (int k = 0; k < rounds; k++) {
                types[k] = k % 3 == 2 ? EV2 : EV1;
                payloads[k] = pattern(k == 3 ? 0 : 10 + 50 * k, 20 + k); // one empty event
                Response ok = b.call(PUBLISH, publishRequest(mem, types[k], payloads[k]));
                assertEquals(0, ok.length());
                assertEquals(0, b.pendingEvents(), "b did not subscribe");
                if (types[k] == EV1) ev1Count++;
                // The event left for a before a's ping was even read: it comes first on a's socket,
                // and a's ping response is still its own.
                assertPing(a, mem, pattern(30 + k, 40 + k));
                assertEquals(ev1Count, a.pendingEvents(), "round " + k);
            }
            for (int k = 0; k < rounds; k++) {
                if (types[k] == EV1) assertEvent(a.nextEvent(Duration.ofSeconds(10)), EV1, payloads[k]);
            }
            assertEquals(0, a.pendingEvents());
            assertPing(a, mem, pattern(9, 9));
            assertEquals(0, a.pendingEvents(), "no event of another type reached a");

            for (int k = 0; k < rounds; k++) assertEvent(all.nextEvent(Duration.ofSeconds(10)), types[k], payloads[k]);
            assertPing(all, mem, pattern(11, 11));
            assertEquals(0, all.pendingEvents());
        }
    }

    @ParameterizedTest
    @EnumSource(FlushMode.class)
    void suppressSelfEventsHidesEventsCausedByAnyConnectionOfTheSamePidWhileOtherSubscribersGetThem(
            FlushMode flush) throws Exception {
        String path = dir.resolve("suppress.sock").toString();
        try (Arena shared = Arena.ofShared();
             GroutServer server = TestServers.startOneLoop(serverOptions(path, flush));
             GroutClient quiet = TestClients.connect(clientOptions(path, RecvFraming.READAHEAD));
             GroutClient loud = TestClients.connect(clientOptions(path, RecvFraming.READAHEAD));
             GroutClient other = TestClients.connect(clientOptions(path, RecvFraming.READAHEAD));
             Arena mem = Arena.ofConfined()) {
            quiet.subscribe(EV1, true);
            loud.subscribe(EV1, false);

            // quiet itself causes an event: it is not sent to quiet (else it would precede the response).
            byte[] p1 = pattern(17, 51);
            quiet.call(PUBLISH, publishRequest(mem, EV1, p1));
            assertEquals(0, quiet.pendingEvents());
            // loud, not suppressing, gets its own event before its response.
            byte[] p2 = pattern(18, 52);
            loud.call(PUBLISH, publishRequest(mem, EV1, p2));
            assertEquals(2, loud.pendingEvents());
            // A third connection of this same process causes one: suppressed for quiet too (same pid).
            byte[] p3 = pattern(19, 53);
            other.call(PUBLISH, publishRequest(mem, EV1, p3));
            assertPing(quiet, mem, pattern(5, 54));
            assertEquals(0, quiet.pendingEvents());

            // An event no client caused (cause pid 0) does reach quiet: it is the first thing quiet gets.
            byte[] p4 = pattern(20, 55);
            MemorySegment p4seg = nativeCopy(shared, p4);
            server.execute(() -> server.publish(EV1, p4seg, 0, p4seg.byteSize(), 0));
            assertEvent(quiet.nextEvent(Duration.ofSeconds(10)), EV1, p4);
            assertEquals(0, quiet.pendingEvents());

            assertEvent(loud.nextEvent(Duration.ofSeconds(10)), EV1, p1);
            assertEvent(loud.nextEvent(Duration.ofSeconds(10)), EV1, p2);
            assertEvent(loud.nextEvent(Duration.ofSeconds(10)), EV1, p3);
            assertEvent(loud.nextEvent(Duration.ofSeconds(10)), EV1, p4);
            assertEquals(0, loud.pendingEvents());
        }
    }

    @ParameterizedTest
    @EnumSource(FlushMode.class)
    void unsubscribeStopsDelivery(FlushMode flush) throws Exception {
        String path = dir.resolve("unsub.sock").toString();
        try (Arena shared = Arena.ofShared();
             GroutServer server = TestServers.startOneLoop(serverOptions(path, flush));
             GroutClient a = TestClients.connect(clientOptions(path, RecvFraming.READAHEAD));
             GroutClient b = TestClients.connect(clientOptions(path, RecvFraming.READAHEAD));
             Arena mem = Arena.ofConfined()) {
            a.subscribe(EV1, false);
            a.subscribe(GroutApi.EVENT_ALL, false);
            b.call(PUBLISH, publishRequest(mem, EV1, pattern(8, 61)));
            assertPing(a, mem, pattern(3, 62));
            assertEquals(1, a.pendingEvents(), "one event even with two matching subscriptions");
            assertEvent(a.nextEvent(Duration.ofSeconds(10)), EV1, pattern(8, 61));

            a.unsubscribe();
            b.call(PUBLISH, publishRequest(mem, EV1, pattern(8, 63)));
            b.call(PUBLISH, publishRequest(mem, EV2, pattern(8, 64)));
            MemorySegment fromServer = nativeCopy(shared, pattern(8, 65));
            server.call(() -> { // published before a's ping is read
                server.publish(EV1, fromServer, 0, fromServer.byteSize(), 0);
                return null;
            });
            assertPing(a, mem, pattern(4, 66));
            assertEquals(0, a.pendingEvents());

            // Subscribing again (to EV2 only) delivers again, and nothing of the above was waiting.
            a.subscribe(EV2, false);
            MemorySegment marker = nativeCopy(shared, pattern(12, 67));
            server.execute(() -> server.publish(EV2, marker, 0, marker.byteSize(), 0));
            assertEvent(a.nextEvent(Duration.ofSeconds(10)), EV2, pattern(12, 67));
            assertEquals(0, a.pendingEvents());
        }
    }

    @Test
    void eventPublishedFromTheTestThreadThroughExecuteIsDeliveredToEverySubscriber() throws Exception {
        String path = dir.resolve("execute.sock").toString();
        try (Arena shared = Arena.ofShared();
             GroutServer server = TestServers.startOneLoop(serverOptions(path, FlushMode.DEFERRED));
             GroutClient a = TestClients.connect(clientOptions(path, RecvFraming.EXACT));
             GroutClient b = TestClients.connect(clientOptions(path, RecvFraming.READAHEAD))) {
            a.subscribe(EV2, true);
            b.subscribe(GroutApi.EVENT_ALL, true);
            byte[] big = pattern(GroutApi.MAX_MSG_LEN, 71); // the largest event payload
            MemorySegment bigSeg = nativeCopy(shared, big);
            server.execute(() -> server.publish(EV2, bigSeg, 0, bigSeg.byteSize(), 0));
            assertEvent(a.nextEvent(Duration.ofSeconds(10)), EV2, big);
            assertEvent(b.nextEvent(Duration.ofSeconds(10)), EV2, big);
            assertThrows(IllegalStateException.class, () -> server.publish(EV2, bigSeg, 0, 1, 0),
                    "publish is for the event-loop thread");
        }
    }

    /**
     * Handlers may answer and publish from heap memory (Reply.ok and publish take any MemorySegment;
     * DEFERRED copies it into its staging buffer). IMMEDIATE must deliver the same bytes, not pass the
     * heap segment's offset to sendmsg as an address (EFAULT), which closes the connections.
     */
    @ParameterizedTest
    @EnumSource(FlushMode.class)
    void handlerReplyAndEventFromHeapMemoryAreDeliveredInBothFlushModes(FlushMode flush) throws Exception {
        String path = dir.resolve("heap.sock").toString();
        int heapReply = GroutApi.type(MODULE, 3);
        byte[] event = pattern(21, 91);
        byte[] answer = pattern(22, 92);
        ServerOptions opts = serverOptions(path, flush).handle(heapReply, 0, (req, reply) -> {
            reply.publish(EV1, MemorySegment.ofArray(event), 0, event.length);
            reply.ok(MemorySegment.ofArray(answer), 0, answer.length);
        });
        try (GroutServer server = TestServers.start(opts);
             GroutClient sub = TestClients.connect(clientOptions(path, RecvFraming.READAHEAD));
             GroutClient req = TestClients.connect(clientOptions(path, RecvFraming.READAHEAD))) {
            sub.subscribe(EV1, false);
            Response r = req.call(heapReply);
            assertArrayEquals(answer, r.toByteArray());
            assertEvent(sub.nextEvent(Duration.ofSeconds(10)), EV1, event);
        }
    }

    @Test
    void aStreamWhoseNextItemDoesNotComeInTimeFailsWithEtimedoutAndClosesAtOnce() throws Exception {
        // The handler writes one item and then waits, in its loop's turn, longer than the client's receive timeout. The
        // server is on epoll (or the channel), whose item leaves as it is written: an io_uring loop submits a turn's
        // sends at its end. The client is each invocation's.
        String path = dir.resolve("late.sock").toString();
        int late = GroutApi.type(MODULE, 4);
        CountDownLatch go = new CountDownLatch(1);
        ServerOptions opts = serverOptions(path, FlushMode.IMMEDIATE).backend(Backend.EPOLL);
        opts.handle(late, 0, (req, reply) -> {
            MemorySegment item = MemorySegment.ofArray(item(0));
            reply.item(item, 0, ITEM);
            go.await(20, TimeUnit.SECONDS);
            reply.item(item, 0, ITEM);
            reply.end();
        });
        try (GroutServer server = TestServers.startOneLoop(opts);
             GroutClient c = TestClients.connect(clientOptions(path, RecvFraming.READAHEAD).receiveTimeoutMillis(300));
             Arena a = Arena.ofConfined()) {
            ResponseStream st = c.stream(late, MemorySegment.NULL, 0, 0);
            assertTrue(st.next());
            ErrnoException e = assertThrows(ErrnoException.class, st::next);
            assertEquals(Errno.ETIMEDOUT, e.errno());
            st.close(); // ended by the timeout: nothing to drain, no wait (it spun for ever before)
            assertFalse(st.next());
            go.countDown();
            assertPing(c, a, pattern(5, 200)); // the late items are dropped; the client goes on
        }
    }

    /**
     * A slow subscriber closed while an event is being published must not make the server skip the
     * next subscriber. X (subscribed first, to everything) never reads and is one 128 KiB event ahead
     * of Y, so X crosses the queued-output limit first; the event that closes X must still reach Y.
     */
    @Test
    void publishStillReachesTheNextSubscriberWhenAnEarlierOneIsClosedAsASlowReader() throws Exception {
        String path = dir.resolve("slow.sock").toString();
        ServerOptions opts = serverOptions(path, FlushMode.DEFERRED);
        // the least allowed
        opts.maxQueuedOutput(2 * (GroutApi.MAX_MSG_LEN + EventHeader.SIZE) + opts.freeze().highWater());
        try (Arena shared = Arena.ofShared();
             GroutServer server = TestServers.start(opts);
             GroutClient x = TestClients.connect(clientOptions(path, RecvFraming.READAHEAD));
             GroutClient y = TestClients.connect(clientOptions(path, RecvFraming.READAHEAD))) {
            x.subscribe(GroutApi.EVENT_ALL, false);
            y.subscribe(EV1, false);
            MemorySegment big = shared.allocate(GroutApi.MAX_MSG_LEN, 8);
            for (int i = 0; i < GroutApi.MAX_MSG_LEN; i++) big.set(JAVA_BYTE, i, (byte) (i * 13 + (i >>> 9)));

            // On the loop thread, without letting it write in between: one event for X alone, then
            // events for both until X is closed.
            int[] result = server.call(() -> {
                int open = server.connectionCount();
                server.publish(EV2, big, 0, big.byteSize(), 0);
                int n = 0;
                while (server.connectionCount() == open && n < 200) {
                    server.publish(EV1, big, 0, big.byteSize(), 0);
                    n++;
                }
                return new int[] {n, open - server.connectionCount()};
            });
            int published = result[0];
            assertEquals(1, result[1], "exactly one connection (X) was closed as a slow reader");
            assertTrue(published >= 1 && published < 200, "published " + published);

            // Y holds no more than X held before its last event, so Y is still open and gets every EV1.
            for (int k = 0; k < published - 1; k++) {
                Event e = y.nextEvent(Duration.ofSeconds(10));
                assertEquals(EV1, e.type());
                assertEquals(-1, MemorySegment.mismatch(e.buffer(), e.offset(), e.offset() + e.length(), big, 0,
                        big.byteSize()), "event " + k);
            }
            MemorySegment marker = nativeCopy(shared, pattern(8, 81));
            server.execute(() -> server.publish(EV1, marker, 0, marker.byteSize(), 0));
            Event last = y.nextEvent(Duration.ofSeconds(10));
            assertEquals(EV1, last.type());
            assertEquals(GroutApi.MAX_MSG_LEN, last.length(),
                    "Y must get the event during which X was closed (" + published
                    + " published), not the marker after it");
            assertEvent(y.nextEvent(Duration.ofSeconds(10)), EV1, pattern(8, 81));
        }
    }

    @Test
    void aHandlerAnswerShorterThanItsDeclaredMinimumIsSentAsEioNeverAsAShortPayload() throws Exception {
        int fixed = GroutApi.type(MODULE, 0x20);
        int items = GroutApi.type(MODULE, 0x21);
        String path = dir.resolve("min.sock").toString();
        ServerOptions o = ServerOptions.defaults().socketPath(path)
                .handle(fixed, 0, 8, (req, reply) -> {
                    try (Arena a = Arena.ofConfined()) {
                        reply.ok(a.allocate(req.length()), 0, req.length()); // answers as many bytes as it got
                    }
                })
                .handle(items, 0, 8, (req, reply) -> {
                    try (Arena a = Arena.ofConfined()) {
                        MemorySegment s = a.allocate(8);
                        reply.item(s, 0, 8);
                        reply.item(s, 0, 4); // a handler bug: shorter than declared
                        reply.end();
                    }
                });
        try (GroutServer server = TestServers.start(o); GroutClient c = TestClients.connect(path); Arena a =
                Arena.ofConfined()) {
            MemorySegment req = a.allocate(16);
            assertEquals(8, c.call(fixed, req, 0, 8).length());
            ApiException e = assertThrows(ApiException.class, () -> c.call(fixed, req, 0, 7));
            assertEquals(Errno.EIO, e.errno());
            try (ResponseStream st = c.stream(items, req, 0, 0)) {
                assertTrue(st.next());
                assertEquals(8, st.current().length());
                ApiException e2 = assertThrows(ApiException.class, st::next);
                assertEquals(Errno.EIO, e2.errno());
                assertFalse(st.next());
            }
            assertEquals(3, c.call(GroutApi.PING, req, 0, 3).length()); // still in step
            assertEquals(1, server.connectionCount());
        }
    }
}
