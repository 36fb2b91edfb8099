package org.sysframe.bench.peer;

import org.sysframe.bench.measure.KernelCounters;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.measure.ThreadCpu;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.internal.server.LoopChannels;
import org.sysframe.transport.internal.server.ServerLoop;
import org.sysframe.transport.internal.shm.ShmServer;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.KernelSyscallCounter.FutexCalls;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.ThreadSyscall;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The server side of a shared-memory row: the loop that serves the channel (the loop of the socket
 * connection that opened it). Its library counts, the kernel's counts of the library's kinds and
 * futex, its CPU and the CPU it was last on.
 *
 * <p>A loop that sleeps is sampled while it is parked in {@code epoll_wait}: the library counts a call
 * when it returns, the kernel when it is entered, so at such an instant the kernel has exactly one
 * more, at both ends of a run, and the difference is exact. One that spins looks at its sockets with
 * an epoll_wait(0) every 20 us, also while its kernel counts would be read: it has no such instant,
 * and its kernel counts are left out, as {@link ServerSample} does for a spinning loop. The kernel
 * counts its shared futex calls only ({@link FutexCalls#SHARED}), the library's; the JVM's own on that
 * thread are private ones.
 * Its on-CPU time comes from the thread's CPU clock ({@link ThreadClock}): a spinning thread's
 * schedstat lags by up to a scheduler tick, longer than a short round.
 */
public final class ChannelSide implements ServerSample.Source {
    /** The kinds the loop serving a channel is counted for: the library's and futex (its wake-ups of the client). */
    static final Set<SyscallKind> KINDS;

    static {
        EnumSet<SyscallKind> k = EnumSet.copyOf(SyscallKind.LIBRARY);
        k.add(SyscallKind.FUTEX);
        KINDS = Collections.unmodifiableSet(k);
    }

    /** x86-64's epoll_wait syscall number, as /proc/TID/syscall shows it. */
    private static final int NR_EPOLL_WAIT = 232;
    /** How long a sample waits for a sleeping loop to be parked in epoll_wait. */
    private static final long PARK_WAIT_NANOS = 10_000_000_000L;

    private final GroutServer server;

    /** The channel of server's one client (a server made for one shared-memory client). */
    public ChannelSide(GroutServer server) { this.server = server; }

    /** The loops serving this server's channels now, one entry per channel (the server's own config). */
    List<ServerLoop<?>> channels() {
        List<ServerLoop<?>> mine = new ArrayList<>();
        for (ServerLoop<?> l : ShmServer.channels()) if (l.config() == server.config()) mine.add(l);
        return mine;
    }

    /**
     * The Linux thread ids of the loops serving this server's channels now (threads of this JVM that are
     * the server's, not a client's).
     */
    public Set<Integer> threadIds() {
        Set<Integer> out = new TreeSet<>();
        for (ServerLoop<?> l : channels()) out.add(l.threadId());
        return out;
    }

    @Override
    public ServerSample sample() throws IOException {
        List<ServerLoop<?>> mine = channels();
        if (mine.size() != 1) {
            throw new IOException("expected the one shared-memory channel of the server on "
                    + server.config().socketPath() + ", found " + mine.size());
        }
        ServerLoop<?> channel = mine.getFirst();
        int tid = channel.threadId();
        boolean sleeps = LoopChannels.eager(server.config().waitMode(), server.config().channelWaitMode()).blocks();
        KernelSyscallCounter k = sleeps ? KernelCounters.of(tid, KINDS, FutexCalls.SHARED) : null;
        long deadline = System.nanoTime() + PARK_WAIT_NANOS;
        while (true) {
            boolean parked = !sleeps || inEpollWait(tid);
            if (parked) {
                SyscallCounts lib = channel.counters().snapshot();
                SyscallCounts kernel = k == null ? null : k.read();
                // Still parked in the same call: no futex returned (and was counted) between the two readings.
                if (!sleeps || (inEpollWait(tid) && channel.counters().snapshot().equals(lib))) {
                    return new ServerSample(lib, kernel, cpu(tid), new TreeSet<>(List.of(ThreadCpu.lastCpu(tid))),
                            channel.counters().emptySnapshot(), null);
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("the loop " + tid + " serving a shared-memory channel is not parked in "
                        + "epoll_wait after 10 s");
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
    }

    /**
     * The thread's CPU as {@link ThreadCpu#of} reads it, its on-CPU time from its clock (exact even while it spins).
     */
    static ThreadCpu cpu(int tid) {
        ThreadCpu t = ThreadCpu.of(tid);
        return new ThreadCpu(ThreadClock.cpuNanos(tid), t.userMicros(), t.systemMicros(), t.voluntarySwitches(),
                t.involuntarySwitches());
    }

    private static boolean inEpollWait(int tid) throws IOException {
        return ThreadSyscall.current(tid) == NR_EPOLL_WAIT;
    }
}
