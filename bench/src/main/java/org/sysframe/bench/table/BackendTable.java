package org.sysframe.bench.table;

import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Goal;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.RoundRunner;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.peer.BenchFixture;
import org.sysframe.bench.peer.CPeer;
import org.sysframe.bench.peer.ClientThreadsProbe;
import org.sysframe.bench.peer.ConfinedCorePeer;
import org.sysframe.bench.peer.Pairing;
import org.sysframe.bench.peer.PeerThread;
import org.sysframe.bench.peer.PipelinedPeer;
import org.sysframe.bench.peer.SysframePeer;
import org.sysframe.transport.Backend;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;
import org.sysframe.transport.WaitMode;
import org.sysframe.unix.uring.UringSupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static org.sysframe.bench.measure.Goal.Metric.CALLS_RATIO;
import static org.sysframe.bench.measure.Goal.Metric.CLIENT_SYSCALLS_PER_CALL;
import static org.sysframe.bench.measure.Goal.Metric.CPU_RATIO;
import static org.sysframe.bench.measure.Goal.Metric.SERVER_SYSCALLS_PER_CALL;

/**
 * The backends table: epoll and io_uring side by side, client x server, with the default pairing.
 * Blocking one call at a time at each payload (every client x server combination, and the C client
 * against both servers: Grout's ping_perf workload), the client's I/O core alone beside each same-backend
 * pair ({@link ConfinedCorePeer}: what sharing the connection costs one caller), then depth 64 and both
 * sides spinning for the same-backend pairs. Ratios against epoll client + epoll server at the same payload.
 *
 * <p>Every server loop on CPU 0 and every client (sysframe's threads, the C processes) on CPU 1, as in
 * the peers table: unpinned, the scheduler puts a cell's client and server on one core in some rounds
 * and on two in others, in a share that changes from run to run, and the io_uring/epoll CPU ratio
 * with it (docs/results.md).
 */
public final class BackendTable implements Table {
    static final String NAME = "backends";
    static final String C_PREFIX = "C ";
    /** Row-name prefix of the lean C client (no clock per call, one send of a prebuilt frame, read-ahead 1 MiB). */
    static final String C_LEAN_PREFIX = "C lean ";

    /** e.g. {@code io_uring/epoll}: client backend / server backend. */
    static String name(Backend client, Backend server) { return client + "/" + server; }

    static final String BASELINE = name(Backend.EPOLL, Backend.EPOLL);

    static String deep(Backend b) { return name(b, b) + " depth 64"; }

    static String spinning(Backend b) { return name(b, b) + " spin"; }

    /** The client's I/O core alone on one thread (the confined client), that backend on both sides. */
    static String confined(Backend b) { return "confined core " + name(b, b); }

    static final Backend[] BOTH = {Backend.EPOLL, Backend.IO_URING};

    /** The payloads of the table's rows. */
    static final int[] PAYLOADS = {32, 1024};

    private static final String URING = name(Backend.IO_URING, Backend.IO_URING);

    private static final List<Goal> GOALS = List.of(
            new Goal("io_uring client: 1 syscall per call", NAME, URING, URING, 32, CLIENT_SYSCALLS_PER_CALL, false,
            1.0), new Goal("io_uring server: at most 1 syscall per request", NAME, URING, URING, 32,
                    SERVER_SYSCALLS_PER_CALL, false, 1.0),
            // No calls/s goal one call at a time: io_uring's receive completes through task work on the waiting
            // thread and cannot beat epoll there; where it should win (many connections), the connections goals
            // judge it.
            new Goal("io_uring both sides: less CPU per call than epoll", NAME, URING, BASELINE, 32, CPU_RATIO, false,
                    1.0),
            // What sharing the connection among callers costs one caller: the client against its own I/O core.
            new Goal("one caller: the client at least 0.97x its confined I/O core, epoll", NAME, BASELINE,
                    confined(Backend.EPOLL), 32, CALLS_RATIO, true, 0.97),
            new Goal("one caller: the client at least 0.97x its confined I/O core, io_uring", NAME, URING,
                    confined(Backend.IO_URING), 32, CALLS_RATIO, true, 0.97));

    @Override
    public String name() { return NAME; }

    @Override
    public String about() {
        return "epoll and io_uring, client x server, one call at a time, at depth 64 and spinning";
    }

    @Override
    public Set<String> cells() {
        Set<String> out = new LinkedHashSet<>();
        for (Backend s : BOTH) {
            for (Backend c : BOTH) out.add(name(c, s));
            out.addAll(List.of(C_PREFIX + name(Backend.EPOLL, s), C_LEAN_PREFIX + name(Backend.EPOLL, s), deep(s),
                    spinning(s), confined(s)));
        }
        return out;
    }

    @Override
    public List<Goal> goals() { return GOALS; }

    /** The client's I/O core alone against server, on the client's CPU (see {@link ConfinedCorePeer}). */
    private static Cell confinedCore(BenchFixture f, Pairing p, Backend b, String socket, GroutServer server,
            long calls) throws IOException {
        PeerThread core = f.peer(new ConfinedCorePeer(confined(b),
                p.client(socket).backend(b).cpu(PeerTable.CLIENT_CPU)), socket);
        return new Cell(confined(b), PAYLOADS[0], "the client's I/O core alone (no lock, call table or I/O role), " + b
                + ", on CPU " + PeerTable.CLIENT_CPU + ", blocking (" + p.framing() + ")", calls, calls / 4,
                new ClientThreadsProbe(List.of(core), ServerSample.Source.of(server)));
    }

    /**
     * With --full every client x server combination at every payload; else all four at the first payload, same-backend
     * pairs at the others.
     */
    @Override
    public BenchTable run(TableRun run) throws IOException {
        int[] payloads = PAYLOADS;
        int rounds = run.rounds();
        boolean quick = run.quick(), full = run.full();
        String unavailable = UringSupport.unavailableReason();
        if (unavailable != null) {
            return BenchTable.of(NAME, "backends: epoll and io_uring", "pair", BASELINE, false, rounds, List.of(),
                    List.of(), List.of("not measured: " + unavailable));
        }
        Pairing p = Pairing.named("sysframe");
        boolean cPeer = CPeer.available();
        Path dir = Files.createTempDirectory("sysframe-backends");
        List<WaitProbe> probes = new ArrayList<>();
        try (BenchFixture f = new BenchFixture(NAME)) {
            GroutServer[] servers = new GroutServer[BOTH.length];
            String[] sockets = new String[BOTH.length];
            for (int i = 0; i < BOTH.length; i++) {
                sockets[i] = f.socket("server-" + BOTH[i]);
                servers[i] = f.server(p.server(sockets[i]).backend(BOTH[i]).cpus(PeerTable.SERVER_CPU));
            }
            List<Cell> cells = new ArrayList<>();
            long calls = quick ? 600 : 3_000;
            for (int k = 0; k < payloads.length; k++) {
                int payload = payloads[k];
                for (int s = 0; s < BOTH.length; s++) {
                    for (Backend c : BOTH) {
                        if (!full && k > 0 && c != BOTH[s]) continue;
                        PeerThread t = f.peer(new SysframePeer(name(c, BOTH[s]),
                                p.client(sockets[s]).backend(c).cpu(PeerTable.CLIENT_CPU)), sockets[s]);
                        cells.add(new Cell(name(c, BOTH[s]), payload, c + " client on CPU " + PeerTable.CLIENT_CPU
                                + ", " + BOTH[s] + " server on CPU "
                                + PeerTable.SERVER_CPU + ", blocking (" + p.framing() + ")",
                                calls, calls / 4, new ClientThreadsProbe(List.of(t),
                                        ServerSample.Source.of(servers[s]))));
                        // Right after the client on the same pair, so that a round measures both in the same moment.
                        if (k == 0 && c == BOTH[s]) cells.add(confinedCore(f, p, c, sockets[s], servers[s], calls));
                    }
                    if (cPeer && (full || k == 0)) {
                        CPeer cp = new CPeer("c-" + BOTH[s], "sendmsg",
                                new CPeer.Options("block", PeerTable.CLIENT_CPU, 1, 1));
                        cells.add(new Cell(C_PREFIX + name(Backend.EPOLL, BOTH[s]), payload,
                                "C client timed (ping_perf workload, a clock read per call, one sendmsg, read-ahead "
                                + "8192) on CPU " + PeerTable.CLIENT_CPU + ", "
                                        + BOTH[s] + " server",
                                calls, calls / 4, f.closing(cp.probe(sockets[s], ServerSample.Source.of(servers[s])))));
                        CPeer lean = new CPeer("c-lean-" + BOTH[s], "sendmsg",
                                CPeer.Options.lean("block", PeerTable.CLIENT_CPU, 1));
                        cells.add(new Cell(C_LEAN_PREFIX + name(Backend.EPOLL, BOTH[s]), payload, lean.describe()
                                + ", " + BOTH[s] + " server",
                                calls, calls / 4, f.closing(lean.probe(sockets[s],
                                        ServerSample.Source.of(servers[s])))));
                    }
                }
            }
            int first = payloads[0];
            for (int s = 0; s < BOTH.length; s++) {
                Backend b = BOTH[s];
                long deepCalls = calls * 64;
                PeerThread t = f.peer(new PipelinedPeer(deep(b),
                        p.client(sockets[s]).backend(b).cpu(PeerTable.CLIENT_CPU), 64, 64), sockets[s]);
                cells.add(new Cell(deep(b), first, b
                        + " client and server, 64 in flight, one send per refill, client on CPU "
                                + PeerTable.CLIENT_CPU, deepCalls, deepCalls / 4,
                        new ClientThreadsProbe(List.of(t), ServerSample.Source.of(servers[s]))));
            }
            for (Backend b : BOTH) {
                // Spinning servers run only while their cell runs (WaitProbe): they would burn a core during the
                // others.
                ServerOptions so = p.server("").backend(b).waitMode(WaitMode.SPIN).cpus(0);
                WaitProbe probe = WaitProbe.sysframe(spinning(b),
                        p.client("").backend(b).waitMode(WaitMode.SPIN).cpu(1), so,
                        dir.resolve("spin-" + b + ".sock").toString());
                probes.add(probe);
                cells.add(new Cell(spinning(b), first, b + " client spinning on CPU 1, " + b
                        + " server loop spinning on CPU 0",
                        calls * 4, calls, probe));
            }
            // The C rows in a set of rounds of their own: no goal pairs a sysframe row with a C row.
            List<Measurement> runs = run.measureApart(NAME, cells, c -> c.name().startsWith(C_PREFIX));
            List<String> notes = new ArrayList<>();
            if (!cPeer) notes.add("C client rows left out: bench/target/sysframe_ping is not built (make builds it)");
            else notes.add(RoundRunner.apartNote("sysframe", "C", BASELINE));
            notes.add("pair: client backend/server backend; C rows: the C client (blocking send/recv) against that "
                    + "server, timed or lean (no latency measured)");
            return BenchTable.of(NAME, "backends: epoll and io_uring, client x server", "pair", BASELINE, false,
                    rounds, cells, runs, notes);
        } finally {
            for (WaitProbe w : probes) w.close();
            try (var files = Files.list(dir)) {
                for (Path x : files.toList()) Files.deleteIfExists(x);
            }
            Files.deleteIfExists(dir);
        }
    }
}
