package org.sysframe.transport.shm;

import com.sun.management.ThreadMXBean;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.transport.Backend;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.Response;
import org.sysframe.transport.ServerOptions;
import org.sysframe.transport.WaitMode;
import org.sysframe.transport.internal.server.ServerLoop;
import org.sysframe.transport.internal.shm.ShmServer;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.KernelSyscallCounter.FutexCalls;
import org.sysframe.unix.Self;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.ThreadSyscall;
import org.sysframe.unix.uring.UringSupport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Syscalls per call over a shared-memory channel, client and the server's loop that serves it, each
 * library count checked against the kernel's count of the same thread, and the hot path's allocation.
 *
 * <p>futex: a JVM thread also enters futex for the JVM's own reasons (a method queued for the JIT wakes a
 * compiler thread, a stop at a safepoint), hundreds of times in a window on a loaded machine; those are
 * private futex calls, the channel's are on shared words, and the kernel counts only the shared ones here
 * ({@link KernelSyscallCounter.FutexCalls#SHARED}): every kind, futex too, is the library's count exactly.
 */
@NeedsKernelCounter
class SharedMemoryCountsTest {
    static final int CALLS = 1000;
    static final int PAYLOAD = 32;
    static final Set<SyscallKind> KINDS = kinds();

    static Set<SyscallKind> kinds() {
        EnumSet<SyscallKind> k = EnumSet.copyOf(SyscallKind.LIBRARY);
        k.add(SyscallKind.FUTEX);
        k.add(SyscallKind.WRITE); // the client's write to the channel's eventfd
        return k;
    }

    @TempDir Path dir;

    @BeforeAll
    static void kernelCountersOpenHere() {
        assertNull(KernelSyscallCounter.unavailableReason());
    }

    record Cost(SyscallCounts library, SyscallCounts kernel) {}

    /**
     * What a run cost, and the time its counts were taken over (windowNanos: from before the first samples to
     * after the last, so at least each side's counting window, which is longer than the calls themselves).
     */
    record Run(Cost client, Cost server, long windowNanos) {}

    Run run(WaitMode mode) throws Exception { return run(mode, Backend.EPOLL); }

    /** What a loop of backend waits in (and a spinning one looks at its sockets with). */
    static SyscallKind waitKind(Backend backend) {
        return backend == Backend.EPOLL ? SyscallKind.EPOLL_WAIT : SyscallKind.IO_URING_ENTER;
    }

    Run run(WaitMode mode, Backend backend) throws Exception {
        String path = dir.resolve("counts.sock").toString();
        // The loop blocks by itself, and waits as its channel asks while it serves one.
        try (GroutServer s = GroutServer.start(ServerOptions.defaults().socketPath(path).backend(backend)
                .sharedMemory(true).waitMode(WaitMode.BLOCK).sharedMemoryWaitMode(mode));
             GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL)
                     .sharedMemory(true).waitMode(mode));
             Arena a = Arena.ofConfined()) {
            assertTrue(c.sharedMemory());
            ServerLoop<?> channel = ShmServer.channels().getFirst();
            MemorySegment payload = a.allocate(PAYLOAD);
            for (int i = 0; i < PAYLOAD; i++) payload.set(JAVA_BYTE, i, (byte) (i * 7));
            // the loop serving the channel is up and warm
            for (int i = 0; i < 200; i++) c.call(GroutApi.PING, payload, 0, PAYLOAD);
            try (KernelSyscallCounter ck = KernelSyscallCounter.forThread(Self.tid(), KINDS, FutexCalls.SHARED);
                 KernelSyscallCounter sk = KernelSyscallCounter.forThread(channel.threadId(), KINDS,
                         FutexCalls.SHARED)) {
                long w0 = System.nanoTime();
                SyscallCounts cl0 = c.counters().snapshot(), ck0 = ck.read();
                SyscallCounts[] s0 = serverSample(channel, sk, mode, backend);
                SyscallCounts sl0 = s0[0], sk0 = s0[1];
                for (int i = 0; i < CALLS; i++) {
                    Response r = c.call(GroutApi.PING, payload, 0, PAYLOAD);
                    assertEquals(PAYLOAD, r.length());
                    assertEquals((byte) 217, r.getByte(31));
                }
                SyscallCounts cl1 = c.counters().snapshot(), ck1 = ck.read();
                // The loop wakes the client before it sleeps again: sampled once it does.
                SyscallCounts[] s1 = serverSample(channel, sk, mode, backend);
                long window = System.nanoTime() - w0;
                SyscallCounts sl1 = s1[0], sk1 = s1[1];
                SyscallKind look = waitKind(backend);
                // A spinning loop's looks at its sockets made while the kernel's count was read: the kernel's
                // count of the run lies between the library's counts of the shortest and the longest window,
                // give or take the one call that may be under way at each reading (entered: the kernel
                // counted it; not yet returned: the library did not), and is taken as the library's then.
                long kernelWaits = sk1.minus(sk0).get(look);
                long least = s1[0].minus(s0[2]).get(look) - 1;
                long most = s1[2].minus(s0[0]).get(look) + 1;
                assertTrue(kernelWaits >= least && kernelWaits <= most, "server " + look.kernelName()
                        + ": the kernel's " + kernelWaits + ", the library's " + least + " to " + most);
                long over = kernelWaits - sl1.minus(sl0).get(look);
                sk1 = over >= 0 ? sk1.minus(SyscallCounts.builder().count(look, over).build())
                        : sk1.plus(SyscallCounts.builder().count(look, -over).build());
                Run run = new Run(new Cost(cl1.minus(cl0), ck1.minus(ck0)), new Cost(sl1.minus(sl0), sk1.minus(sk0)),
                        window);
                System.out.printf("shared memory, %s, %s server, %d x %d B: client library %s kernel %s | server "
                        + "library %s kernel %s%n",
                        mode, backend, CALLS, PAYLOAD, run.client.library, run.client.kernel, run.server.library,
                                run.server.kernel);
                assertLibraryIsKernel("client", run.client);
                assertLibraryIsKernel("server", run.server); // a spinning loop's epoll_wait checked at each sample
                return run;
            }
        }
    }

    /** x86-64's epoll_wait and io_uring_enter syscall numbers, as /proc/TID/syscall shows them. */
    static final int NR_EPOLL_WAIT = 232;
    static final int NR_IO_URING_ENTER = 426;

    /**
     * The serving loop's library and kernel counts at one instant. One that sleeps is read while it is
     * parked in its wait (epoll_wait, io_uring_enter), its library count the same before and after the
     * kernel's read: the kernel counts a call when it is entered, the library when it returns, so at such
     * an instant the kernel has exactly one more at both ends of a run. Returns the library's count, the
     * kernel's, and the library's after the kernel's read (the same for one that sleeps).
     */
    static SyscallCounts[] serverSample(ServerLoop<?> channel, KernelSyscallCounter k, WaitMode mode, Backend backend)
            throws Exception {
        int tid = channel.threadId();
        int parkedIn = backend == Backend.EPOLL ? NR_EPOLL_WAIT : NR_IO_URING_ENTER;
        long until = System.nanoTime() + 30_000_000_000L;
        while (true) {
            if (!mode.blocks()) {
                // Read as it is: the library's count before and after the kernel's (which takes longer than
                // the 20 us between two of a spinning loop's epoll_wait(0)).
                SyscallCounts before = channel.counters().snapshot(), kernel = k.read();
                return new SyscallCounts[] {before, kernel, channel.counters().snapshot()};
            }
            if (ThreadSyscall.current(tid) == parkedIn) {
                SyscallCounts lib = channel.counters().snapshot(), kernel = k.read();
                if (ThreadSyscall.current(tid) == parkedIn && channel.counters().snapshot().equals(lib)) {
                    return new SyscallCounts[] {lib, kernel, lib};
                }
            }
            if (System.nanoTime() - until > 0) throw new AssertionError("the serving loop's thread " + tid
                    + " is not parked in its wait after 30 s");
            Thread.sleep(1);
        }
    }

    /** Every kind equal, futex too (the kernel's count of shared futex calls). */
    static void assertLibraryIsKernel(String side, Cost c) {
        assertEquals(c.library, c.kernel, side + ": library vs kernel");
    }

    @Test
    void spinningBothSidesCostsTheClientNoSyscallAndTheServerAnEpollWaitPer20Us() throws Exception {
        Run r = run(WaitMode.SPIN);
        // None per call. A spinning client looks at the socket once a single wait has lasted 50 ms (the
        // server's thread did not run: a loaded machine); on an idle one there is no such wait.
        long peeks = r.client.library.get(SyscallKind.RECVFROM);
        assertEquals(SyscallCounts.builder().recvfrom(peeks).build(), r.client.library);
        assertTrue(peeks <= r.windowNanos / 50_000_000L, peeks + " looks at the socket in "
                + r.windowNanos / 1_000_000 + " ms");
        // The loop serves the channel with no syscall, and looks at its sockets at most once per 20 us.
        long looks = r.server.library.get(SyscallKind.EPOLL_WAIT);
        assertEquals(SyscallCounts.builder().epollWait(looks).build(), r.server.library);
        assertTrue(looks <= r.windowNanos / 20_000 + 2, looks + " epoll_wait(0) in " + r.windowNanos / 1000 + " us");
    }

    @Test
    void blockingBothSidesCostsAtMostTwoSyscallsPerCallEachSide() throws Exception {
        Run r = run(WaitMode.BLOCK);
        // The client sleeps on a futex word, and wakes the server's loop with a write to the channel's eventfd.
        long futex = r.client.library.get(SyscallKind.FUTEX);
        long writes = r.client.library.get(SyscallKind.WRITE);
        // A futex sleep is cut in 20 ms slices; one that brought nothing (a loaded machine) is followed by
        // one look at the socket (recvfrom MSG_PEEK): one per slice at most, never per call.
        long peeks = r.client.library.get(SyscallKind.RECVFROM);
        assertEquals(futex + writes + peeks, r.client.library.total(), "futex, write and peeks: " + r.client.library);
        assertTrue(peeks <= r.windowNanos / 20_000_000L + 1, peeks + " peeks in " + r.windowNanos / 1_000_000
                + " ms");
        assertTrue(writes <= CALLS, "client eventfd writes: " + writes);
        assertTrue(futex + writes >= CALLS && futex + writes <= 2L * CALLS, "client futex and write calls: "
                + (futex + writes));
        // The loop sleeps in epoll_wait and wakes the client with a futex wake.
        long sleeps = r.server.library.get(SyscallKind.EPOLL_WAIT);
        long wakes = r.server.library.get(SyscallKind.FUTEX);
        assertEquals(sleeps + wakes, r.server.library.total(), "nothing but epoll_wait and futex: " + r.server.library);
        assertTrue(wakes <= CALLS, "server futex wakes: " + wakes);
        assertTrue(sleeps + wakes >= CALLS && sleeps + wakes <= 2L * CALLS + 5, "server calls: " + (sleeps + wakes));
    }

    @Test
    void onIoUringTheLoopSleepsInIoUringEnterAndWakesTheClientWithAFutexWake() throws Exception {
        assumeTrue(UringSupport.unavailableReason() == null, "io_uring unavailable");
        Run r = run(WaitMode.BLOCK, Backend.IO_URING);
        long enters = r.server.library.get(SyscallKind.IO_URING_ENTER);
        long wakes = r.server.library.get(SyscallKind.FUTEX);
        assertEquals(enters + wakes, r.server.library.total(), "nothing but io_uring_enter and futex: "
                + r.server.library);
        assertTrue(wakes <= CALLS, "server futex wakes: " + wakes);
        assertTrue(enters + wakes >= CALLS && enters + wakes <= 2L * CALLS + 5, "server calls: " + (enters + wakes));
        long writes = r.client.library.get(SyscallKind.WRITE);
        assertTrue(writes <= CALLS, "client eventfd writes: " + writes);
    }

    @Test
    void onIoUringASpinningLoopEntersTheKernelOnlyForItsSocketsAtMostEvery20Us() throws Exception {
        assumeTrue(UringSupport.unavailableReason() == null, "io_uring unavailable");
        Run r = run(WaitMode.SPIN, Backend.IO_URING);
        long peeks = r.client.library.get(SyscallKind.RECVFROM);
        assertEquals(SyscallCounts.builder().recvfrom(peeks).build(), r.client.library);
        long enters = r.server.library.get(SyscallKind.IO_URING_ENTER);
        assertEquals(SyscallCounts.builder().ioUringEnter(enters).build(), r.server.library);
        assertTrue(enters <= r.windowNanos / 20_000 + 2, enters + " io_uring_enter in " + r.windowNanos / 1000
                + " us");
    }

    @Test
    void aSpinningCallAllocatesNothing() throws Exception {
        String path = dir.resolve("alloc.sock").toString();
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (GroutServer s = GroutServer.start(ServerOptions.defaults().socketPath(path).backend(Backend.EPOLL)
                .sharedMemory(true).waitMode(WaitMode.SPIN));
             GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL)
                     .sharedMemory(true).waitMode(WaitMode.SPIN));
             Arena a = Arena.ofConfined()) {
            MemorySegment payload = a.allocate(1024);
            long bytes = -1;
            for (int attempt = 0; attempt < 20 && bytes != 0; attempt++) { // the first rounds run before the JIT
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 10_000; i++) c.call(GroutApi.PING, payload, 0, (i & 1) == 0 ? 32 : 1024);
                bytes = threads.getCurrentThreadAllocatedBytes() - before;
            }
            assertEquals(0, bytes, "bytes allocated by 10,000 calls over shared memory");
        }
    }
}
