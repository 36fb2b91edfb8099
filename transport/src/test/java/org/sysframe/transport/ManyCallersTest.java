package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.TestClients;
import org.sysframe.transport.support.TestServers;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.MessageSpecs;

import org.sysframe.unix.ErrnoException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One {@link GroutClient} called by many threads at once, against a real server, on each backend and
 * over the shared-memory channel: 64 platform and 64 virtual threads each get their own answer, byte for byte;
 * each thread's {@link Response} stays its own while others call; futures complete with a copy of
 * their own answer (more of them than the send queue holds, while blocking callers call); heap
 * payloads; the largest answer (128 KiB) while small calls go on; a stream read on one thread while
 * others call, and a stream type refused by call().
 */
@EachBackend(alsoOverSharedMemory = true)
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ManyCallersTest {
    /** The test module's stream: request u32 count; answer count items of 68 bytes, then the terminator. */
    static final int STREAM = GroutApi.type(0x5e5e, 1);
    static final int ITEM = 68;

    @TempDir Path dir;
    private GroutServer server;

    @AfterEach
    void stop() {
        if (server != null) server.close();
    }

    /** Starts the server and connects the client (over the invocation's transport). */
    private GroutClient serve() throws Exception {
        String path = dir.resolve("many.sock").toString();
        server = TestServers.start(ServerOptions.defaults().socketPath(path).handle(STREAM, 4,
                ManyCallersTest::stream));
        MessageSpecs specs = MessageSpecs.grout().put(STREAM, 4, ITEM, true).name(STREAM, "TEST_STREAM");
        return TestClients.connect(TestClients.options(path).specs(specs));
    }

    static void stream(Request req, Reply reply) {
        int count = req.buffer().get(JAVA_INT_UNALIGNED, req.offset());
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(ITEM, 8);
            for (int i = 0; i < count; i++) {
                item(s, i);
                reply.item(s, 0, ITEM);
            }
        }
        reply.end();
    }

    /** Stream item i: its index, then bytes that depend on it. */
    static void item(MemorySegment s, int i) {
        s.set(JAVA_INT_UNALIGNED, 0, i);
        for (int j = 4; j < ITEM; j++) s.set(JAVA_BYTE, j, (byte) (i * 131 + j * 17));
    }

    /** Caller t's payload for call i: 8..64 bytes naming both, so a misrouted answer differs. */
    static int fill(MemorySegment seg, int t, int i) {
        int len = 8 + Math.floorMod(t * 7919 + i * 31, 57);
        seg.set(JAVA_INT_UNALIGNED, 0, t);
        seg.set(JAVA_INT_UNALIGNED, 4, i);
        for (int k = 8; k < len; k++) seg.set(JAVA_BYTE, k, (byte) (t * 13 + i * 7 + k * 3));
        return len;
    }

    /**
     * Starts n callers (the first half platform threads, the rest virtual) running body(t); what fails goes to
     * failures.
     */
    private interface Body {
        void run(int t) throws Exception;
    }

    private static List<Thread> start(int n, int platform, ConcurrentLinkedQueue<Throwable> failures, Body body) {
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < n; t++) {
            int id = t;
            Runnable r = () -> {
                try {
                    body.run(id);
                } catch (Throwable e) {
                    failures.add(e);
                }
            };
            all.add(t < platform ? Thread.ofPlatform().start(r) : Thread.ofVirtual().start(r));
        }
        return all;
    }

    private static void join(List<Thread> all, ConcurrentLinkedQueue<Throwable> failures) throws InterruptedException {
        for (Thread t : all) t.join(60_000);
        for (Thread t : all) assertFalse(t.isAlive(), "a caller still runs: " + t);
        assertEquals(List.of(), failures.stream().map(Throwable::toString).toList());
    }

    @Test
    void platformAndVirtualCallersEachGetTheirOwnAnswer() throws Exception {
        int threads = 64, calls = 300;
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        try (GroutClient c = serve()) {
            long calls0 = c.stats().calls(); // the hello (on the socket client a channel's client replaced)
            join(start(2 * threads, threads, failures, id -> {
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment req = a.allocate(64);
                    for (int i = 0; i < calls; i++) {
                        int len = fill(req, id, i);
                        Response r = c.call(GroutApi.PING, req, 0, len);
                        assertEquals(len, r.length(), "caller " + id + " call " + i);
                        assertEquals(-1, req.asSlice(0, len).mismatch(r.payload()), "caller " + id + " call " + i);
                    }
                }
            }), failures);
            ClientStats s = c.stats();
            assertEquals(calls0 + 2L * threads * calls, s.calls(), "every call counted once: " + s);
            assertTrue(s.batches() <= s.calls(), s.toString());
            assertTrue(s.largestBatch() <= 2L * threads, "a batch holds at most one request of each caller: " + s);
            assertEquals(0, s.inFlight());
            assertEquals(0, s.unmatched());
            assertEquals(0, s.late());
            // Every caller returned: none is still listed as parked (a stale one would be offered the role, and nobody
            // would take it).
            assertEquals(0, c.listedCallers());
            assertTrue(c.isUsable());
        }
    }

    @Test
    void eachThreadsResponseStaysItsOwnWhileOtherThreadsCall() throws Exception {
        try (GroutClient c = serve(); Arena a = Arena.ofConfined()) {
            byte[] mine = {1, 2, 3, 4, 5, 6, 7};
            Response r = c.call(GroutApi.PING, MemorySegment.ofArray(mine));
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            join(start(8, 4, failures, id -> {
                byte[] theirs = new byte[16];
                Arrays.fill(theirs, (byte) (100 + id));
                for (int i = 0; i < 500; i++) {
                    Response other = c.call(GroutApi.PING, MemorySegment.ofArray(theirs));
                    assertArrayEquals(theirs, other.toByteArray());
                    assertTrue(other != r, "another thread's view");
                }
            }), failures);
            assertArrayEquals(mine, r.toByteArray(), "this thread's view is valid until its own next call");
            MemorySegment next = a.allocate(3);
            next.fill((byte) 9);
            Response again = c.call(GroutApi.PING, next);
            assertTrue(again == r, "the thread's one flyweight");
            assertArrayEquals(new byte[] {9, 9, 9}, again.toByteArray());
        }
    }

    @Test
    void futuresCompleteWithACopyOfTheirOwnAnswer() throws Exception {
        try (GroutClient c = serve(); Arena a = Arena.ofConfined()) {
            MemorySegment req = a.allocate(64);
            List<CompletableFuture<Response>> futures = new ArrayList<>();
            List<byte[]> sent = new ArrayList<>();
            // More than the 64 KiB send queue holds: the caller waits for room, never drops a request.
            for (int i = 0; i < 4000; i++) {
                int len = fill(req, 7, i);
                sent.add(req.asSlice(0, len).toArray(JAVA_BYTE));
                futures.add(c.callAsync(GroutApi.PING, req, 0, len));
            }
            // Blocking calls of other threads meanwhile: the futures' answers stay theirs.
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            join(start(4, 2, failures, id -> {
                byte[] p = {(byte) id, 1, 2, 3};
                for (int i = 0; i < 200; i++) assertArrayEquals(p,
                        c.call(GroutApi.PING, MemorySegment.ofArray(p)).toByteArray());
            }), failures);
            List<Response> answers = new ArrayList<>();
            for (int i = 0; i < futures.size(); i++) {
                Response r = futures.get(i).get(10, TimeUnit.SECONDS);
                assertArrayEquals(sent.get(i), r.toByteArray(), "future " + i);
                answers.add(r);
            }
            assertEquals(answers.size(), answers.stream().distinct().count(), "each future its own Response");
            assertArrayEquals(sent.get(0), answers.get(0).toByteArray(),
                    "a future's answer is a copy: later calls leave it alone");
            assertEquals(0, c.stats().inFlight());
        }
    }

    @Test
    void heapPayloads() throws Exception {
        try (GroutClient c = serve()) {
            byte[] bytes = {1, 2, 3, 4, 5};
            assertArrayEquals(bytes, c.call(GroutApi.PING, MemorySegment.ofArray(bytes)).toByteArray());
            assertArrayEquals(new byte[] {2, 3}, c.call(GroutApi.PING, MemorySegment.ofArray(bytes), 1, 2)
                    .toByteArray());
            assertArrayEquals(new byte[0], c.call(GroutApi.PING).toByteArray());
            assertArrayEquals(bytes, c.callAsync(GroutApi.PING, MemorySegment.ofArray(bytes)).get(10, TimeUnit.SECONDS)
                    .toByteArray());
        }
    }

    @Test
    void theLargestAnswerComesWholeWhileOtherThreadsMakeSmallCalls() throws Exception {
        try (GroutClient c = serve(); Arena a = Arena.ofConfined()) {
            MemorySegment big = a.allocate(GroutApi.MAX_MSG_LEN);
            for (int i = 0; i < big.byteSize(); i++) big.set(JAVA_BYTE, i, (byte) (i * 7 + (i >>> 9)));
            AtomicBoolean bigDone = new AtomicBoolean();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            List<Thread> small = start(6, 3, failures, id -> {
                try (Arena ar = Arena.ofConfined()) {
                    MemorySegment p = ar.allocate(64);
                    for (int i = 0; i < 300 || !bigDone.get(); i++) {
                        int len = fill(p, id, i);
                        assertEquals(-1, p.asSlice(0, len).mismatch(c.call(GroutApi.PING, p, 0, len).payload()),
                                "caller " + id + " call " + i);
                    }
                }
            });
            try {
                for (int i = 0; i < 20; i++) {
                    big.set(JAVA_INT_UNALIGNED, 0, i);
                    Response r = c.call(GroutApi.PING, big);
                    assertEquals(GroutApi.MAX_MSG_LEN, r.length());
                    assertEquals(-1, big.mismatch(r.payload()), "big answer " + i);
                }
            } finally {
                bigDone.set(true);
            }
            join(small, failures);
            assertEquals(0, c.stats().late());
            assertEquals(0, c.stats().unmatched());
        }
    }

    @Test
    void aStreamIsReadOnOneThreadWhileOthersCallAndCallRefusesAStreamType() throws Exception {
        try (GroutClient c = serve(); Arena a = Arena.ofConfined()) {
            ErrnoException e = assertThrows(ErrnoException.class, () ->
                    c.call(STREAM, MemorySegment.ofArray(new byte[4])));
            assertEquals("TEST_STREAM: EINVAL (22) Invalid argument: a stream request has several answers: use "
                    + "stream(), not call()",
                    e.getMessage());
            assertTrue(c.isUsable());
            CountDownLatch streaming = new CountDownLatch(1);
            AtomicBoolean streamDone = new AtomicBoolean();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            List<Thread> others = start(6, 3, failures, id -> {
                assertTrue(streaming.await(20, TimeUnit.SECONDS));
                try (Arena ar = Arena.ofConfined()) {
                    MemorySegment p = ar.allocate(64);
                    for (int i = 0; i < 200 || !streamDone.get(); i++) {
                        int len = fill(p, id, i);
                        assertEquals(-1, p.asSlice(0, len).mismatch(c.call(GroutApi.PING, p, 0, len).payload()),
                                "caller " + id + " call " + i);
                    }
                }
            });
            MemorySegment expected = a.allocate(ITEM);
            try {
                for (int round = 0; round < 5; round++) {
                    int count = 2000;
                    MemorySegment req = a.allocate(4);
                    req.set(JAVA_INT_UNALIGNED, 0, count);
                    int n = 0;
                    try (ResponseStream s = c.stream(STREAM, req, 0, 4)) {
                        streaming.countDown();
                        while (s.next()) {
                            item(expected, n);
                            assertEquals(-1, expected.mismatch(s.current().payload()), "round " + round + " item " + n);
                            n++;
                        }
                    }
                    assertEquals(count, n, "round " + round);
                }
            } finally {
                streamDone.set(true);
                streaming.countDown();
            }
            join(others, failures);
            assertEquals(0, c.stats().inFlight());
            assertEquals(0, c.stats().late());
            assertEquals(0, c.stats().unmatched());
            assertEquals(0, c.listedCallers());
        }
    }
}
