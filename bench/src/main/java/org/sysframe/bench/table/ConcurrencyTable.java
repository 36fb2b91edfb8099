package org.sysframe.bench.table;

import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Goal;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.peer.BenchFixture;
import org.sysframe.bench.peer.CPeer;
import org.sysframe.bench.peer.CallersProbe;
import org.sysframe.bench.peer.ChannelPeer;
import org.sysframe.bench.peer.ChannelSide;
import org.sysframe.bench.peer.OneClientPeer;
import org.sysframe.bench.peer.Pairing;
import org.sysframe.bench.peer.SysframePeer;
import org.sysframe.transport.Backend;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.GroutServer;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.uring.UringSupport;

import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import static org.sysframe.bench.measure.Goal.Metric.CALLS_RATIO;
import static org.sysframe.bench.measure.Goal.Metric.CLIENT_SYSCALLS_PER_CALL;

/**
 * The concurrency table: 1, 8 and 64 callers at once, each calling one 32 B ping at a time, against
 * one epoll server of this JVM. Rows: the callers on one {@link GroutClient} (platform and virtual
 * threads), and at 64 virtual callers also one client on io_uring (same server) and one over a
 * shared-memory channel (a server of its own, whose loop serving the channel is the server side); a
 * GroutClient per caller (platform and virtual); a JDK SocketChannel per virtual thread; N lean C
 * clients, a process each. Then the one-per-read rows, against a server of their own that answers one
 * request per socket read ({@code requestsPerRead(1)}, as Grout's api.c): 64 virtual callers (8 too
 * with {@code --full}) on one client with {@code maxInFlight(1)} over 1, 2 and 4 connections, beside
 * the C load generator with one GR_PING in flight on each of its 4 connections (and on 1 with
 * {@code --full}); each sysframe row counts its calls that timed out (the table's note; a timed-out
 * call ends the table with its error, naming the row). Client syscalls and CPU are summed over every
 * thread of this JVM but the servers' loops (a virtual caller runs on any carrier; one
 * client's calls are made by whichever caller does its I/O, its own thread and the JVM's poller), or
 * over the C processes. Ratios against one GroutClient on one platform thread.
 */
public final class ConcurrencyTable implements Table {
    static final String NAME = "concurrency";
    static final int PAYLOAD = 32;
    static final int[] CALLERS = {1, 8, 64};
    /** The callers of the io_uring and shared-memory rows (virtual threads). */
    static final int OTHER_TRANSPORTS_CALLERS = 64;

    /**
     * Row names: e.g. {@code one client 64 virtual}, {@code one client io_uring 64 virtual},
     * {@code one client shm 64 virtual}, {@code clients 64 platform}, {@code jdk 64 virtual}, {@code C lean 64}.
     */
    static String oneClient(int n, boolean virtual) { return "one client " + n + (virtual ? " virtual" : " platform"); }

    static String oneClientUring(int n) { return "one client io_uring " + n + " virtual"; }

    static String oneClientShm(int n) { return "one client shm " + n + " virtual"; }

    static String clients(int n, boolean virtual) { return "clients " + n + (virtual ? " virtual" : " platform"); }

    static String jdk(int n) { return "jdk " + n + " virtual"; }

    static String cLean(int n) { return "C lean " + n; }

    /**
     * The one-per-read rows' virtual callers, their client's connections, and the C clients' connections:
     * N lean C clients, a process and a connection each (Grout's own model, its C client not being
     * thread-safe: a connection per thread), and, with {@code --full} and N over 1, the C load generator
     * on N connections from one thread ({@code -M N -A N}: one GR_PING in flight on each). With
     * {@code --full} every one; else the 64 callers' rows and 4 C clients: the cells of the goals, and 2
     * connections between them.
     */
    static int[] onePerReadCallers(boolean full) { return full ? new int[] {8, 64} : new int[] {64}; }

    static final int[] POOLS = {1, 2, 4};

    static int[] cPools(boolean full) { return full ? new int[] {1, 4} : new int[] {4}; }

    /** e.g. {@code one-per-read: 64 virtual, 4 connections}. */
    static String onePerRead(int n, int connections) {
        return "one-per-read: " + n + " virtual, " + connections(connections);
    }

    /** e.g. {@code one-per-read: C lean 4 clients}: a process and a connection each. */
    static String cOnePerRead(int clients) {
        return "one-per-read: C lean " + clients + (clients == 1 ? " client" : " clients");
    }

    /** e.g. {@code one-per-read: C lean 1 thread, 4 connections}: the load generator's epoll over them. */
    static String cOnePerReadOneThread(int connections) {
        return "one-per-read: C lean 1 thread, " + connections(connections);
    }

    private static String connections(int k) { return k + (k == 1 ? " connection" : " connections"); }

    static final String REFERENCE = clients(1, false);

    /**
     * Every row's name, in the table's order, with {@code --full} (full) or without (the C rows are
     * left out of a run where the C client is not built, the io_uring row where io_uring is unavailable).
     */
    static List<String> names(boolean full) {
        boolean uring = UringSupport.unavailableReason() == null;
        List<String> out = new ArrayList<>();
        for (int n : CALLERS) {
            out.addAll(List.of(oneClient(n, false), clients(n, false), oneClient(n, true)));
            if (n == OTHER_TRANSPORTS_CALLERS) {
                if (uring) out.add(oneClientUring(n));
                out.add(oneClientShm(n));
            }
            out.addAll(List.of(clients(n, true), jdk(n), cLean(n)));
        }
        for (int n : onePerReadCallers(full)) for (int k : POOLS) out.add(onePerRead(n, k));
        for (int k : cPools(full)) {
            out.add(cOnePerRead(k));
            if (full && k > 1) out.add(cOnePerReadOneThread(k));
        }
        return out;
    }

    private static final int N = OTHER_TRANSPORTS_CALLERS;

    /**
     * The rows of 64 virtual callers on one client (epoll, io_uring, shared memory) make this many times
     * the calls of the others: they are several times as fast, and at the others' count a run is mostly
     * its start (64 callers let go at once) and its tail (fewer callers left, fewer requests per send),
     * which understates them (docs/results.md).
     */
    static final int FAST_ROWS_LONGER = 5;

    private static final List<Goal> GOALS = List.of(
            new Goal("64 virtual callers on one client: 3x 64 platform threads with a GroutClient each", NAME,
                    oneClient(N, true), clients(N, false), PAYLOAD, CALLS_RATIO, true, 3.0),
            new Goal("64 virtual callers on one client: at most 0.2 client syscalls per call", NAME,
                    oneClient(N, true), oneClient(N, true), PAYLOAD, CLIENT_SYSCALLS_PER_CALL, false, 0.2),
            new Goal("64 virtual callers on one client: 2x a JDK SocketChannel per virtual thread", NAME,
                    oneClient(N, true), jdk(N), PAYLOAD, CALLS_RATIO, true, 2.0),
            new Goal("64 virtual callers on one io_uring client: 3x 64 platform threads with a GroutClient each", NAME,
                    oneClientUring(N), clients(N, false), PAYLOAD, CALLS_RATIO, true, 3.0),
            new Goal("64 virtual callers on one io_uring client: at most 0.2 client syscalls per call", NAME,
                    oneClientUring(N), oneClientUring(N), PAYLOAD, CLIENT_SYSCALLS_PER_CALL, false, 0.2),
            new Goal("64 virtual callers on one client over shared memory: 3x 64 platform threads with a GroutClient "
                    + "each", NAME,
                    oneClientShm(N), clients(N, false), PAYLOAD, CALLS_RATIO, true, 3.0),
            // Against a server that answers one request per read (Grout's api.c): one client with maxInFlight(1).
            new Goal("one request per read: 64 callers over a pool of 4 >= 0.9x the calls/s of 4 C lean clients, a "
                    + "connection each", NAME,
                    onePerRead(64, 4), cOnePerRead(4), PAYLOAD, CALLS_RATIO, true, 0.9),
            new Goal("one request per read: 64 callers, a pool of 4 makes more calls/s than one connection", NAME,
                    onePerRead(64, 4), onePerRead(64, 1), PAYLOAD, CALLS_RATIO, true, 1.0));

    @Override
    public String name() { return NAME; }

    @Override
    public String about() {
        return "1, 8 and 64 callers on one client, a client each, JDK channels and C; a pool against a server "
                + "answering one request per read";
    }

    /** Every row of --full, the io_uring row whether io_uring is available or not. */
    @Override
    public Set<String> cells() {
        Set<String> out = new LinkedHashSet<>(names(true));
        out.add(oneClientUring(N));
        return out;
    }

    @Override
    public List<Goal> goals() { return GOALS; }

    /** With --full every one-per-read row (see {@link #onePerReadCallers}). */
    @Override
    public BenchTable run(TableRun run) throws IOException {
        int rounds = run.rounds();
        boolean quick = run.quick(), full = run.full();
        // The calls of a row's run; the fast rows make FAST_ROWS_LONGER times as many.
        long calls = quick ? 2_000L : 10_800L;
        Pairing p = Pairing.named("sysframe");
        boolean cPeer = CPeer.available();
        String uringUnavailable = UringSupport.unavailableReason();
        List<String> notes = new ArrayList<>();
        List<AutoCloseable> open = new ArrayList<>();
        try (BenchFixture f = new BenchFixture(NAME)) {
            String socket = f.socket("concurrency");
            GroutServer server = f.server(p.server(socket));
            ServerSample.Source side = ServerSample.Source.of(server);
            String shmSocket = f.socket("concurrency-shm");
            GroutServer shmServer = f.server(p.server(shmSocket).sharedMemory(true));
            ChannelSide channel = new ChannelSide(shmServer);
            String onePerReadSocket = f.socket("concurrency-one-per-read");
            GroutServer onePerReadServer = f.server(p.server(onePerReadSocket).requestsPerRead(1));
            ServerSample.Source onePerReadSide = ServerSample.Source.of(onePerReadServer);
            Set<Integer> loops = new HashSet<>();
            for (GroutServer s : List.of(server, shmServer, onePerReadServer)) {
                for (int i = 0; i < s.loopCount(); i++) loops.add(s.loopThreadId(i));
            }
            // The servers' threads of this JVM: their loops, the shm row's server's among them once its client opened
            // the channel.
            Supplier<Set<Integer>> notClient = () -> {
                Set<Integer> out = new HashSet<>(loops);
                out.addAll(channel.threadIds());
                return out;
            };
            List<Cell> cells = new ArrayList<>();
            try {
                for (int n : CALLERS) {
                    String callers = n + (n == 1 ? " caller" : " callers") + ", one 32 B ping at a time each, ";
                    String where = callers + "epoll server (1 loop); ";
                    for (boolean virtual : new boolean[] {false, true}) {
                        String threads = virtual ? "virtual" : "platform";
                        GroutClient client = f.closing(GroutClient.connect(p.client(socket)));
                        CallersProbe one = oneClientProbe(oneClient(n, virtual), n, virtual, client, side, notClient,
                                open);
                        long oneCalls = virtual && n == N ? calls * FAST_ROWS_LONGER : calls;
                        cells.add(new Cell(oneClient(n, virtual), PAYLOAD, where + "one GroutClient, " + threads
                                + " threads, " + p.framing(),
                                oneCalls, calls / 4, one));
                        if (virtual && n == OTHER_TRANSPORTS_CALLERS) {
                            if (uringUnavailable == null) {
                                GroutClient uring = f.closing(GroutClient.connect(p.client(socket)
                                        .backend(Backend.IO_URING)));
                                CallersProbe u = oneClientProbe(oneClientUring(n), n, true, uring, side, notClient,
                                        open);
                                cells.add(new Cell(oneClientUring(n), PAYLOAD, where
                                        + "one GroutClient on io_uring, virtual threads, "
                                        + p.framing(), calls * FAST_ROWS_LONGER, calls / 4, u));
                            } else {
                                notes.add("row " + oneClientUring(n) + " left out: " + uringUnavailable);
                            }
                            GroutClient shm = f.closing(GroutClient.connect(p.client(shmSocket).sharedMemory(true)));
                            if (!shm.sharedMemory()) {
                                throw new IOException("the server on " + shmSocket
                                        + " gave no shared-memory channel (see its log)");
                            }
                            CallersProbe s = oneClientProbe(oneClientShm(n), n, true, shm, channel, notClient, open);
                            cells.add(new Cell(oneClientShm(n), PAYLOAD, callers
                                    + "a server's shared-memory channel (server figures: the"
                                    + " loop serving it); one GroutClient over it, virtual threads, " + p.framing(),
                                            calls * FAST_ROWS_LONGER,
                                    calls / 4, s));
                        }
                        CallersProbe own = new CallersProbe(n, virtual, i -> {
                            SysframePeer peer = new SysframePeer(clients(n, virtual) + " #" + i, p.client(socket));
                            peer.open(socket);
                            return peer;
                        }, null, side, notClient);
                        open.add(own);
                        cells.add(new Cell(clients(n, virtual), PAYLOAD, where + "a GroutClient per caller, " + threads
                                + " threads, " + p.framing(), calls, calls / 4, own));
                    }
                    CallersProbe channels = new CallersProbe(n, true, i -> {
                        ChannelPeer peer = ChannelPeer.jdk(jdk(n) + " #" + i, ChannelPeer.Send.GATHER, true);
                        peer.open(socket);
                        return peer;
                    }, null, side, notClient).kernelKinds(EnumSet.allOf(SyscallKind.class));
                    open.add(channels);
                    cells.add(new Cell(jdk(n), PAYLOAD, where
                            + "a JDK SocketChannel per virtual thread, gathering write, read-ahead 8192",
                            calls, calls / 4, channels));
                    if (cPeer) {
                        CPeer c = new CPeer("c-lean-" + n, "sendmsg", CPeer.Options.lean("block", -1, 1));
                        cells.add(new Cell(cLean(n), PAYLOAD, where + c.describe() + ", a process each", calls,
                                calls / 4, f.closing(c.probe(socket, side, n))));
                    }
                }
                // The one-per-read rows: each counts its calls that timed out (a timed-out call still ends the run).
                String onePerReadWhere =
                        "virtual callers, one 32 B ping at a time each, epoll server answering one request per read"
                        + " (requestsPerRead(1), Grout's api.c; 1 loop); one GroutClient, maxInFlight(1), ";
                Map<String, LongAdder> timedOut = new LinkedHashMap<>();
                for (int n : onePerReadCallers(full)) {
                    for (int k : POOLS) {
                        String name = onePerRead(n, k);
                        LongAdder t = new LongAdder();
                        timedOut.put(name, t);
                        GroutClient client = f.closing(GroutClient.connect(p.client(onePerReadSocket).maxInFlight(1)
                                .connections(k)));
                        CallersProbe probe = new CallersProbe(n, true, i -> new OneClientPeer(name, client, t),
                                OneClientPeer.counts(client),
                                onePerReadSide, notClient).kernelKinds(OneClientPeer.kernelKinds(client));
                        open.add(probe);
                        // A warm-up run as long as a round's: these calls are slow, and a warm-up lasts 0.15 s however
                        // many runs it takes.
                        cells.add(new Cell(name, PAYLOAD, n + " " + onePerReadWhere + connections(k) + ", "
                                + p.framing(), calls, calls, probe));
                    }
                }
                if (cPeer) {
                    String server1 = "epoll server answering one request per read (requestsPerRead(1)); ";
                    for (int k : cPools(full)) {
                        CPeer each = new CPeer("c-one-per-read-" + k, "sendmsg", CPeer.Options.lean("block", -1, 1));
                        cells.add(new Cell(cOnePerRead(k), PAYLOAD, server1 + each.describe()
                                + ", a process and a connection each", calls,
                                calls / 4, f.closing(each.probe(onePerReadSocket, onePerReadSide, k))));
                        if (!full || k == 1) continue;
                        CPeer one = CPeer.many("c-one-per-read-mux-" + k, k, k);
                        cells.add(new Cell(cOnePerReadOneThread(k), PAYLOAD, server1 + one.describe(), calls, calls / 4,
                                f.closing(one.probe(onePerReadSocket, onePerReadSide, 1))));
                    }
                }
                if (!cPeer) notes.add("C client rows left out: bench/target/sysframe_ping is not built (make builds "
                        + "it)");
                notes.add("client syscalls and CPU: every thread of this JVM but the servers' loops (JIT "
                        + "and GC included), or the"
                        + " C processes; C lean rows measure no latency (p50/p99 read -); jdk rows: the kernel's count "
                                + "of every kind, read and"
                        + " write included; the JVM poller's epoll_ctl calls are not a counted kind; "
                                + oneClientShm(OTHER_TRANSPORTS_CALLERS)
                        + ": the server side is the loop serving the channel, and the kernel counts futex too (the "
                        + "carriers' "
                                + "own parking in it)");
                List<Measurement> runs;
                try {
                    runs = run.measure(NAME, cells);
                } catch (IOException e) {
                    String t = timedOut(timedOut, false);
                    throw t.isEmpty() ? e : new IOException(NAME + " table: calls timed out on the one-per-read rows ("
                            + t + "): " + e.getMessage(), e);
                }
                notes.add("calls timed out on the one-per-read rows, every run (warm-up included): "
                        + timedOut(timedOut, true)
                        + "; a call that times out ends the table with its error; the C client waits without a timeout "
                                + "(one request in flight per connection)");
                return BenchTable.of(NAME,
                        "1, 8 and 64 callers: one client (at 64 virtual callers also on io_uring and over shared "
                        + "memory),"
                        + " a client per caller, JDK channels, C clients; " + (full ? "8 and 64 callers" : "64 callers")
                        + " against a server answering one request per read, on one client with maxInFlight(1) over 1, "
                                + "2 and 4 connections,"
                        + " beside the C client on " + (full ? "1 and 4" : "4"), "caller", REFERENCE,
                        false, rounds, cells, runs, notes);
            } finally {
                for (int i = open.size() - 1; i >= 0; i--) {
                    try {
                        open.get(i).close();
                    } catch (Exception e) {
                        // closing the rest anyway
                    }
                }
            }
        }
    }

    /**
     * e.g. {@code one-per-read: 8 virtual, 1 connection 0, ...}: every row's count (all), or only the rows with
     * timeouts.
     */
    static String timedOut(Map<String, LongAdder> timedOut, boolean all) {
        List<String> out = new ArrayList<>();
        timedOut.forEach((row, n) -> {
            if (all || n.sum() > 0) out.add(row + " " + n.sum());
        });
        return String.join(", ", out);
    }

    /** n callers (virtual or platform threads) on client, its counts the client's own; added to open. */
    private static CallersProbe oneClientProbe(String name, int n, boolean virtual, GroutClient client,
            ServerSample.Source server,
                                               Supplier<Set<Integer>> notClient,
                                               List<AutoCloseable> open) throws IOException {
        CallersProbe probe = new CallersProbe(n, virtual, i -> new OneClientPeer(name, client),
                OneClientPeer.counts(client), server, notClient)
                .kernelKinds(OneClientPeer.kernelKinds(client));
        open.add(probe);
        return probe;
    }
}
