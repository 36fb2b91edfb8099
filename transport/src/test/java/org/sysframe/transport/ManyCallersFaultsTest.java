package org.sysframe.transport;

import org.sysframe.testsupport.Awaits;
import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.LoopsIndependent;
import org.sysframe.transport.support.TestClients;
import org.sysframe.transport.support.RawConn;
import org.sysframe.transport.support.RawRequest;
import org.sysframe.transport.support.RawServer;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.UnixSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
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
 * One client's faults with many callers, against scripted servers, on each backend: the server gone
 * with 1,000 callers waiting (each fails with the one error, the client says why it is unusable), a
 * caller timed out or interrupted (its late answer dropped and counted, never given to the next
 * caller), 50 callers on a silent server each timing out at its own deadline, close() from another
 * thread with callers waiting, an answer nobody waits for, every id in use, a call from the
 * thread completing a future refused, and a close from it that keeps the descriptor until it returns.
 */
@EachBackend(alsoOverSharedMemory = true)
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@LoopsIndependent
class ManyCallersFaultsTest {
    @TempDir Path dir;

    private String path() { return dir.resolve("faults.sock").toString(); }

    /** Waits (bounded) until the client has n calls in flight. */
    private static void awaitInFlight(GroutClient c, int n) throws InterruptedException {
        long until = System.nanoTime() + 20_000_000_000L;
        while (c.stats().inFlight() != n) {
            if (System.nanoTime() - until > 0) throw new AssertionError("in flight " + c.stats().inFlight() + ", want "
                    + n);
            Thread.sleep(1);
        }
    }

    /** Starts n virtual threads each making one 4-byte GR_PING call; what each threw (or "ok") goes to results. */
    private static List<Thread> callers(GroutClient c, int n, ConcurrentLinkedQueue<String> results) {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    c.call(GroutApi.PING, MemorySegment.ofArray(new byte[4]));
                    results.add("ok");
                } catch (Exception e) {
                    results.add(e.getMessage());
                }
            }));
        }
        return threads;
    }

    /**
     * A script's end: reads requests (never answering) until the client closes; how many came. (How
     * many of the callers' requests left the client by then depends on when they found the I/O role
     * taken: a queued request is sent with the holder's next send.)
     */
    private static int readUntilEof(RawConn conn) {
        int n = 0;
        try {
            while (true) {
                conn.readRequest();
                n++;
            }
        } catch (ErrnoException e) {
            if (e.errno() != Errno.ECONNRESET) throw new AssertionError("raw server: " + e.getMessage());
            return n;
        }
    }

    private static void joinAll(List<Thread> threads) throws InterruptedException {
        for (Thread t : threads) t.join(20_000);
        for (Thread t : threads) assertFalse(t.isAlive(), "a caller hangs: " + t);
    }

    @Test
    void theServerGoingAwayFailsAThousandWaitingCallersWithECONNRESET() throws Exception {
        // The first caller's request is on the wire; the others' wait in the client's send queue for the
        // I/O role's holder's next send (it waits in its receive for an answer that never comes).
        String path = path();
        CountDownLatch allWaiting = new CountDownLatch(1);
        try (RawServer server = new RawServer(path, conn -> {
                 conn.readRequest();
                 assertTrue(allWaiting.await(20, TimeUnit.SECONDS));
             }); // then it closes the connection
             GroutClient c = TestClients.connect(path)) {
            ConcurrentLinkedQueue<String> results = new ConcurrentLinkedQueue<>();
            List<Thread> threads = callers(c, 1000, results);
            awaitInFlight(c, 1000);
            allWaiting.countDown();
            joinAll(threads);
            server.awaitScript();
            assertEquals(1000, results.size());
            // One error for all: EOF, or the kernel's reset when queued requests the server never read had reached it.
            List<String> distinct = results.stream().distinct().toList();
            assertEquals(1, distinct.size(), distinct.toString());
            String reset = distinct.get(0);
            assertTrue(reset.equals("recv(" + path
                    + "): ECONNRESET (104) Connection reset by peer: server closed the connection")
                    || reset.equals("recv(" + path + "): ECONNRESET (104) Connection reset by peer"), reset);
            assertEquals(0, c.stats().inFlight());
            assertEquals(0, c.listedCallers());
            assertFalse(c.isUsable());
            ErrnoException after = assertThrows(ErrnoException.class, () -> c.call(GroutApi.PING));
            assertEquals("client(" + path + "): ENOTCONN (107) Transport endpoint is not connected: unusable since: "
                    + reset,
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
             GroutClient c = TestClients.connect(TestClients.options(path).receiveTimeoutMillis(300))) {
            ErrnoException e = assertThrows(ErrnoException.class, () ->
                    c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {1})));
            assertEquals("GR_PING: ETIMEDOUT (110) Connection timed out: no answer to request " + TestClients.firstId(c)
                    + " within the receive timeout of 300 ms (the client stays usable; a late answer is dropped)",
                            e.getMessage());
            assertEquals(1, c.stats().inFlight(), "the abandoned call keeps its id until its answer comes");
            timedOut.countDown();
            assertArrayEquals(new byte[] {2, 2}, c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {2, 2}))
                    .toByteArray());
            ClientStats s = c.stats();
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
        // One caller holds the I/O role (its receive bounded by its deadline); the other 49 park, and the
        // client's one deadline sweep wakes them. Each gets its own ETIMEDOUT, no sooner than the timeout;
        // the late answers are all dropped and counted, never given to a later call, and the client goes on.
        // The server answers once the test saw the 50 ids kept: over the channel the client's own thread
        // receives for the virtual callers, and drops each late answer as soon as it comes.
        String path = path();
        CountDownLatch idsKept = new CountDownLatch(1);
        try (RawServer server = new RawServer(path, conn -> {
                 RawRequest first = conn.readRequest();
                 assertTrue(idsKept.await(20, TimeUnit.SECONDS));
                 conn.respond(first.id(), 0, first.payload());
                 while (true) { // then every request is answered as it comes, until the client goes
                     RawRequest r;
                     try {
                         r = conn.readRequest();
                     } catch (ErrnoException e) {
                         if (e.errno() == Errno.ECONNRESET) return;
                         throw e;
                     }
                     conn.respond(r.id(), 0, r.payload());
                 }
             });
             GroutClient c = TestClients.connect(TestClients.options(path).receiveTimeoutMillis(300))) {
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
                        boolean timedOut =
                                m.startsWith("GR_PING: ETIMEDOUT (110) Connection timed out: no answer to request ")
                                && m.endsWith(" within the receive timeout of 300 ms (the client stays usable; a late "
                                        + "answer is dropped)");
                        results.add(timedOut ? (waited >= 300 ? "timed out" : "timed out early, after " + waited
                                + " ms") : m);
                    } catch (Exception e) {
                        results.add(e.toString());
                    }
                }));
            }
            joinAll(threads);
            assertEquals(List.of("timed out"), results.stream().distinct().toList());
            assertEquals(50, results.size());
            assertEquals(0, c.listedCallers());
            assertEquals(50, c.stats().inFlight(), "every abandoned call keeps its id until its late answer comes");
            idsKept.countDown();
            // Calls go on, each getting its own answer, while the 50 late answers come and are dropped.
            for (int i = 0; i < 100 && c.stats().inFlight() > 0; i++) {
                byte[] p = {2, (byte) i};
                assertArrayEquals(p, c.call(GroutApi.PING, MemorySegment.ofArray(p)).toByteArray(), "call " + i);
            }
            ClientStats s = c.stats();
            assertEquals(50, s.late(), s.toString());
            assertEquals(0, s.unmatched(), s.toString());
            assertEquals(0, s.inFlight(), s.toString());
            assertTrue(c.isUsable());
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
             GroutClient c = TestClients.connect(path)) {
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
            assertEquals("GR_PING: EINTR (4) Interrupted system call: interrupted while waiting for the answer to "
                    + "request " + TestClients.firstId(c)
                    + " / interrupted true",
                    outcome.get(20, TimeUnit.SECONDS));
            interrupted.countDown();
            assertArrayEquals(new byte[] {3}, c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {3}))
                    .toByteArray());
            assertEquals(1, c.stats().late());
            assertEquals(1, c.stats().failed(), "the interrupted call ended without its answer");
            assertEquals(0, c.stats().timedOut());
            assertTrue(c.isUsable());
            c.close();
            server.awaitScript();
        }
    }

    @Test
    void aCallMadeWithItsThreadInterruptedFailsWithEINTRAndLeavesTheClientUsable() throws Exception {
        // The interrupt is seen after the request went out (the caller held the I/O role for it): the
        // call is abandoned, and the role must be left for the next caller, of this thread or another.
        String path = path();
        try (RawServer server = new RawServer(path, conn -> {
                 RawRequest first = conn.readRequest();
                 conn.respond(first.id(), 0, first.payload()); // late: its caller gave up
                 for (int i = 0; i < 2; i++) {
                     RawRequest r = conn.readRequest();
                     conn.respond(r.id(), 0, r.payload());
                 }
                 conn.awaitEof();
             });
             GroutClient c = TestClients.connect(TestClients.options(path).receiveTimeoutMillis(2000))) {
            Thread.currentThread().interrupt();
            ErrnoException e = assertThrows(ErrnoException.class, () ->
                    c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {1})));
            assertTrue(Thread.interrupted(), "the interrupt status stays set");
            assertEquals("GR_PING: EINTR (4) Interrupted system call: interrupted while waiting for the answer to "
                    + "request " + TestClients.firstId(c),
                    e.getMessage());
            CompletableFuture<String> other = new CompletableFuture<>();
            Thread.ofPlatform().start(() -> {
                try {
                    other.complete(Arrays.toString(c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {2}))
                            .toByteArray()));
                } catch (Throwable x) {
                    other.complete(x.toString());
                }
            });
            assertEquals("[2]", other.get(20, TimeUnit.SECONDS), "another thread's call");
            assertArrayEquals(new byte[] {3}, c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {3}))
                    .toByteArray(), "this thread's next call");
            assertEquals(1, c.stats().late());
            assertEquals(0, c.stats().inFlight());
            c.close();
            server.awaitScript();
        }
    }

    @Test
    void aFutureTimesOutNamingItsRequestAndItsLateAnswerIsDropped() throws Exception {
        String path = path();
        CountDownLatch timedOut = new CountDownLatch(1);
        try (RawServer server = new RawServer(path, conn -> {
                 RawRequest first = conn.readRequest();
                 assertTrue(timedOut.await(20, TimeUnit.SECONDS));
                 conn.respond(first.id(), 0, first.payload()); // late
                 RawRequest second = conn.readRequest();
                 conn.respond(second.id(), 0, second.payload());
                 conn.awaitEof();
             });
             GroutClient c = TestClients.connect(TestClients.options(path).receiveTimeoutMillis(300))) {
            CompletableFuture<Response> f = c.callAsync(GroutApi.PING, MemorySegment.ofArray(new byte[] {1}));
            ExecutionException x = assertThrows(ExecutionException.class, () -> f.get(20, TimeUnit.SECONDS));
            assertEquals("GR_PING: ETIMEDOUT (110) Connection timed out: no answer to request " + TestClients.firstId(c)
                    + " within the receive timeout of 300 ms (the client stays usable; a late answer is dropped)",
                            x.getCause().getMessage());
            timedOut.countDown();
            assertArrayEquals(new byte[] {2}, c.callAsync(GroutApi.PING, MemorySegment.ofArray(new byte[] {2})).get(20,
                    TimeUnit.SECONDS).toByteArray());
            assertEquals(1, c.stats().late());
            assertEquals(0, c.stats().inFlight());
            assertTrue(c.isUsable());
            c.close();
            server.awaitScript();
        }
    }

    @Test
    void closeFromAnotherThreadFailsTheCallersThatWait() throws Exception {
        String path = path();
        try (RawServer server = new RawServer(path, conn -> {
                 readUntilEof(conn);
             });
             GroutClient c = TestClients.connect(path)) {
            ConcurrentLinkedQueue<String> results = new ConcurrentLinkedQueue<>();
            List<Thread> threads = callers(c, 10, results);
            awaitInFlight(c, 10);
            Thread closer = Thread.ofPlatform().start(c::close);
            closer.join(10_000);
            assertFalse(closer.isAlive(), "close hangs");
            joinAll(threads);
            assertEquals(List.of("client(" + path
                    + "): ENOTCONN (107) Transport endpoint is not connected: the client was closed while the call "
                            + "waited"),
                    results.stream().distinct().toList());
            assertEquals(10, results.size());
            assertEquals(10, c.stats().failed(), "every waiting call failed with the connection");
            assertEquals(0, c.stats().timedOut());
            server.awaitScript();
            ErrnoException after = assertThrows(ErrnoException.class, () -> c.call(GroutApi.PING));
            assertEquals("client(" + path
                    + "): ENOTCONN (107) Transport endpoint is not connected: the client was closed",
                            after.getMessage());
            assertFalse(c.isUsable());
            c.close(); // again: nothing
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
             GroutClient c = TestClients.connect(path)) {
            assertArrayEquals(new byte[] {5}, c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {5}))
                    .toByteArray());
            assertEquals(1, c.stats().unmatched());
            assertEquals(0, c.stats().late());
            assertTrue(c.isUsable());
            c.close();
            server.awaitScript();
        }
    }

    @Test
    void whenEveryIdIsInUseTheNextCallFailsSayingSo() throws Exception {
        String path = path();
        try (RawServer server = new RawServer(path, conn -> {
                 readUntilEof(conn); // never answers
             });
             GroutClient c = TestClients.connect(TestClients.options(path).receiveTimeoutMillis(0))) {
            List<CompletableFuture<Response>> futures = Collections.synchronizedList(new ArrayList<>());
            CompletableFuture<String> sending = new CompletableFuture<>();
            Thread sender = Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < 65535; i++) futures.add(c.callAsync(GroutApi.PING));
                    sending.complete("sent");
                } catch (Throwable e) {
                    sending.complete(e.toString());
                }
            });
            sender.join(30_000);
            if (sender.isAlive()) {
                int sent = futures.size();
                c.close();
                sender.join(10_000);
                throw new AssertionError("callAsync blocked after " + sent
                        + " of 65535 futures (the send queue full, the client's thread waiting in its"
                        + " receive for answers that do not come): it should return a future at once");
            }
            assertEquals("sent", sending.get());
            assertEquals(65535, c.stats().inFlight());
            String full = "client(" + path
                    + "): EAGAIN (11) Resource temporarily unavailable: all 65535 request ids are in use"
                    + " (calls waiting, or timed out with no answer yet): no call can be sent until answers come";
            assertEquals(full, assertThrows(ErrnoException.class, () -> c.callAsync(GroutApi.PING)).getMessage());
            assertEquals(full, assertThrows(ErrnoException.class, () -> c.call(GroutApi.PING)).getMessage(),
                    "a blocking call too");
            assertTrue(c.isUsable(), "a full table breaks nothing");
            c.close();
            for (CompletableFuture<Response> f : futures) {
                ExecutionException x = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
                assertEquals("client(" + path
                        + "): ENOTCONN (107) Transport endpoint is not connected: the client was closed while the call "
                                + "waited",
                        x.getCause().getMessage());
            }
            server.awaitScript();
        }
    }

    @Test
    void aBlockingCallFromAFuturesCompletionIsRefusedNotADeadlock() throws Exception {
        String path = path();
        CountDownLatch staged = new CountDownLatch(1);
        try (RawServer server = new RawServer(path, conn -> {
                 RawRequest r = conn.readRequest();
                 // answered once the stage is attached: it runs on the receiving thread
                 assertTrue(staged.await(20, TimeUnit.SECONDS));
                 conn.respond(r.id(), 0, r.payload());
                 RawRequest after = conn.readRequest();
                 conn.respond(after.id(), 0, after.payload());
                 conn.awaitEof();
             });
             GroutClient c = TestClients.connect(path)) {
            CompletableFuture<String> inside = c.callAsync(GroutApi.PING, MemorySegment.ofArray(new byte[] {1}))
                    .thenApply(r -> {
                try {
                    c.call(GroutApi.PING);
                    return "called";
                } catch (Exception e) {
                    return e.getClass().getSimpleName() + ": " + e.getMessage();
                }
            });
            staged.countDown();
            String got = inside.get(20, TimeUnit.SECONDS);
            assertTrue(got.startsWith("IllegalStateException: GroutClient(" + path
                    + "): a call from the thread receiving for the client"), got);
            assertTrue(c.isUsable());
            assertArrayEquals(new byte[] {7}, c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {7}))
                    .toByteArray(), "the client goes on");
            assertEquals(0, c.stats().inFlight());
            c.close();
            server.awaitScript();
        }
    }

    @Test
    void aCloseFromAFuturesCompletionKeepsTheDescriptorUntilTheCompletionReturns() throws Exception {
        String path = path();
        CountDownLatch staged = new CountDownLatch(1);
        try (RawServer server = new RawServer(path, conn -> {
                 RawRequest r = conn.readRequest();
                 assertTrue(staged.await(20, TimeUnit.SECONDS)); // the stage runs on the receiving thread
                 conn.respond(r.id(), 0, r.payload());
                 conn.awaitEof();
             });
             GroutClient c = TestClients.connect(path)) {
            int fd = c.descriptor();
            Path proc = Path.of("/proc/self/fd/" + fd);
            String socket = Files.readSymbolicLink(proc).toString();
            CompletableFuture<String> inside = c.callAsync(GroutApi.PING, MemorySegment.ofArray(new byte[] {1}))
                    .thenApply(r -> {
                c.close();
                // This thread does the client's I/O and may still hold the descriptor's number: until it returns,
                // the number stays the client's socket, and a socket opened now takes another.
                try {
                    UnixSocket[] pair = UnixSocket.pair();
                    boolean other = pair[0].fd() != fd && pair[1].fd() != fd;
                    pair[0].close();
                    pair[1].close();
                    return Files.readSymbolicLink(proc) + " " + other;
                } catch (Exception e) {
                    return e.toString();
                }
            });
            staged.countDown();
            assertEquals(socket + " true", inside.get(20, TimeUnit.SECONDS));
            assertFalse(c.isUsable());
            Awaits.awaitEquals(-1, c::descriptor, Awaits.HANG_GUARD, "the descriptor, closed once the completion left");
            server.awaitScript();
        }
    }
}
