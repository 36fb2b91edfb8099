package org.sysframe.bench.peer;

import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.measure.ThreadCpu;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.uring.UringCounts;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;

/**
 * Measures one or more in-process clients, each on its own {@link PeerThread}, started together
 * against one server: calls are split evenly between them, and the figures are their sum (counts,
 * CPU), their merged latency histogram and the wall time from the first start to the last finish.
 * Every count is read from this coordinating thread while the clients are parked.
 */
public final class ClientThreadsProbe implements Cell.Probe {
    private final List<PeerThread> clients;
    private final ServerSample.Source server;

    public ClientThreadsProbe(List<PeerThread> clients, ServerSample.Source server) {
        if (clients.isEmpty()) throw new IllegalArgumentException("no clients");
        this.clients = List.copyOf(clients);
        this.server = server;
    }

    @Override
    public Measurement measure(Cell cell, long calls, int round) throws IOException {
        int k = clients.size();
        CountDownLatch go = new CountDownLatch(1);
        List<PeerThread.Run> runs = new ArrayList<>(k);
        try {
            for (int i = 0; i < k; i++) runs.add(clients.get(i).schedule(cell.payload(), share(calls, k, i), go));
            for (PeerThread.Run r : runs) r.awaitReady();
            ServerSample s0 = server.sample();
            Side c0 = Side.read(clients);
            go.countDown();
            for (PeerThread.Run r : runs) r.awaitDone();
            Side c1 = Side.read(clients);
            ServerSample s1 = server.sample();
            ServerSample sd = s0 == null || s1 == null ? null : s1.minus(s0);
            CallerTimes times = new CallerTimes();
            for (PeerThread.Run r : runs) times.add(r.latency, r.startNanos, r.endNanos);
            return times.measurement(cell, round, k, calls, minus(c1.library, c0.library),
                    minus(c1.kernel, c0.kernel),
                    c1.cpu.minus(c0.cpu), union(c0.cpus, c1.cpus), sd, server.unknown(), minus(c1.empty, c0.empty),
                    c1.uring == null || c0.uring == null ? null : c1.uring.minus(c0.uring));
        } finally {
            go.countDown();
            for (PeerThread.Run r : runs) r.release.countDown();
        }
    }

    /** Client i's share of calls: an even split, the remainder to the first ones. */
    public static long share(long calls, int clients, int i) {
        return calls / clients + (i < calls % clients ? 1 : 0);
    }

    /** The CPUs seen at the start of a round and at its end, together. */
    static SortedSet<Integer> union(SortedSet<Integer> a, SortedSet<Integer> b) {
        SortedSet<Integer> all = new TreeSet<>(a);
        all.addAll(b);
        return all;
    }

    /**
     * e.g. {@code client cpu 0,1; server cpu 1}: the CPUs the threads were seen on at the samples; the
     * server's left out when none is known (a server in another process whose loop threads were not found).
     */
    public static String cpus(SortedSet<Integer> client, SortedSet<Integer> server) {
        return cpus(client, server, null);
    }

    /**
     * As {@link #cpus(SortedSet, SortedSet)}, with why the server's are unknown when there are none:
     * {@code client cpu 1; server cpu unknown (the server runs in this process ...)}.
     */
    public static String cpus(SortedSet<Integer> client, SortedSet<Integer> server, String serverUnknown) {
        if (server == null && serverUnknown != null) return "client cpu " + join(client) + "; server cpu unknown ("
                + serverUnknown + ")";
        String s = server == null ? "?" : join(server);
        return "client cpu " + join(client) + (s.equals("?") ? "" : "; server cpu " + s);
    }

    private static String join(SortedSet<Integer> cpus) {
        cpus.remove(-1);
        if (cpus.isEmpty()) return "?";
        StringBuilder sb = new StringBuilder();
        for (int c : cpus) sb.append(sb.isEmpty() ? "" : ",").append(c);
        return sb.toString();
    }

    private static SyscallCounts minus(SyscallCounts later, SyscallCounts earlier) {
        return later == null || earlier == null ? null : later.minus(earlier);
    }

    /** The client threads together at one instant. */
    private record Side(SyscallCounts library, SyscallCounts kernel, ThreadCpu cpu, SortedSet<Integer> cpus,
            SyscallCounts empty, UringCounts uring) {
        static Side read(List<PeerThread> clients) throws IOException {
            SyscallCounts library = SyscallCounts.ZERO, kernel = SyscallCounts.ZERO, empty = SyscallCounts.ZERO;
            ThreadCpu cpu = new ThreadCpu(0, 0, 0, 0, 0);
            SortedSet<Integer> cpus = new TreeSet<>();
            UringCounts uring = UringCounts.ZERO;
            for (PeerThread p : clients) {
                UringCounts u = p.peer().uringCounts();
                uring = uring == null || u == null ? null : uring.plus(u);
                SyscallCounts lib = p.peer().libraryCounts();
                library = library == null || lib == null ? null : library.plus(lib);
                SyscallCounts e = p.peer().emptyCounts();
                empty = empty == null || e == null ? null : empty.plus(e);
                KernelSyscallCounter k = p.kernel();
                kernel = kernel == null || k == null ? null : kernel.plus(k.read());
                cpu = cpu.plus(ThreadCpu.of(p.tid()));
                cpus.add(ThreadCpu.lastCpu(p.tid()));
            }
            return new Side(library, kernel, cpu, cpus, empty, uring);
        }
    }
}
