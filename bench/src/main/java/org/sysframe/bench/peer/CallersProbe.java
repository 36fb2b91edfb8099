package org.sysframe.bench.peer;

import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.KernelCounters;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.measure.ThreadCpu;
import org.sysframe.transport.GroutClient;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.KernelSyscallCounter.FutexCalls;
import org.sysframe.unix.Self;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.ThreadSyscall;
import org.sysframe.unix.uring.UringCounts;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Measures N callers at once, platform or virtual threads, each calling one at a time through its own
 * {@link PingPeer} (made and opened on its thread: a peer's client may stay on it), which may all
 * call one client ({@link OneClientPeer}: one {@code GroutClient} for every caller). Calls are split
 * evenly; the figures are their merged latency histogram, the wall time from the first start to the
 * last finish, and the client side's syscalls and CPU: library counts from {@link Counts} (the one
 * client's, whichever caller made them) or else the peers' sum, plus the JVM poller's epoll_wait
 * calls. CPU is summed over every thread of this JVM but the ones named not to be the client (an
 * in-process server's loops). Kernel counts of the library's kinds are summed over the
 * threads that can make the library's calls: the platform callers, the virtual-thread carriers
 * ({@code ForkJoinPool-*}), the JVM's poller and the client's own thread
 * ({@code sysframe-client(<socket>)}; a virtual caller runs on whichever carrier; one client's sends
 * and receives are made by whichever caller does its I/O, its own thread and the poller), so that a
 * JIT compiler thread starting mid-round does not void the count; kernel counts of every kind (JDK
 * channels) over every client thread. Kernel counts are given only when the same counted threads
 * lived at both samples (else null: a thread that appeared in between was not counted from the start).
 */
public final class CallersProbe implements Cell.Probe, AutoCloseable {
    /** Makes and opens caller i's peer, on that caller's thread. */
    @FunctionalInterface
    public interface PeerFactory {
        PingPeer open(int caller) throws IOException;
    }

    /** The library's counts of the one client every caller calls, cumulative (null: none kept). */
    public interface Counts {
        SyscallCounts library();

        SyscallCounts empty();

        /** With the io_uring backend, the client's SQEs by opcode and CQEs (null: not io_uring). */
        default UringCounts uring() { return null; }
    }

    private final List<Caller> callers = new ArrayList<>();
    private final boolean virtual;
    private final Counts counts;
    private final ServerSample.Source server;
    private final Supplier<Set<Integer>> notClient;
    private Set<SyscallKind> kinds = SyscallKind.LIBRARY;
    private volatile String kernelVoid; // why the last measurement has no kernel counts though counters work

    /** How {@link #kernelVoid} begins; the threads that started follow, with their names. */
    public static final String KERNEL_VOID = "not this run: a thread that makes the client's calls started during it, "
            + "not counted from its start";

    /**
     * n callers (virtual threads when virtual), each opening its peer with factory now; counts: the
     * one client's (null: the peers' own); notClient: the tids of this JVM that are not the client.
     */
    public CallersProbe(int n, boolean virtual, PeerFactory factory, Counts counts, ServerSample.Source server,
                        Supplier<Set<Integer>> notClient) throws IOException {
        if (n < 1) throw new IllegalArgumentException("no callers");
        this.virtual = virtual;
        this.counts = counts;
        this.server = server;
        this.notClient = notClient;
        try {
            for (int i = 0; i < n; i++) callers.add(new Caller(i, factory));
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    public int callers() { return callers.size(); }

    /**
     * The library's kinds, futex and write: what a client over a shared-memory channel waits with
     * (futex) and wakes the server's loop with (a write to the channel's eventfd). Counted over the
     * same threads as the library's kinds alone, futex as the shared calls only ({@link FutexCalls#SHARED}):
     * the JVM's own on those threads (parking carriers, callers waiting their turn) are private ones.
     */
    public static final Set<SyscallKind> SHARED_MEMORY;

    /**
     * The library's kinds, read and write: what a client over sockets makes, its eventfd's calls
     * included (a caller's write wakes the client's own thread, whose read takes the wake-up).
     */
    public static final Set<SyscallKind> SOCKETS;

    static {
        EnumSet<SyscallKind> k = EnumSet.copyOf(SyscallKind.LIBRARY);
        k.add(SyscallKind.FUTEX);
        k.add(SyscallKind.WRITE);
        SHARED_MEMORY = Collections.unmodifiableSet(k);
        EnumSet<SyscallKind> s = EnumSet.copyOf(SyscallKind.LIBRARY);
        s.add(SyscallKind.READ);
        s.add(SyscallKind.WRITE);
        SOCKETS = Collections.unmodifiableSet(s);
    }

    /**
     * The kinds the kernel counts on the JVM's threads: the library's (default), a shared-memory
     * client's ({@link #SHARED_MEMORY}, on the same threads), or every kind for peers that use read
     * and write (JDK channels, counted on every client thread; class loading on a JVM thread then
     * counts too).
     */
    public CallersProbe kernelKinds(Set<SyscallKind> kinds) {
        this.kinds = Set.copyOf(kinds);
        return this;
    }

    public boolean virtual() { return virtual; }

    /**
     * Why the last measurement has no kernel counts although the counters work (a thread that makes the client's
     * calls started between its two samples, and was not counted from the start), or null.
     */
    public String kernelVoid() { return kernelVoid; }

    /** One caller: its thread, running the tasks it is given one after the other, and its peer. */
    private final class Caller {
        final LinkedBlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
        final Thread thread;
        volatile int tid;            // a platform caller's Linux thread id (0: virtual, or not started yet)
        volatile PingPeer peer;
        volatile boolean running = true;

        Caller(int i, PeerFactory factory) throws IOException {
            Runnable loop = () -> {
                if (!virtual) tid = Self.tid();
                while (running) {
                    try {
                        tasks.take().run();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            };
            thread = virtual ? Thread.ofVirtual().name("caller " + i).start(loop)
                    : Thread.ofPlatform().daemon().name("caller " + i).start(loop);
            CompletableFuture<Void> opened = new CompletableFuture<>();
            tasks.add(() -> {
                try {
                    peer = factory.open(i);
                    opened.complete(null);
                } catch (Throwable t) {
                    opened.completeExceptionally(t);
                }
            });
            PeerThread.await(opened, 60_000);
        }

        void close() {
            PingPeer p = peer;
            if (p != null) {
                CompletableFuture<Void> closed = new CompletableFuture<>();
                tasks.add(() -> {
                    try {
                        p.close();
                    } catch (Throwable t) {
                        // closing anyway
                    }
                    closed.complete(null);
                });
                try {
                    closed.get(PeerThread.CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
                } catch (Exception e) {
                    // the peer did not close in time: the thread is stopped below
                }
            }
            running = false;
            thread.interrupt();
        }
    }

    /** One caller's share of a measured run. */
    private static final class Run {
        final CountDownLatch ready = new CountDownLatch(1);
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final Histogram latency = new Histogram(10_000_000_000L, 3);
        volatile long startNanos, endNanos;
    }

    @Override
    public Measurement measure(Cell cell, long calls, int round) throws IOException {
        if (virtual) SchedulerThreads.spread(); // a carrier started by a pinned thread is pinned with it
        int k = callers.size();
        CountDownLatch go = new CountDownLatch(1);
        List<Run> runs = new ArrayList<>(k);
        try {
            for (int i = 0; i < k; i++) {
                Caller c = callers.get(i);
                long n = ClientThreadsProbe.share(calls, k, i);
                Run run = new Run();
                runs.add(run);
                c.tasks.add(() -> {
                    try {
                        c.peer.prepare(cell.payload());
                        run.ready.countDown();
                        go.await();
                        run.startNanos = System.nanoTime();
                        if (n > 0) c.peer.pingMany(n, run.latency);
                        run.endNanos = System.nanoTime();
                        run.done.complete(null);
                    } catch (Throwable e) {
                        run.done.completeExceptionally(e);
                        run.ready.countDown();
                    }
                });
            }
            for (Run r : runs) {
                try {
                    if (!r.ready.await(300,
                            TimeUnit.SECONDS)) throw new IOException("a caller did not get ready within 300 s");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
                if (r.done.isCompletedExceptionally()) PeerThread.await(r.done);
            }
            Set<Integer> excluded = notClient.get();
            ServerSample s0 = server.sample();
            Side c0 = Side.read(this, excluded, null);
            go.countDown();
            for (Run r : runs) PeerThread.await(r.done);
            Side c1 = Side.read(this, excluded, c0);
            kernelVoid = c1.sameThreads ? null : voidBecause(c0.kernelTids, c1.kernelTids);
            ServerSample s1 = server.sample();
            ServerSample sd = s0 == null || s1 == null ? null : s1.minus(s0);
            CallerTimes times = new CallerTimes();
            for (Run r : runs) times.add(r.latency, r.startNanos, r.endNanos);
            return times.measurement(cell, round, k, calls, minus(c1.library, c0.library), c1.sameThreads
                    ? minus(c1.kernel, c0.kernel) : null,
                    c1.cpu.minus(c0.cpu), ClientThreadsProbe.union(c0.cpus, c1.cpus), sd, server.unknown(),
                            minus(c1.empty, c0.empty),
                    c1.uring == null || c0.uring == null ? null : c1.uring.minus(c0.uring));
        } finally {
            go.countDown();
        }
    }

    /** The threads counted at the second sample and not at the first, named as the kernel names them. */
    private static String voidBecause(Set<Integer> before, Set<Integer> after) {
        StringBuilder started = new StringBuilder();
        for (int tid : after) {
            if (before.contains(tid)) continue;
            if (!started.isEmpty()) started.append(", ");
            started.append(tid).append(' ').append(SchedulerThreads.comm(tid));
        }
        return KERNEL_VOID + " (" + started + ")";
    }

    private static SyscallCounts minus(SyscallCounts later, SyscallCounts earlier) {
        return later == null || earlier == null ? null : later.minus(earlier);
    }

    /** The client side at one instant: counts, and the kernel's counts and CPU of every client thread of the JVM. */
    private record Side(SyscallCounts library, SyscallCounts empty, UringCounts uring, SyscallCounts kernel,
            ThreadCpu cpu, SortedSet<Integer> cpus, Set<Integer> tids, Set<Integer> kernelTids, boolean sameThreads) {
        static Side read(CallersProbe p, Set<Integer> excluded, Side first) throws IOException {
            Set<Integer> before = first == null ? null : first.tids, kernelBefore = first == null ? null
                    : first.kernelTids;
            SyscallCounts library, empty;
            UringCounts uring = null;
            if (p.counts != null) {
                library = p.counts.library();
                empty = p.counts.empty();
                uring = p.counts.uring();
            } else {
                library = SyscallCounts.ZERO;
                empty = SyscallCounts.ZERO;
                uring = UringCounts.ZERO;
                for (Caller c : p.callers) {
                    SyscallCounts l = c.peer.libraryCounts(), e = c.peer.emptyCounts();
                    UringCounts u = c.peer.uringCounts();
                    library = library == null || l == null ? null : library.plus(l);
                    empty = empty == null || e == null ? null : empty.plus(e);
                    uring = uring == null || u == null ? null : uring.plus(u);
                }
            }
            // The JVM's poller waits for every virtual caller (and a full socket): its epoll_wait calls are the
            // client's.
            if (library != null) library = library.plus(GroutClient.pollerCounts());
            Set<Integer> tids = new TreeSet<>();
            try (var tasks = Files.list(Path.of("/proc/self/task"))) {
                for (Path t : tasks.toList()) {
                    int tid = Integer.parseInt(t.getFileName().toString());
                    if (!excluded.contains(tid)) tids.add(tid);
                }
            }
            Set<Integer> kernelTids = new TreeSet<>();
            boolean libraryKinds = p.kinds.equals(SyscallKind.LIBRARY) || p.kinds.equals(SHARED_MEMORY)
                    || p.kinds.equals(SOCKETS);
            if (libraryKinds) settlePoller(tids);
            Set<Integer> platformCallers = new TreeSet<>();
            for (Caller c : p.callers) if (c.tid != 0) platformCallers.add(c.tid);
            for (int tid : tids) {
                if (!libraryKinds || platformCallers.contains(tid) || libraryThread(tid)) kernelTids.add(tid);
            }
            boolean same = kernelBefore == null || kernelBefore.containsAll(kernelTids);
            // The threads of the first sample are read again, also those that ended (their counts stay readable).
            Set<Integer> counted = new TreeSet<>(kernelTids);
            if (kernelBefore != null) counted.addAll(kernelBefore);
            SyscallCounts kernel = SyscallCounts.ZERO;
            for (int tid : counted) {
                KernelSyscallCounter k = KernelCounters.of(tid, p.kinds, libraryKinds ? FutexCalls.SHARED
                        : FutexCalls.ALL);
                // Null with counters available: tid ended before it could be counted (it makes no calls).
                if (k == null && KernelCounters.unavailable() == null) continue;
                kernel = kernel == null || k == null ? null : kernel.plus(k.read());
            }
            Set<Integer> all = new TreeSet<>(tids);
            if (before != null) all.addAll(before);
            ThreadCpu cpu = new ThreadCpu(0, 0, 0, 0, 0);
            SortedSet<Integer> cpus = new TreeSet<>();
            for (int tid : all) {
                if (!tids.contains(tid)) continue; // ended: its CPU is gone with it
                try {
                    cpu = cpu.plus(ThreadCpu.of(tid));
                    if (before == null || before.contains(tid)) cpus.add(ThreadCpu.lastCpu(tid));
                } catch (IllegalStateException gone) {
                    // ended between the listing and the read
                }
            }
            return new Side(library, empty, uring, kernel, cpu, cpus, all, counted, same);
        }

        /**
         * Waits (at most 200 ms) until the JVM's poller thread is back in epoll_wait: the kernel counts a
         * call when it enters, the library when it returns, so a sample taken while the poller is
         * between two waits (it just unparked the last callers) would be one off.
         */
        private static void settlePoller(Set<Integer> tids) throws IOException {
            for (int tid : tids) {
                if (!libraryThread(tid) || !SchedulerThreads.comm(tid).equals("sysframe-poller")) continue;
                try {
                    ThreadSyscall.awaitParked(tid, Duration.ofMillis(200));
                } catch (IOException notParked) {
                    // busy all along: the sample is taken anyway (a disagreement then shows in the k=l column)
                }
            }
        }

        /**
         * Whether thread tid of this JVM may make the library's calls: a carrier of virtual threads, the poller, a
         * client's own thread.
         */
        private static boolean libraryThread(int tid) {
            String comm = SchedulerThreads.comm(tid); // "" once ended since the listing
            return comm.startsWith("ForkJoinPool-") || comm.equals("sysframe-poller")
                    || comm.startsWith("sysframe-client");
        }
    }

    /** Closes every caller's peer on its thread and stops the callers. */
    @Override
    public void close() {
        for (Caller c : callers) c.close();
    }
}
