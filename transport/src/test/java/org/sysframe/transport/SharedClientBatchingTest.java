package org.sysframe.transport;

import org.sysframe.transport.support.RawRequest;
import org.sysframe.transport.support.RawServer;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.ThreadSyscall;
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
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Natural batching, counted exactly: 64 callers queue their requests while a send is under way (a
 * 128 KiB request the server does not read yet holds the socket full), and the server answers only
 * after a barrier (all 66 requests read). The 64 leave in exactly one batch and one send, after the
 * rest of the big request: library == kernel for every sending thread and for the receiving one.
 * Leader/follower receive: A, the first caller to wait, takes the receiving role and keeps it until
 * its own answer, which the server sends last: A's thread makes every recv of the run, and hands
 * the 65 other answers to their callers (B's thread makes none).
 */
@NeedsKernelCounter
class SharedClientBatchingTest {
    private static final int CALLERS = 64;
    private static final int NR_RECVFROM = 45;

    @TempDir Path dir;

    private static void awaitInRecv(int tid) throws Exception {
        long until = System.nanoTime() + 10_000_000_000L;
        while (ThreadSyscall.current(tid) != NR_RECVFROM) {
            if (System.nanoTime() - until > 0) throw new AssertionError("the receiving thread is not parked in recvfrom");
            Thread.sleep(1);
        }
    }

    private static void await(java.util.function.BooleanSupplier what, String name) throws InterruptedException {
        long until = System.nanoTime() + 20_000_000_000L;
        while (!what.getAsBoolean()) {
            if (System.nanoTime() - until > 0) throw new AssertionError("never: " + name);
            Thread.sleep(1);
        }
    }

    /** A platform thread making one big GR_PING, its kernel counts taken around it; tid: its Linux thread id. */
    private static CompletableFuture<SyscallCounts> bigCall(SharedGroutClient c, String name, CompletableFuture<Integer> tid) {
        CompletableFuture<SyscallCounts> kernel = new CompletableFuture<>();
        Thread.ofPlatform().name(name).start(() -> {
            try (KernelSyscallCounter k = KernelSyscallCounter.forCurrentThread(); Arena a = Arena.ofConfined()) {
                tid.complete(org.sysframe.unix.Self.tid());
                MemorySegment big = a.allocate(GroutApi.MAX_MSG_LEN), out = a.allocate(GroutApi.MAX_MSG_LEN);
                SyscallCounts k0 = k.read();
                c.call(GroutApi.PING, big, 0, big.byteSize(), out);
                kernel.complete(k.read().minus(k0));
            } catch (Throwable e) {
                kernel.completeExceptionally(e);
            }
        });
        return kernel;
    }

    @Test
    void sixtyFourCallersQueuedDuringASendLeaveInExactlyOneSend() throws Exception {
        String path = dir.resolve("batching.sock").toString();
        CountDownLatch read = new CountDownLatch(1);
        try (RawServer server = new RawServer(path, conn -> {
                 assertTrue(read.await(20, TimeUnit.SECONDS));
                 List<RawRequest> all = new ArrayList<>();
                 for (int i = 0; i < CALLERS + 2; i++) all.add(conn.readRequest());          // the barrier: every request read
                 for (int i = all.size() - 1; i >= 0; i--) conn.respond(all.get(i).id(), 0, all.get(i).payload()); // answered last first
                 conn.awaitEof();
             });
             SharedGroutClient c = SharedGroutClient.connect(path)) {
            SyscallCounts sends0 = c.sendCounters().snapshot(), recvs0 = c.receiveCounters().snapshot();

            CompletableFuture<Integer> aTid = new CompletableFuture<>();
            CompletableFuture<SyscallCounts> a = bigCall(c, "big call A", aTid); // fits in the socket buffer: one send
            await(() -> c.stats().batches() == 2 && c.sendCounters().get(SyscallKind.SENDTO) == 2, "A sent");
            awaitInRecv(aTid.get(20, TimeUnit.SECONDS));                           // A took the receiving role
            CompletableFuture<SyscallCounts> b = bigCall(c, "big call B", new CompletableFuture<>()); // fills it: a part, EAGAIN, the sender parks
            await(() -> c.sendCounters().emptySnapshot().get(SyscallKind.SENDTO) == 1, "B blocked");

            ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
            List<Thread> callers = new ArrayList<>();
            for (int i = 0; i < CALLERS; i++) {
                int me = i;
                callers.add(Thread.ofVirtual().start(() -> {
                    try (Arena ar = Arena.ofConfined()) {
                        MemorySegment p = ar.allocate(4), out = ar.allocate(4);
                        p.set(JAVA_INT_UNALIGNED, 0, me);
                        c.call(GroutApi.PING, p, 0, 4, out);
                        if (out.get(JAVA_INT_UNALIGNED, 0) != me) wrong.add(me + " got " + out.get(JAVA_INT_UNALIGNED, 0));
                    } catch (Exception e) {
                        wrong.add(me + ": " + e);
                    }
                }));
            }
            await(() -> c.inFlight() == CALLERS + 2, "64 queued");
            assertEquals(3, c.stats().batches(), "the 64 wait behind B's send");
            read.countDown();
            for (Thread t : callers) t.join(20_000);
            SyscallCounts ka = a.get(20, TimeUnit.SECONDS), kb = b.get(20, TimeUnit.SECONDS);
            assertEquals(List.of(), List.copyOf(wrong));
            SyscallCounts sends = c.sendCounters().snapshot().minus(sends0);
            SyscallCounts recvs = c.receiveCounters().snapshot().minus(recvs0);

            SharedClientStats s = c.stats();
            assertEquals(4, s.batches(), "hello, A, B, then the 64 together: " + s);
            assertEquals(CALLERS, s.lastBatch());
            assertEquals(CALLERS, s.largestBatch());
            // A: 1 send; B: its part, the EAGAIN, its rest; the 64: exactly one.
            assertEquals(SyscallCounts.builder().sendto(5).build(), sends, "library sends");
            assertEquals(1, ka.get(SyscallKind.SENDTO), "kernel: A's thread");
            assertEquals(4, kb.get(SyscallKind.SENDTO), "kernel: B's thread, which sent the 64 too");
            assertTrue(recvs.get(SyscallKind.RECVFROM) > 0, "library recvs " + recvs);
            assertEquals(recvs.get(SyscallKind.RECVFROM), ka.get(SyscallKind.RECVFROM), "A's thread received everything: library vs kernel");
            assertEquals(0, kb.get(SyscallKind.RECVFROM), "kernel: B's thread received nothing (A handed it its answer)");
            assertEquals(0, c.readerThreadId(), "no standby receiver: no futures");
            assertEquals(0, s.inFlight());
            c.close();
            server.awaitScript();
        }
    }
}
