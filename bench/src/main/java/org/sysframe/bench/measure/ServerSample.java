package org.sysframe.bench.measure;

import org.sysframe.transport.Backend;
import org.sysframe.transport.GroutServer;
import org.sysframe.unix.uring.UringCounts;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.KernelSyscallCounter.FutexCalls;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.ThreadSyscall;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The server side at one instant, summed over every event loop: library counts, the kernel's counts
 * (null when a loop's counter cannot be opened), CPU and, on io_uring, SQEs by opcode and CQEs, with the
 * CPUs the loops were last on. An in-process server is sampled only while every loop is parked in
 * epoll_wait or io_uring_enter, where the two counts
 * agree (see {@link ThreadSyscall}); subtract two samples to get what the loops spent in between.
 */
public record ServerSample(SyscallCounts library, SyscallCounts kernel, ThreadCpu cpu, SortedSet<Integer> cpus,
        SyscallCounts empty, UringCounts uring) {

    ServerSample(SyscallCounts library, SyscallCounts kernel, ThreadCpu cpu, SortedSet<Integer> cpus) {
        this(library, kernel, cpu, cpus, null, null);
    }

    /**
     * Every loop of an in-process server: waits until each is parked in epoll_wait, then reads it. A
     * loop that never sleeps (spin, yield) has no such instant: its library counts are read as they
     * are and its kernel counts are left out (the calls in flight at either end would differ).
     */
    static ServerSample take(GroutServer server) throws IOException {
        int n = server.loopCount();
        boolean parks = server.config().waitMode().blocks();
        if (parks) for (int i = 0; i < n; i++) ThreadSyscall.awaitParked(server.loopThreadId(i),
                Duration.ofSeconds(10));
        List<ServerSample> loops = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int tid = server.loopThreadId(i);
            KernelSyscallCounter k = parks ? KernelCounters.of(tid, SyscallKind.LIBRARY, FutexCalls.ALL) : null;
            loops.add(new ServerSample(server.loopCounters(i).snapshot(), k == null ? null : k.read(),
                    ThreadCpu.of(tid),
                    new TreeSet<>(List.of(ThreadCpu.lastCpu(tid))), server.loopCounters(i).emptySnapshot(),
                    server.backend() == Backend.IO_URING ? server.loopUringCounts(i) : null));
        }
        return sum(loops);
    }

    /**
     * Every thread of a server in another process: CPU, and the CPUs of its loop threads (its counts are out of reach).
     */
    static ServerSample ofProcess(long pid) {
        return new ServerSample(null, null, ThreadCpu.ofProcess(pid), ThreadCpu.loopCpus(pid));
    }

    /** The loops together: counts and CPU added; kernel counts only when every loop has them. */
    static ServerSample sum(List<ServerSample> loops) {
        SyscallCounts library = SyscallCounts.ZERO, kernel = SyscallCounts.ZERO, empty = SyscallCounts.ZERO;
        ThreadCpu cpu = new ThreadCpu(0, 0, 0, 0, 0);
        SortedSet<Integer> cpus = new TreeSet<>();
        UringCounts uring = UringCounts.ZERO;
        for (ServerSample s : loops) {
            uring = uring == null || s.uring == null ? null : uring.plus(s.uring);
            library = library == null || s.library == null ? null : library.plus(s.library);
            empty = empty == null || s.empty == null ? null : empty.plus(s.empty);
            kernel = kernel == null || s.kernel == null ? null : kernel.plus(s.kernel);
            cpu = cpu.plus(s.cpu);
            cpus.addAll(s.cpus);
        }
        return new ServerSample(library, kernel, cpu, cpus, empty, loops.isEmpty() ? null : uring);
    }

    public ServerSample minus(ServerSample earlier) {
        SortedSet<Integer> seen = new TreeSet<>(cpus);
        seen.addAll(earlier.cpus);
        return new ServerSample(library == null || earlier.library == null ? null : library.minus(earlier.library),
                kernel == null || earlier.kernel == null ? null : kernel.minus(earlier.kernel), cpu.minus(earlier.cpu),
                seen, empty == null || earlier.empty == null ? null : empty.minus(earlier.empty),
                uring == null || earlier.uring == null ? null : uring.minus(earlier.uring));
    }

    /** How a probe reaches the server side of its measurements. */
    @FunctionalInterface
    public interface Source {
        /** A sample now; null when the server is out of reach. */
        ServerSample sample() throws IOException;

        static Source of(GroutServer server) { return () -> take(server); }

        static Source ofProcess(long pid) { return () -> ServerSample.ofProcess(pid); }

        Source NONE = () -> null;

        /**
         * Why the server is out of reach, for the CPU line ({@code server cpu unknown (WHY)}); null when it is not, or
         * unsaid.
         */
        default String unknown() { return null; }

        /** No server side, for the reason given (e.g. {@code the server runs in this process ...}). */
        static Source unknown(String why) {
            return new Source() {
                @Override public ServerSample sample() { return null; }
                @Override public String unknown() { return why; }
            };
        }
    }
}
