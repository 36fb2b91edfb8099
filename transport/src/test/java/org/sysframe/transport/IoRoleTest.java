package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.LoopsIndependent;
import org.sysframe.transport.support.RawRequest;
import org.sysframe.transport.support.RawServer;
import org.sysframe.transport.support.TestClients;
import org.sysframe.transport.support.TestServers;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.KernelSyscallCounter.FutexCalls;
import org.sysframe.unix.Self;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The I/O role of a client (one thread at a time moves its bytes), on each backend and over the
 * shared-memory channel: a caller alone makes its sends and receives on its own thread, exactly one
 * sendto and one recvfrom per call with epoll, exactly one io_uring_enter with io_uring, by the
 * library's count and by the kernel's count of that thread (over the channel: nothing on the socket but
 * its looks, each the kernel's too), and no other thread of the client exists; a holder whose deadline
 * passes hands the role to the caller still waiting, which then sends its queued request and receives
 * its own answer; a future is completed by the blocking caller holding the role when its answer comes,
 * or else by the client's own thread.
 */
@EachBackend(alsoOverSharedMemory = true)
@NeedsKernelCounter
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@LoopsIndependent
class IoRoleTest {
    /** The library's kinds, a channel's eventfd writes and its futex calls (the shared ones: not the JVM's). */
    static final Set<SyscallKind> CALLER_KINDS = EnumSet.copyOf(SyscallKind.LIBRARY);

    static {
        CALLER_KINDS.add(SyscallKind.WRITE);
        CALLER_KINDS.add(SyscallKind.FUTEX);
    }

    @TempDir Path dir;

    /** Waits (bounded) until the client has n calls in flight. */
    private static void awaitInFlight(GroutClient c, int n) throws InterruptedException {
        long until = System.nanoTime() + 20_000_000_000L;
        while (c.stats().inFlight() != n) {
            if (System.nanoTime() - until > 0) throw new AssertionError("in flight " + c.stats().inFlight() + ", want "
                    + n);
            Thread.sleep(1);
        }
    }

    @Test
    void aCallerAloneMakesExactlyItsOwnSyscallsOnItsOwnThread(Backend backend) throws Exception {
        String path = dir.resolve("alone.sock").toString();
        try (GroutServer server = TestServers.startEpoll(ServerOptions.defaults().socketPath(path));
             GroutClient c = TestClients.connect(path);
             KernelSyscallCounter mine = KernelSyscallCounter.forThread(Self.tid(), CALLER_KINDS,
                     FutexCalls.SHARED);
             Arena a = Arena.ofConfined()) {
            assertEquals(backend, c.backend());
            MemorySegment req = a.allocate(32);
            for (int i = 0; i < 100; i++) c.call(GroutApi.PING, req, 0, 32);   // warm
            SyscallCounts lib0 = c.counters().snapshot(), k0 = mine.read();
            for (int i = 0; i < 1000; i++) c.call(GroutApi.PING, req, 0, 32);
            SyscallCounts lib = c.counters().snapshot().minus(lib0), kernel = mine.read().minus(k0);
            if (c.sharedMemory()) {
                // A call makes futex calls when it sleeps, writes to the channel's eventfd when the server's loop
                // sleeps, and looks at the socket (recvfrom) after a sleep that brought nothing: how many is the
                // scheduler's (SharedMemoryCountsTest bounds them). Exact:
                // nothing is sent on the socket, and the kernel saw this thread make every call the library
                // counted, futex too.
                long sends = lib.get(SyscallKind.SENDTO) + lib.get(SyscallKind.SENDMSG) + lib.get(SyscallKind.WRITEV);
                assertEquals(0, sends, "library: " + lib);
                assertEquals(lib, kernel, "kernel: the caller's own thread made every one");
            } else {
                SyscallCounts want = backend == Backend.EPOLL
                        ? SyscallCounts.builder().sendto(1000).recvfrom(1000).build()
                        : SyscallCounts.builder().ioUringEnter(1000).build();
                assertEquals(want, lib, "library");
                assertEquals(lib, kernel, "kernel: the caller's own thread made every one");
            }
            assertEquals(0, c.clientThreadId(), "no other thread of the client");
            ClientStats s = c.stats();
            assertEquals(0, s.batches(), "nothing queued: " + s);
            // Over the channel the hello was the socket's client's, which the channel's replaced.
            assertEquals(c.sharedMemory() ? 1100 : 1101, s.calls(), "the hello and every call: " + s);
        }
    }

    @Test
    void aHolderWhoseDeadlinePassesHandsTheRoleToTheCallerStillWaiting() throws Exception {
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
             GroutClient c = TestClients.connect(TestClients.options(path).receiveTimeoutMillis(3000))) {
            CompletableFuture<String> second = new CompletableFuture<>();
            ErrnoException e = assertThrows(ErrnoException.class, () -> {
                // The first caller (this thread) holds the role; the second waits behind it, started 1 s later.
                Thread.ofPlatform().start(() -> {
                    try {
                        Thread.sleep(1000);
                        second.complete(Arrays.toString(c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {2, 2}))
                                .toByteArray()));
                    } catch (Exception x) {
                        second.complete(x.getMessage());
                    }
                });
                c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {1}));
            });
            assertEquals("GR_PING: ETIMEDOUT (110) Connection timed out: no answer to request " + TestClients.firstId(c)
                    + " within the receive timeout of 3000 ms (the client stays usable; a late answer is dropped)",
                            e.getMessage());
            firstTimedOut.countDown();
            assertEquals("[2, 2]", second.get(20, TimeUnit.SECONDS),
                    "the second caller took the role and got its own answer");
            assertArrayEquals(new byte[] {3}, c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {3}))
                    .toByteArray());
            assertEquals(1, c.stats().late());
            assertEquals(0, c.stats().inFlight());
            assertEquals(0, c.listedCallers());
            c.close();
            server.awaitScript();
        }
    }

    @Test
    void aFutureIsCompletedByTheBlockingCallerHoldingTheRoleOrElseByTheClientsThread() throws Exception {
        String path = dir.resolve("futures.sock").toString();
        CountDownLatch f1Queued = new CountDownLatch(1), blockingDone = new CountDownLatch(1);
        try (RawServer server = new RawServer(path, conn -> {
                 RawRequest blocking = conn.readRequest();
                 assertTrue(f1Queued.await(20, TimeUnit.SECONDS));
                 // An answer nobody waits for: the holder's receive returns, and it sends the queued f1 before its next
                 // one.
                 conn.respond(999, 0, new byte[] {9});
                 RawRequest f1 = conn.readRequest();
                 conn.respond(f1.id(), 0, f1.payload());          // while the blocking caller receives: completed by it
                 conn.respond(blocking.id(), 0, blocking.payload());
                 RawRequest f2 = conn.readRequest();
                 assertTrue(blockingDone.await(20, TimeUnit.SECONDS));
                 // after the blocking caller went: the client's thread's
                 conn.respond(f2.id(), 0, f2.payload());
                 conn.awaitEof();
             });
             GroutClient c = TestClients.connect(path)) {
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
