package org.sysframe.bench.peer;

import org.sysframe.bench.measure.KernelCounters;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.measure.ThreadCpu;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.internal.server.ServerLoop;
import org.sysframe.transport.internal.shm.ShmServer;
import org.sysframe.unix.KernelSyscallCounter;
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
 * The server side of a shared-memory row: the channel's own thread (the one that serves the calls),
 * not the server's socket loop, which only watches the socket for its end. Its library counts, the
 * kernel's counts of the library's kinds and futex, its CPU and the CPU it was last on.
 *
 * <p>A channel thread that sleeps is sampled while it is parked in {@code futex}: the library counts
 * a futex call when it returns, the kernel when it is entered, so at such an instant the kernel has
 * exactly one more, at both ends of a run, and the difference is exact. One that spins makes no
 * syscall while no call is in flight: it is sampled as it is. Either way the kernel's futex count may
 * hold the JVM's own futex calls on that thread too (see {@link SyscallKind#FUTEX}). Its on-CPU time
 * comes from the thread's CPU clock ({@link ThreadClock}): a spinning thread's schedstat lags by up to
 * a scheduler tick, longer than a short round.
 */
public final class ChannelSide implements ServerSample.Source {
    /** The kinds the channel's thread is counted for: the library's and futex (its wait's own call). */
    static final Set<SyscallKind> KINDS;

    static {
        EnumSet<SyscallKind> k = EnumSet.copyOf(SyscallKind.LIBRARY);
        k.add(SyscallKind.FUTEX);
        KINDS = Collections.unmodifiableSet(k);
    }

    /** x86-64's futex syscall number, as /proc/TID/syscall shows it. */
    private static final int NR_FUTEX = 202;
    /** How long a sample waits for a sleeping channel thread to be parked in futex. */
    private static final long PARK_WAIT_NANOS = 10_000_000_000L;

    private final GroutServer server;

    /** The channel of server's one client (a server made for one shared-memory client). */
    public ChannelSide(GroutServer server) { this.server = server; }

    /** The channels' loops of this server now (the server's own config: the channels share it). */
    List<ServerLoop<?>> channels() {
        List<ServerLoop<?>> mine = new ArrayList<>();
        for (ServerLoop<?> l : ShmServer.channels()) if (l.config() == server.config()) mine.add(l);
        return mine;
    }

    /**
     * The Linux thread ids of this server's channels now (threads of this JVM that are the server's, not a client's).
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
        boolean sleeps = server.config().channelWaitMode().blocks();
        KernelSyscallCounter k = KernelCounters.of(tid, KINDS);
        long deadline = System.nanoTime() + PARK_WAIT_NANOS;
        while (true) {
            boolean parked = !sleeps || inFutex(tid);
            if (parked) {
                SyscallCounts lib = channel.counters().snapshot();
                SyscallCounts kernel = k == null ? null : k.read();
                // Still parked in the same call: no futex returned (and was counted) between the two readings.
                if (!sleeps || (inFutex(tid) && channel.counters().snapshot().equals(lib))) {
                    return new ServerSample(lib, kernel, cpu(tid), new TreeSet<>(List.of(ThreadCpu.lastCpu(tid))),
                            channel.counters().emptySnapshot(), null);
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("shared-memory channel thread " + tid + " not parked in futex after 10 s");
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

    private static boolean inFutex(int tid) throws IOException { return ThreadSyscall.current(tid) == NR_FUTEX; }
}
