package org.sysframe.transport;

import org.sysframe.transport.support.RawRequest;
import org.sysframe.transport.support.RawServer;
import org.sysframe.transport.support.TestServers;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.SyscallCounts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
 * The receiving role of the shared client (leader/follower): a caller alone makes its sends and
 * receives on its own thread, exactly one sendto and one recvfrom per call by the kernel's count of
 * that thread; a receiver whose deadline passes hands the role to the caller still waiting, which
 * then receives its own answer; a future waiting while a blocking caller receives is completed by
 * that caller, and one left waiting after it went is received by the standby thread.
 */
@NeedsKernelCounter
class SharedClientReceiveRoleTest {
    @TempDir Path dir;

    @Test
    void aCallerAloneSendsAndReceivesOnItsOwnThreadExactlyOnceEachPerCall() throws Exception {
        String path = dir.resolve("alone.sock").toString();
        try (GroutServer server = TestServers.start(ServerOptions.defaults().socketPath(path));
             SharedGroutClient c = SharedGroutClient.connect(path);
             KernelSyscallCounter mine = KernelSyscallCounter.forCurrentThread();
             Arena a = Arena.ofConfined()) {
            MemorySegment req = a.allocate(32), out = a.allocate(32);
            for (int i = 0; i < 100; i++) c.call(GroutApi.PING, req, 0, 32, out);   // warm
            SyscallCounts lib0 = c.counts(), k0 = mine.read();
            for (int i = 0; i < 1000; i++) c.call(GroutApi.PING, req, 0, 32, out);
            SyscallCounts lib = c.counts().minus(lib0), kernel = mine.read().minus(k0);
            assertEquals(SyscallCounts.builder().sendto(1000).recvfrom(1000).build(), lib, "library");
            assertEquals(lib, kernel, "kernel: the caller's own thread made every one");
            assertEquals(0, c.readerThreadId(), "no other thread of the client");
        }
    }

    @Test
    void aReceiverWhoseDeadlinePassesHandsTheRoleToTheCallerStillWaiting() throws Exception {
        String path = dir.resolve("handover.sock").toString();
        CountDownLatch firstTimedOut = new CountDownLatch(1);
        try (RawServer server = new RawServer(path, conn -> {
                 RawRequest first = conn.readRequest();    // never answered in time
                 RawRequest second = conn.readRequest();
                 assertTrue(firstTimedOut.await(20, TimeUnit.SECONDS));
                 conn.respond(second.id(), 0, second.payload());
                 conn.respond(first.id(), 0, first.payload()); // late: dropped
                 RawRequest third = conn.readRequest();
                 conn.respond(third.id(), 0, third.payload());
                 conn.awaitEof();
             });
             SharedGroutClient c = SharedGroutClient.connect(ClientOptions.defaults().socketPath(path).receiveTimeoutMillis(3000))) {
            CompletableFuture<String> second = new CompletableFuture<>();
            ErrnoException e = assertThrows(ErrnoException.class, () -> {
                // The first caller (this thread) is the receiver; the second waits behind it, started 1 s later.
                Thread.ofPlatform().start(() -> {
                    try {
                        Thread.sleep(1000);
                        second.complete(java.util.Arrays.toString(c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {2, 2}))));
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
            assertArrayEquals(new byte[] {3}, c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {3})));
            assertEquals(1, c.stats().late());
            assertEquals(0, c.stats().inFlight());
            c.close();
            server.awaitScript();
        }
    }

    @Test
    void aFutureIsCompletedByTheBlockingReceiverOrElseByTheStandby() throws Exception {
        String path = dir.resolve("futures.sock").toString();
        CountDownLatch blockingDone = new CountDownLatch(1);
        try (RawServer server = new RawServer(path, conn -> {
                 RawRequest f1 = conn.readRequest();
                 RawRequest blocking = conn.readRequest();
                 conn.respond(f1.id(), 0, f1.payload());
                 conn.respond(blocking.id(), 0, blocking.payload());
                 RawRequest f2 = conn.readRequest();
                 assertTrue(blockingDone.await(20, TimeUnit.SECONDS));
                 conn.respond(f2.id(), 0, f2.payload());         // after the blocking caller went: the standby's
                 conn.awaitEof();
             });
             SharedGroutClient c = SharedGroutClient.connect(path)) {
            CompletableFuture<byte[]> f1 = c.callAsync(GroutApi.PING, MemorySegment.ofArray(new byte[] {1}), 0, 1);
            assertArrayEquals(new byte[] {2}, c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {2})));
            CompletableFuture<byte[]> f2 = c.callAsync(GroutApi.PING, MemorySegment.ofArray(new byte[] {3}), 0, 1);
            CompletableFuture<String> f2Thread = f2.thenApply(x -> Thread.currentThread().getName());
            blockingDone.countDown();
            assertArrayEquals(new byte[] {1}, f1.get(20, TimeUnit.SECONDS));
            assertArrayEquals(new byte[] {3}, f2.get(20, TimeUnit.SECONDS));
            assertEquals("sysframe-shared-reader(" + path + ")", f2Thread.get(20, TimeUnit.SECONDS));
            assertTrue(c.readerThreadId() > 0);
            c.close();
            server.awaitScript();
        }
    }
}
