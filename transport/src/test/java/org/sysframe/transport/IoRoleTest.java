package org.sysframe.transport;

import org.sysframe.transport.support.BackendSuite;
import org.sysframe.transport.support.RawRequest;
import org.sysframe.transport.support.RawServer;
import org.sysframe.transport.support.TestServers;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.uring.UringSupport;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The I/O role of a client (one thread at a time moves its bytes), on each backend: a caller alone
 * makes its sends and receives on its own thread, exactly one sendto and one recvfrom per call with
 * epoll, exactly one io_uring_enter with io_uring, by the library's count and by the kernel's count of
 * that thread, and no other thread of the client exists; a holder whose deadline passes hands the role
 * to the caller still waiting, which then sends its queued request and receives its own answer; a
 * future is completed by the blocking caller holding the role when its answer comes, or else by the
 * client's own thread.
 */
@NeedsKernelCounter
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class IoRoleTest {
    @TempDir Path dir;

    private static void assumeAvailable(Backend b) {
        String why = BackendSuite.skipReason(b, UringSupport.unavailableReason());
        Assumptions.assumeTrue(why == null, why);
    }

    /** Waits (bounded) until the client has n calls in flight. */
    private static void awaitInFlight(GroutClient c, int n) throws InterruptedException {
        long until = System.nanoTime() + 20_000_000_000L;
        while (c.stats().inFlight() != n) {
            if (System.nanoTime() - until > 0) throw new AssertionError("in flight " + c.stats().inFlight() + ", want " + n);
            Thread.sleep(1);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"EPOLL", "IO_URING"})
    void aCallerAloneMakesExactlyItsOwnSyscallsOnItsOwnThread(Backend backend) throws Exception {
        assumeAvailable(backend);
        String path = dir.resolve("alone.sock").toString();
        try (GroutServer server = TestServers.startEpoll(ServerOptions.defaults().socketPath(path));
             GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(backend));
             KernelSyscallCounter mine = KernelSyscallCounter.forCurrentThread();
             Arena a = Arena.ofConfined()) {
            assertEquals(backend, c.backend());
            MemorySegment req = a.allocate(32);
            for (int i = 0; i < 100; i++) c.call(GroutApi.PING, req, 0, 32);   // warm
            SyscallCounts lib0 = c.counters().snapshot(), k0 = mine.read();
            for (int i = 0; i < 1000; i++) c.call(GroutApi.PING, req, 0, 32);
            SyscallCounts lib = c.counters().snapshot().minus(lib0), kernel = mine.read().minus(k0);
            SyscallCounts want = backend == Backend.EPOLL ? SyscallCounts.builder().sendto(1000).recvfrom(1000).build()
                    : SyscallCounts.builder().ioUringEnter(1000).build();
            assertEquals(want, lib, "library");
            assertEquals(lib, kernel, "kernel: the caller's own thread made every one");
            assertEquals(0, c.clientThreadId(), "no other thread of the client");
            ClientStats s = c.stats();
            assertEquals(0, s.batches(), "nothing queued: " + s);
            assertEquals(1101, s.calls(), "the hello and every call: " + s);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"EPOLL", "IO_URING"})
    void aHolderWhoseDeadlinePassesHandsTheRoleToTheCallerStillWaiting(Backend backend) throws Exception {
        assumeAvailable(backend);
        String path = dir.resolve("handover.sock").toString();
        CountDownLatch firstTimedOut = new CountDownLatch(1);
        try (RawServer server = new RawServer(path, conn -> {
                 RawRequest first = conn.readRequest();    // never answered in time
                 // The second request is queued while the first caller waits in its receive: it leaves
                 // when the second caller takes the role, after the first one's deadline.
                 RawRequest second = conn.readRequest();
                 assertTrue(firstTimedOut.await(20, TimeUnit.SECONDS));
                 conn.respond(second.id(), 0, second.payload());
                 conn.respond(first.id(), 0, first.payload()); // late: dropped
                 RawRequest third = conn.readRequest();
                 conn.respond(third.id(), 0, third.payload());
                 conn.awaitEof();
             });
             GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(backend).receiveTimeoutMillis(3000))) {
            CompletableFuture<String> second = new CompletableFuture<>();
            ErrnoException e = assertThrows(ErrnoException.class, () -> {
                // The first caller (this thread) holds the role; the second waits behind it, started 1 s later.
                Thread.ofPlatform().start(() -> {
                    try {
                        Thread.sleep(1000);
                        second.complete(java.util.Arrays.toString(c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {2, 2})).toByteArray()));
                    } catch (Exception x) {
                        second.complete(x.getMessage());
                    }
                });
                c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {1}));
            });
            assertEquals("GR_PING: ETIMEDOUT (110) Connection timed out: no answer to request 2 within the receive timeout of 3000 ms"
                    + " (the client stays usable; a late answer is dropped)", e.getMessage());
            firstTimedOut.countDown();
            assertEquals("[2, 2]", second.get(20, TimeUnit.SECONDS), "the second caller took the role and got its own answer");
            assertArrayEquals(new byte[] {3}, c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {3})).toByteArray());
            assertEquals(1, c.stats().late());
            assertEquals(0, c.stats().inFlight());
            assertEquals(0, c.listedCallers());
            c.close();
            server.awaitScript();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"EPOLL", "IO_URING"})
    void aFutureIsCompletedByTheBlockingCallerHoldingTheRoleOrElseByTheClientsThread(Backend backend) throws Exception {
        assumeAvailable(backend);
        String path = dir.resolve("futures.sock").toString();
        CountDownLatch f1Queued = new CountDownLatch(1), blockingDone = new CountDownLatch(1);
        try (RawServer server = new RawServer(path, conn -> {
                 RawRequest blocking = conn.readRequest();
                 assertTrue(f1Queued.await(20, TimeUnit.SECONDS));
                 // An answer nobody waits for: the holder's receive returns, and it sends the queued f1 before its next one.
                 conn.respond(999, 0, new byte[] {9});
                 RawRequest f1 = conn.readRequest();
                 conn.respond(f1.id(), 0, f1.payload());          // while the blocking caller receives: completed by it
                 conn.respond(blocking.id(), 0, blocking.payload());
                 RawRequest f2 = conn.readRequest();
                 assertTrue(blockingDone.await(20, TimeUnit.SECONDS));
                 conn.respond(f2.id(), 0, f2.payload());          // after the blocking caller went: the client's thread's
                 conn.awaitEof();
             });
             GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(backend))) {
            CompletableFuture<byte[]> blocking = new CompletableFuture<>();
            Thread caller = Thread.ofPlatform().name("blocking caller").start(() -> {
                try {
                    blocking.complete(c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {2})).toByteArray());
                } catch (Throwable x) {
                    blocking.completeExceptionally(x);
                }
            });
            awaitInFlight(c, 1);
            CompletableFuture<Response> f1 = c.callAsync(GroutApi.PING, MemorySegment.ofArray(new byte[] {1}));
            CompletableFuture<String> f1Thread = f1.thenApply(x -> Thread.currentThread().getName());
            f1Queued.countDown();
            assertArrayEquals(new byte[] {2}, blocking.get(20, TimeUnit.SECONDS));
            caller.join(10_000);
            assertArrayEquals(new byte[] {1}, f1.get(20, TimeUnit.SECONDS).toByteArray());
            assertEquals("blocking caller", f1Thread.get(20, TimeUnit.SECONDS), "the holder of the role completed f1");

            CompletableFuture<Response> f2 = c.callAsync(GroutApi.PING, MemorySegment.ofArray(new byte[] {3}));
            CompletableFuture<String> f2Thread = f2.thenApply(x -> Thread.currentThread().getName());
            blockingDone.countDown();
            assertArrayEquals(new byte[] {3}, f2.get(20, TimeUnit.SECONDS).toByteArray());
            assertEquals("sysframe-client(" + path + ")", f2Thread.get(20, TimeUnit.SECONDS));
            assertTrue(c.clientThreadId() > 0);
            ClientStats s = c.stats();
            assertEquals(1, s.batches(), "f1, queued behind the blocking caller: " + s);
            assertEquals(1, s.lastBatch(), s.toString());
            assertEquals(1, s.unmatched(), s.toString());
            assertEquals(0, s.inFlight(), s.toString());
            c.close();
            server.awaitScript();
        }
    }
}
