package org.sysframe.transport;

import org.sysframe.transport.support.RawRequest;
import org.sysframe.transport.support.RawServer;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.unix.ErrnoException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared client's faults against scripted servers: the server gone with 1,000 callers waiting, a
 * caller timed out or interrupted (its late answer dropped, not given to the next caller), close()
 * with callers waiting, an answer nobody waits for, and every id in use.
 */
class SharedClientFaultsTest {
    @TempDir Path dir;

    private String path() { return dir.resolve("faults.sock").toString(); }

    /** Waits (bounded) until the client has n calls in flight. */
    private static void awaitInFlight(SharedGroutClient c, int n) throws InterruptedException {
        long until = System.nanoTime() + 20_000_000_000L;
        while (c.inFlight() != n) {
            if (System.nanoTime() - until > 0) throw new AssertionError("in flight " + c.inFlight() + ", want " + n);
            Thread.sleep(1);
        }
    }

    /** Starts n virtual threads each making one 4-byte GR_PING call; what each threw (or "ok") goes to results. */
    private static List<Thread> callers(SharedGroutClient c, int n, ConcurrentLinkedQueue<String> results) {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment p = a.allocate(4), out = a.allocate(4);
                    c.call(GroutApi.PING, p, 0, 4, out);
                    results.add("ok");
                } catch (Exception e) {
                    results.add(e.getMessage());
                }
            }));
        }
        return threads;
    }

    private static void joinAll(List<Thread> threads) throws InterruptedException {
        for (Thread t : threads) t.join(20_000);
        for (Thread t : threads) assertFalse(t.isAlive(), "a caller hangs: " + t);
    }

    @Test
    void theServerGoingAwayFailsAThousandWaitingCallersWithECONNRESET() throws Exception {
        String path = path();
        try (RawServer server = new RawServer(path, conn -> {
                 for (int i = 0; i < 1000; i++) conn.readRequest();
             }); // then it closes the connection
             SharedGroutClient c = SharedGroutClient.connect(path)) {
            ConcurrentLinkedQueue<String> results = new ConcurrentLinkedQueue<>();
            joinAll(callers(c, 1000, results));
            server.awaitScript();
            assertEquals(1000, results.size());
            String reset = "recv(" + path + "): ECONNRESET (104) Connection reset by peer: server closed the connection";
            assertEquals(List.of(reset), results.stream().distinct().toList());
            assertEquals(0, c.inFlight());
            assertFalse(c.isUsable());
            ErrnoException after = assertThrows(ErrnoException.class, () -> c.call(GroutApi.PING));
            assertEquals("client(" + path + "): ENOTCONN (107) Transport endpoint is not connected: unusable since: " + reset,
                    after.getMessage());
        }
    }

    @Test
    void aTimedOutCallersLateAnswerIsDroppedNotGivenToTheNextCaller() throws Exception {
        String path = path();
        CountDownLatch timedOut = new CountDownLatch(1);
        try (RawServer server = new RawServer(path, conn -> {
                 RawRequest first = conn.readRequest();
                 assertTrue(timedOut.await(20, TimeUnit.SECONDS));
                 conn.respond(first.id(), 0, first.payload());   // late: its caller gave up
                 RawRequest second = conn.readRequest();
                 conn.respond(second.id(), 0, second.payload());
                 conn.awaitEof();
             });
             SharedGroutClient c = SharedGroutClient.connect(ClientOptions.defaults().socketPath(path).receiveTimeoutMillis(300))) {
            ErrnoException e = assertThrows(ErrnoException.class, () -> c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {1})));
            assertEquals("GR_PING: ETIMEDOUT (110) Connection timed out: no answer to request 2 within the receive timeout of 300 ms"
                    + " (the client stays usable; a late answer is dropped)", e.getMessage());
            assertEquals(1, c.inFlight(), "the abandoned call keeps its id until its answer comes");
            timedOut.countDown();
            assertArrayEquals(new byte[] {2, 2}, c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {2, 2})));
            SharedClientStats s = c.stats();
            assertEquals(1, s.late());
            assertEquals(0, s.unmatched());
            assertEquals(0, s.inFlight());
            assertTrue(c.isUsable());
            c.close();
            server.awaitScript();
        }
    }

    @Test
    void fiftyParkedCallersOnASilentServerEachTimeOutAtTheirDeadlineNeverBefore() throws Exception {
        // One caller receives (its recv bounded by its deadline); the other 49 park untimed, and the client's
        // one deadline sweep wakes them. Each gets its own ETIMEDOUT, no sooner than the timeout; the late
        // answers are all dropped and the client goes on.
        String path = path();
        CountDownLatch allTimedOut = new CountDownLatch(50);
        try (RawServer server = new RawServer(path, conn -> {
                 List<RawRequest> silent = new ArrayList<>();
                 for (int i = 0; i < 50; i++) silent.add(conn.readRequest());
                 assertTrue(allTimedOut.await(20, TimeUnit.SECONDS));
                 for (RawRequest r : silent) conn.respond(r.id(), 0, r.payload());
                 RawRequest after = conn.readRequest();
                 conn.respond(after.id(), 0, after.payload());
                 conn.awaitEof();
             });
             SharedGroutClient c = SharedGroutClient.connect(ClientOptions.defaults().socketPath(path).receiveTimeoutMillis(300))) {
            ConcurrentLinkedQueue<String> results = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                threads.add(Thread.ofVirtual().start(() -> {
                    long t0 = System.nanoTime();
                    try {
                        c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {1}));
                        results.add("answered");
                    } catch (ErrnoException e) {
                        long waited = (System.nanoTime() - t0) / 1_000_000L;
                        String m = e.getMessage();
                        boolean timedOut = m.startsWith("GR_PING: ETIMEDOUT (110) Connection timed out: no answer to request ")
                                && m.endsWith(" within the receive timeout of 300 ms (the client stays usable; a late answer is dropped)");
                        results.add(timedOut ? (waited >= 300 ? "timed out" : "timed out early, after " + waited + " ms") : m);
                    } catch (Exception e) {
                        results.add(e.toString());
                    } finally {
                        allTimedOut.countDown();
                    }
                }));
            }
            joinAll(threads);
            assertEquals(List.of("timed out"), results.stream().distinct().toList());
            assertEquals(50, results.size());
            assertArrayEquals(new byte[] {2}, c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {2})));
            assertEquals(50, c.stats().late());
            assertEquals(0, c.stats().inFlight());
            c.close();
            server.awaitScript();
        }
    }

    @Test
    void anInterruptedCallerGetsEINTRAndItsLateAnswerIsDropped() throws Exception {
        String path = path();
        CountDownLatch interrupted = new CountDownLatch(1);
        try (RawServer server = new RawServer(path, conn -> {
                 RawRequest first = conn.readRequest();
                 assertTrue(interrupted.await(20, TimeUnit.SECONDS));
                 conn.respond(first.id(), 0, first.payload());
                 RawRequest second = conn.readRequest();
                 conn.respond(second.id(), 0, second.payload());
                 conn.awaitEof();
             });
             SharedGroutClient c = SharedGroutClient.connect(path)) {
            CompletableFuture<String> outcome = new CompletableFuture<>();
            Thread caller = Thread.ofVirtual().start(() -> {
                try {
                    c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {1}));
                    outcome.complete("answered");
                } catch (Exception e) {
                    outcome.complete(e.getMessage() + " / interrupted " + Thread.currentThread().isInterrupted());
                }
            });
            awaitInFlight(c, 1);
            caller.interrupt();
            assertEquals("GR_PING: EINTR (4) Interrupted system call: interrupted while waiting for the answer to request 2 / interrupted true",
                    outcome.get(20, TimeUnit.SECONDS));
            interrupted.countDown();
            assertArrayEquals(new byte[] {3}, c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {3})));
            assertEquals(1, c.stats().late());
            assertTrue(c.isUsable());
            c.close();
            server.awaitScript();
        }
    }

    @Test
    void closeFailsTheCallersThatWait() throws Exception {
        String path = path();
        try (RawServer server = new RawServer(path, conn -> {
                 for (int i = 0; i < 10; i++) conn.readRequest();
                 conn.awaitEof();
             });
             SharedGroutClient c = SharedGroutClient.connect(path)) {
            ConcurrentLinkedQueue<String> results = new ConcurrentLinkedQueue<>();
            List<Thread> threads = callers(c, 10, results);
            awaitInFlight(c, 10);
            c.close();
            joinAll(threads);
            assertEquals(List.of("client(" + path + "): ENOTCONN (107) Transport endpoint is not connected: the client was closed while the call waited"),
                    results.stream().distinct().toList());
            assertEquals(10, results.size());
            server.awaitScript();
            ErrnoException after = assertThrows(ErrnoException.class, () -> c.call(GroutApi.PING));
            assertEquals("client(" + path + "): ENOTCONN (107) Transport endpoint is not connected: the client was closed", after.getMessage());
        }
    }

    @Test
    void anAnswerForAnIdNobodyWaitsForIsCountedAndDropped() throws Exception {
        String path = path();
        try (RawServer server = new RawServer(path, conn -> {
                 RawRequest r = conn.readRequest();
                 conn.respond(999, 0, new byte[] {9, 9, 9});
                 conn.respond(r.id(), 0, r.payload());
                 conn.awaitEof();
             });
             SharedGroutClient c = SharedGroutClient.connect(path)) {
            assertArrayEquals(new byte[] {5}, c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {5})));
            assertEquals(1, c.stats().unmatched());
            assertTrue(c.isUsable());
            c.close();
            server.awaitScript();
        }
    }

    @Test
    void whenEveryIdIsInUseTheNextCallFailsSayingSo() throws Exception {
        String path = path();
        try (RawServer server = new RawServer(path, conn -> {
                 for (int i = 0; i < 65535; i++) conn.readRequest(); // never answers
                 conn.awaitEof();
             });
             SharedGroutClient c = SharedGroutClient.connect(ClientOptions.defaults().socketPath(path).receiveTimeoutMillis(0))) {
            List<CompletableFuture<byte[]>> futures = new ArrayList<>();
            MemorySegment none = MemorySegment.NULL;
            for (int i = 0; i < 65535; i++) futures.add(c.callAsync(GroutApi.PING, none, 0, 0));
            assertEquals(65535, c.inFlight());
            ErrnoException e = assertThrows(ErrnoException.class, () -> c.callAsync(GroutApi.PING, none, 0, 0));
            assertEquals("client(" + path + "): EAGAIN (11) Resource temporarily unavailable: all 65535 request ids are in use"
                    + " (calls waiting, or timed out with no answer yet): no call can be sent until answers come", e.getMessage());
            c.close();
            for (CompletableFuture<byte[]> f : futures) {
                ExecutionException x = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
                assertEquals("client(" + path + "): ENOTCONN (107) Transport endpoint is not connected: the client was closed while the call waited",
                        x.getCause().getMessage());
            }
            server.awaitScript();
        }
    }
}
