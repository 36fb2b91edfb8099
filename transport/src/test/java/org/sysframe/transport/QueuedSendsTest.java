package org.sysframe.transport;

import org.sysframe.testsupport.WireBytes;
import org.sysframe.transport.support.BackendSuite;
import org.sysframe.transport.support.LoopsIndependent;
import org.sysframe.transport.support.RawRequest;
import org.sysframe.transport.support.RawServer;
import org.sysframe.transport.support.ThreadStates;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.Self;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.uring.UringCounts;
import org.sysframe.unix.uring.UringOp;
import org.sysframe.unix.uring.UringSupport;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Natural batching, counted exactly: 64 callers that find the I/O role taken (A, the first caller,
 * waits in its receive for an answer the server holds back) have their requests copied into the send
 * queue and park. When A's answer came and A left, the caller that takes the role sends all 64 in
 * exactly one send, then receives: the server answers them all in one write (after a barrier: all
 * 64 read), so that one caller receives every answer in one receive and hands the 63 others to their
 * callers, who make no syscall at all. Library == kernel, thread by thread. And a request too big for
 * the queue (over 64 KiB) waits for the role and is sent by its own caller.
 *
 * <p>While other callers wait, the holder's receive lasts at most a slice (20 ms) before it looks at the queue again
 * ({@code Driver.slice}). A server slower than that to read the 64 and answer (a busy machine) costs the holder
 * receives that end with nothing: then every count but that one is checked, and the 64 callers run again, up to
 * {@value #ATTEMPTS} times, until the holder's one receive is seen.
 */
@NeedsKernelCounter
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@LoopsIndependent
class QueuedSendsTest {
    private static final int CALLERS = 64;
    private static final int NR_RECVFROM = 45;
    private static final int NR_IO_URING_ENTER = 426;
    /** Runs of the 64 callers at most, until one in which the server answered within the holder's receive slice. */
    private static final int ATTEMPTS = 5;

    @TempDir Path dir;

    private static void await(BooleanSupplier what, String name) throws InterruptedException {
        long until = System.nanoTime() + 20_000_000_000L;
        while (!what.getAsBoolean()) {
            if (System.nanoTime() - until > 0) throw new AssertionError("never: " + name);
            Thread.sleep(1);
        }
    }

    /**
     * A platform thread making one GR_PING of len bytes named by me, the kernel's count of its syscalls taken around
     * the call.
     */
    private static CompletableFuture<SyscallCounts> call(GroutClient c, String name, int me, int len,
            CompletableFuture<Integer> tid, ConcurrentLinkedQueue<String> wrong) {
        CompletableFuture<SyscallCounts> kernel = new CompletableFuture<>();
        Thread.ofPlatform().name(name).start(() -> {
            try (KernelSyscallCounter k = KernelSyscallCounter.forCurrentThread(); Arena a = Arena.ofConfined()) {
                MemorySegment p = a.allocate(len);
                p.set(JAVA_INT_UNALIGNED, 0, me);
                tid.complete(Self.tid());
                SyscallCounts k0 = k.read();
                Response r = c.call(GroutApi.PING, p, 0, len);
                SyscallCounts mine = k.read().minus(k0);
                if (r.length() != len || r.buffer().get(JAVA_INT_UNALIGNED, r.offset()) != me) wrong.add(name + " got "
                        + r);
                kernel.complete(mine);
            } catch (Throwable e) {
                wrong.add(name + ": " + e);
                kernel.completeExceptionally(e);
            }
        });
        return kernel;
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"EPOLL", "IO_URING"})
    void sixtyFourCallersQueuedBehindTheHolderLeaveInExactlyOneSend(Backend backend) throws Exception {
        String why = BackendSuite.skipReason(backend, UringSupport.unavailableReason());
        Assumptions.assumeTrue(why == null, why);
        List<String> late = new ArrayList<>();
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            String slow = sixtyFourInOneSend(backend, dir.resolve("batching-" + attempt + ".sock").toString());
            if (slow == null) return;
            late.add(slow);
        }
        fail("in none of " + ATTEMPTS + " runs did the server answer within the holder's receive slice: " + late);
    }

    /**
     * One run of the 64 callers behind A. Whatever the timing: A sends once and receives once, the caller that takes
     * the role after A sends the 64 in one send, the 63 others make no syscall, library == kernel. The receives of the
     * one that sent are exactly one when the server's answer came within its receive slice (the library's own record
     * says whether a slice ended with nothing: an empty recv, or a cancelled io_uring RECV); null then, else what the
     * slices cost (the run is not the one the exact receive count is about).
     */
    private String sixtyFourInOneSend(Backend backend, String path) throws Exception {
        CountDownLatch queued = new CountDownLatch(1);
        try (RawServer server = new RawServer(path, conn -> {
                 RawRequest a = conn.readRequest();
                 assertTrue(queued.await(20, TimeUnit.SECONDS));
                 conn.respond(a.id(), 0, a.payload());
                 List<byte[]> answers = new ArrayList<>();
                 for (int i = 0; i < CALLERS; i++) {                 // the barrier: every request read
                     RawRequest r = conn.readRequest();
                     answers.addFirst(WireBytes.response(r.id(), 0, r.payload()));
                 }
                 conn.write(WireBytes.concat(answers.toArray(byte[][]::new))); // answered last first, in one write
                 conn.awaitEof();
             });
             GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(backend));
             KernelSyscallCounter mine = KernelSyscallCounter.forThread(Self.tid(),
                     EnumSet.of(SyscallKind.SCHED_YIELD))) {
            SyscallCounts lib0 = c.counters().snapshot(), mine0 = mine.read(), empty0 = c.counters().emptySnapshot();
            UringCounts uring0 = c.uringCounts();
            ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();

            CompletableFuture<Integer> aTid = new CompletableFuture<>();
            CompletableFuture<SyscallCounts> a = call(c, "caller A", -1, 32, aTid, wrong);
            // A holds the role
            ThreadStates.awaitBlockedIn(aTid.get(20, TimeUnit.SECONDS),
                    backend == Backend.EPOLL ? NR_RECVFROM : NR_IO_URING_ENTER);

            List<CompletableFuture<SyscallCounts>> others = new ArrayList<>();
            for (int i = 0; i < CALLERS; i++) others.add(call(c, "caller " + i, i, 4, new CompletableFuture<>(),
                    wrong));
            await(() -> c.stats().inFlight() == CALLERS + 1 && c.listedCallers() == CALLERS, "64 queued and parked");
            assertEquals(0, c.stats().batches(), "nothing sent for them yet: A waits in its receive");
            queued.countDown();

            // A caller that finds the client's lock taken (by another caller, or this test polling stats()) yields its
            // CPU: sched_yield, not I/O, as many as the scheduler makes. The I/O is compared thread by thread below;
            // the yields together: the kernel's count over the callers and this thread holds the library's, and may
            // hold the JVM's own (seen: its table of resolved methods yields on a caller's thread as a method handle is
            // resolved). That the library counts each of its yields is CallLockTest's, with no JVM work in the window.
            SyscallCounts ka = a.get(20, TimeUnit.SECONDS);
            long yields = ka.get(SyscallKind.SCHED_YIELD);
            ka = ka.without(SyscallKind.SCHED_YIELD);
            List<SyscallCounts> ks = new ArrayList<>();
            for (CompletableFuture<SyscallCounts> f : others) {
                SyscallCounts k = f.get(20, TimeUnit.SECONDS);
                yields += k.get(SyscallKind.SCHED_YIELD);
                ks.add(k.without(SyscallKind.SCHED_YIELD));
            }
            assertEquals(List.of(), List.copyOf(wrong));
            SyscallCounts all = c.counters().snapshot().minus(lib0);
            yields += mine.read().minus(mine0).get(SyscallKind.SCHED_YIELD);
            long libraryYields = all.get(SyscallKind.SCHED_YIELD);
            assertTrue(libraryYields <= yields, "sched_yield: library " + libraryYields + ", kernel (callers and this "
                    + "thread) " + yields);
            SyscallCounts lib = all.without(SyscallKind.SCHED_YIELD);
            SyscallCounts kernel = ks.stream().reduce(ka, SyscallCounts::plus);

            ClientStats s = c.stats();
            assertEquals(1, s.batches(), "the 64 together: " + s);
            assertEquals(CALLERS, s.lastBatch(), s.toString());
            assertEquals(CALLERS, s.largestBatch(), s.toString());
            assertEquals(0, s.inFlight(), s.toString());
            assertEquals(0, c.listedCallers());
            // A: its request and its answer; the one that took the role after A: the 64 requests in one send and
            // the 64 answers in one receive; the 63 others: nothing.
            SyscallCounts one = backend == Backend.EPOLL ? SyscallCounts.builder().sendto(1).recvfrom(1).build()
                    : SyscallCounts.builder().ioUringEnter(1).build();
            assertEquals(one, ka, "kernel: A's thread");
            assertEquals(CALLERS - 1, ks.stream().filter(SyscallCounts.ZERO::equals).count(),
                    "kernel: the 63 others made no syscall: " + ks);
            assertEquals(lib, kernel, "library == kernel over the calling threads");
            assertEquals(0, c.clientThreadId(), "no futures: the client has no thread of its own");
            // A slice that ended with nothing (the server took longer than the slice to read 64 and answer: a busy
            // machine): an empty recv, or a RECV cancelled, and what followed it.
            long emptyRecvs = c.counters().emptySnapshot().minus(empty0).get(SyscallKind.RECVFROM);
            long cancels = c.uringCounts().minus(uring0).sqes(UringOp.ASYNC_CANCEL);
            SyscallCounts sender = ks.stream().filter(k -> !k.equals(SyscallCounts.ZERO)).findFirst().orElseThrow();
            if (backend == Backend.EPOLL) {
                // The 64 in one send; every receive of the one that sent is empty but the one that brought the 64
                // answers (one write).
                assertEquals(SyscallCounts.builder().sendto(1).recvfrom(1 + emptyRecvs).build(), sender,
                        "kernel: the one that sent, " + emptyRecvs + " empty receives aside");
            }
            c.close();
            server.awaitScript();
            if (emptyRecvs > 0 || cancels > 0) return "receives the server did not answer in their slice: " + emptyRecvs
                    + " empty, " + cancels + " cancelled (the one that sent: " + sender + ")";
            assertEquals(one, sender, "kernel: one of the 64 sent and received for all: " + ks);
            assertEquals(backend == Backend.EPOLL ? SyscallCounts.builder().sendto(2).recvfrom(2).build()
                    : SyscallCounts.builder().ioUringEnter(2).build(), lib, "library");
            return null;
        }
    }

    @Test
    void aRequestTooBigForTheQueueIsSentByItsOwnCaller() throws Exception {
        int big = 100 * 1024;
        String path = dir.resolve("big.sock").toString();
        CountDownLatch waiting = new CountDownLatch(1);
        try (RawServer server = new RawServer(path, conn -> {
                 RawRequest a = conn.readRequest();
                 assertTrue(waiting.await(20, TimeUnit.SECONDS));
                 conn.respond(a.id(), 0, a.payload());
                 for (int i = 0; i < 4; i++) {
                     RawRequest r = conn.readRequest();
                     conn.respond(r.id(), 0, r.payload());
                 }
                 conn.awaitEof();
             });
             GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL))) {
            ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
            CompletableFuture<Integer> aTid = new CompletableFuture<>();
            CompletableFuture<SyscallCounts> a = call(c, "caller A", -1, 32, aTid, wrong);
            ThreadStates.awaitBlockedIn(aTid.get(20, TimeUnit.SECONDS), NR_RECVFROM);
            CompletableFuture<SyscallCounts> b = call(c, "big caller", 7, big, new CompletableFuture<>(), wrong);
            List<CompletableFuture<SyscallCounts>> small = new ArrayList<>();
            for (int i = 0; i < 3; i++) small.add(call(c, "small caller " + i, i, 4, new CompletableFuture<>(), wrong));
            await(() -> c.stats().inFlight() == 5 && c.listedCallers() == 4, "4 parked");
            waiting.countDown();
            a.get(20, TimeUnit.SECONDS);
            SyscallCounts kb = b.get(20, TimeUnit.SECONDS);
            for (CompletableFuture<SyscallCounts> f : small) f.get(20, TimeUnit.SECONDS);
            assertEquals(List.of(), List.copyOf(wrong));
            assertEquals(1, kb.get(SyscallKind.SENDMSG),
                    "kernel: the big request left from its own caller's thread (header and payload gathered): " + kb);
            ClientStats s = c.stats();
            assertEquals(1, s.batches(), "the 3 small ones, queued behind A, in one send (the big one is no batch): "
                    + s);
            assertEquals(3, s.lastBatch(), s.toString());
            assertEquals(0, s.inFlight(), s.toString());
            c.close();
            server.awaitScript();
        }
    }
}
