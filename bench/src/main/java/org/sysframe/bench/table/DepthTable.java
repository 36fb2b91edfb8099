package org.sysframe.bench.table;

import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Goal;
import org.sysframe.bench.measure.GoalVerdict;
import org.sysframe.bench.measure.Interval;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.peer.BenchFixture;
import org.sysframe.bench.peer.CPeer;
import org.sysframe.bench.peer.ChannelSide;
import org.sysframe.bench.peer.ClientThreadsProbe;
import org.sysframe.bench.peer.JavaLeanPipelinePeer;
import org.sysframe.bench.peer.Pairing;
import org.sysframe.bench.peer.PeerThread;
import org.sysframe.bench.peer.PipelinedPeer;
import org.sysframe.bench.peer.SysframePeer;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.WaitMode;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import static org.sysframe.bench.measure.Goal.Metric.CALLS_RATIO;
import static org.sysframe.bench.measure.Goal.Metric.CLIENT_SYSCALLS_PER_CALL;

/**
 * The pipelining table: one sysframe client keeping DEPTH pings in flight (refilled a whole window at
 * a time, one send per refill) against the default server, for each depth and payload, next to the C
 * client doing the same, timed (a clock read per request, latency percentiles; refilled a whole window
 * at a time) and lean (no clock per request, refilled as answers come: the goals' anchor); ratios
 * against depth 1 of the same payload.
 *
 * <p>At {@link #SPINNING_DEPTH} and 32 B, two rows run the sysframe and the C lean clients on the server loop's
 * CPU (one core), where the client's CPU per request decides the calls per second.
 *
 * <p>At {@link #SPINNING_DEPTH} and 32 B, one more row runs the C lean client's loop in Java ({@link
 * JavaLeanPipelinePeer}: the same syscalls through the project's binding, frames built once, no clock per request)
 * beside C lean, across cores: the table's note splits the pipelined client's gap to C lean into the language's part
 * (the Java loop against the C one) and the library's (sysframe's client against the Java loop).
 *
 * <p>At {@link #SPINNING_DEPTH} two more rows compare the transports where the transport is what
 * differs: the socket and the shared-memory channel, client and server both waiting
 * {@value #SPINNING_WAIT} (look without sleeping for up to 50 us, then sleep), each on a server of
 * its own. Blocking, each window of the rows above pays two wake-ups (a blocking call at depth 1 pays
 * the same two), which neither transport changes; spinning between windows, a
 * window costs its framing and, on the socket, its syscalls and empty looks.
 */
public final class DepthTable implements Table {
    public static final String NAME = "depth";
    public static final int[] DEPTHS = {1, 4, 16, 64};
    public static final String C_PREFIX = "C ";
    /** Row-name prefix of the shared-memory channel's rows. */
    public static final String SHM_PREFIX = "shm ";
    /** Row-name prefix of the lean C client (no clock per request, refilled as answers come), the goals' C anchor. */
    static final String C_LEAN_PREFIX = "C lean ";
    /** Row-name prefix of the lean C client's loop in Java ({@link JavaLeanPipelinePeer}), beside C lean. */
    static final String JAVA_LEAN_PREFIX = "Java lean ";

    public static String name(int depth) { return "depth " + depth; }

    /** The depth of the spinning pair of rows (socket and shared memory). */
    public static final int SPINNING_DEPTH = 64;
    /** The wait of both sides in the spinning pair. */
    public static final String SPINNING_WAIT = "spin:50us";

    /**
     * The name of the socket row of the spinning pair, e.g. {@code depth 64 spin:50us}; {@link #SHM_PREFIX} before it
     * names the channel's.
     */
    public static String spinning(int depth) { return name(depth) + " " + SPINNING_WAIT; }

    /**
     * The name of a row at depth whose client runs on the server loop's CPU, e.g. {@code depth 64 one core}; {@link
     * #C_LEAN_PREFIX} before it names the C lean client's.
     */
    public static String oneCore(int depth) { return name(depth) + " one core"; }

    /** The payloads of the table's rows. */
    static final int[] PAYLOADS = {32, 1024};

    private static final List<Goal> GOALS = List.of(
            new Goal("depth 64: 8x depth 1", NAME, name(64), name(1), 32, CALLS_RATIO, true, 8.0),
            new Goal("depth 64: at least C lean at depth 64", NAME, name(64), C_LEAN_PREFIX + name(64), 32,
                    CALLS_RATIO, true, 1.0),
            new Goal("depth 64, client on the server's core: at least C lean there", NAME, oneCore(64),
                    C_LEAN_PREFIX + oneCore(64), 32, CALLS_RATIO, true, 1.0),
            new Goal("depth 64: at most 2/64 + 0.01 client syscalls per call", NAME, name(64), name(64), 32,
                    CLIENT_SYSCALLS_PER_CALL, false, 2.0 / 64 + 0.01),
            // Both rows wait spin:50us: blocking, each window pays two wake-ups on either transport (see the class
            // comment).
            new Goal("shared memory depth 64: 2x the socket at depth 64, both waiting spin:50us", NAME,
                    SHM_PREFIX + spinning(SPINNING_DEPTH), spinning(SPINNING_DEPTH), 32, CALLS_RATIO, true, 2.0));

    @Override
    public String name() { return NAME; }

    @Override
    public String about() {
        return "pipelining depth 1 to 64 over the socket and the shared-memory channel, beside the C client";
    }

    @Override
    public Set<String> cells() {
        Set<String> out = new LinkedHashSet<>();
        for (int d : DEPTHS) out.addAll(List.of(name(d), SHM_PREFIX + name(d), C_PREFIX + name(d), C_LEAN_PREFIX
                + name(d)));
        out.add(JAVA_LEAN_PREFIX + name(SPINNING_DEPTH));
        out.addAll(List.of(oneCore(SPINNING_DEPTH), C_LEAN_PREFIX + oneCore(SPINNING_DEPTH)));
        out.addAll(List.of(spinning(SPINNING_DEPTH), SHM_PREFIX + spinning(SPINNING_DEPTH)));
        return out;
    }

    @Override
    public List<Goal> goals() { return GOALS; }

    @Override
    public BenchTable run(TableRun run) throws IOException {
        int[] payloads = PAYLOADS;
        int rounds = run.rounds();
        boolean quick = run.quick();
        Pairing p = Pairing.named("sysframe");
        boolean cPeer = CPeer.available();
        try (BenchFixture f = new BenchFixture(NAME)) {
            String socket = f.socket("depth");
            // The server on CPU 0 and every client on CPU 1, as in the peers table: a placement that
            // changed from round to round would split each cell's figures in two.
            GroutServer server = f.server(p.server(socket).cpus(PeerTable.SERVER_CPU));
            ServerSample.Source side = ServerSample.Source.of(server);
            List<Cell> cells = new ArrayList<>();
            for (int payload : payloads) {
                for (int depth : DEPTHS) {
                    long calls = (quick ? 600L : 3_000L) * depth;
                    PeerThread t = f.peer(depth == 1 ? new SysframePeer(name(depth),
                            p.client(socket).cpu(PeerTable.CLIENT_CPU))
                            : new PipelinedPeer(name(depth), p.client(socket).cpu(PeerTable.CLIENT_CPU), depth, depth),
                                    socket);
                    cells.add(new Cell(name(depth), payload, "sysframe client, " + t.peer().framing(), calls, calls / 4,
                            new ClientThreadsProbe(List.of(t), side)));
                    // The same depth over a shared-memory channel, on a server of its own, so that the
                    // server figures are those of the loop serving the cell's one channel.
                    String shmSocket = f.socket("depth-shm-" + depth + "-" + payload);
                    GroutServer shmServer = f.server(p.server(shmSocket).sharedMemory(true).cpus(PeerTable.SERVER_CPU));
                    PeerThread shm = f.peer(depth == 1 ? new SysframePeer(SHM_PREFIX + name(depth),
                            p.client(shmSocket).sharedMemory(true).cpu(PeerTable.CLIENT_CPU))
                            : new PipelinedPeer(SHM_PREFIX + name(depth),
                                    p.client(shmSocket).sharedMemory(true).cpu(PeerTable.CLIENT_CPU), depth, depth),
                                    shmSocket);
                    cells.add(new Cell(SHM_PREFIX + name(depth), payload,
                            "sysframe client over a shared-memory channel, " + shm.peer().framing()
                            + " (server figures: the loop serving the channel)", calls, calls / 4,
                                    new ClientThreadsProbe(List.of(shm), new ChannelSide(shmServer))));
                    if (!cPeer) continue;
                    CPeer c = new CPeer("c-depth-" + depth, "sendmsg",
                            new CPeer.Options("block", PeerTable.CLIENT_CPU, depth, depth));
                    cells.add(new Cell(C_PREFIX + name(depth), payload,
                            "C client timed (a clock read per request, for latency), depth " + depth
                            + ", refilled " + depth + " at a time", calls, calls / 4,
                                    f.closing(c.probe(socket, side))));
                    CPeer lean = new CPeer("c-lean-depth-" + depth, "sendmsg",
                            CPeer.Options.lean("block", PeerTable.CLIENT_CPU, depth));
                    cells.add(new Cell(C_LEAN_PREFIX + name(depth), payload, lean.describe(), calls, calls / 4,
                            f.closing(lean.probe(socket, side))));
                    if (depth == SPINNING_DEPTH && payload == PAYLOADS[0]) {
                        PeerThread bare = f.peer(new JavaLeanPipelinePeer(JAVA_LEAN_PREFIX + name(depth),
                                PeerTable.CLIENT_CPU, depth), socket);
                        cells.add(new Cell(JAVA_LEAN_PREFIX + name(depth), payload, bare.peer().framing()
                                + ", pinned to cpu " + PeerTable.CLIENT_CPU, calls, calls / 4,
                                new ClientThreadsProbe(List.of(bare), side)));
                    }
                }
                if (payload == PAYLOADS[0]) addOneCorePair(f, p, socket, side, cPeer, quick, cells);
                addSpinningPair(f, p, payload, quick, cells);
            }
            List<Measurement> runs = run.measure(NAME, cells);
            List<String> notes = new ArrayList<>();
            if (cPeer) {
                notes.add("C rows: timed, latency measured per request; C lean and Java lean rows: no clock per request"
                        + " (p50/p99 read -)");
                String floor = floorNote(runs, PAYLOADS[0]);
                if (floor != null) notes.add(floor);
            } else {
                notes.add("C client rows left out: bench/target/sysframe_ping is not built (make builds it)");
            }
            return BenchTable.of(NAME, "pipelining depth (requests in flight, one send per refill)", "depth", name(1),
                    false, rounds, cells, runs, notes);
        }
    }

    /**
     * The note that splits the pipelined client's gap to C lean at {@link #SPINNING_DEPTH} and payload, across cores,
     * from the rounds of this run: the Java lean loop against the C one (the language's part: the same syscalls
     * through downcalls, the loop's code), sysframe's client against the Java loop (the library's part, with the
     * latency it times for one answer in {@value PipelinedPeer#SAMPLE_EVERY} and the echo's check of every answer),
     * and what timing every request costs C (the timed C client against C lean); null when a row is missing.
     */
    static String floorNote(List<Measurement> runs, int payload) {
        String mine = name(SPINNING_DEPTH);
        Interval language = GoalVerdict.interval(CALLS_RATIO, runs, JAVA_LEAN_PREFIX + mine, C_LEAN_PREFIX + mine,
                payload);
        Interval library = GoalVerdict.interval(CALLS_RATIO, runs, mine, JAVA_LEAN_PREFIX + mine, payload);
        Interval timing = GoalVerdict.interval(CALLS_RATIO, runs, C_PREFIX + mine, C_LEAN_PREFIX + mine, payload);
        if (language == null || library == null || timing == null) return null;
        return String.format(Locale.ROOT,
                "%d B, depth %d across cores: the C lean client's loop in Java runs at %s of the C one; sysframe's"
                + " pipelined client at %s of the Java loop; the C client timing every request at %s of C lean"
                + " (calls/s, estimate [95 %% interval] over the rounds)", payload, SPINNING_DEPTH,
                GoalVerdict.figure(language, CALLS_RATIO.unit()), GoalVerdict.figure(library, CALLS_RATIO.unit()),
                GoalVerdict.figure(timing, CALLS_RATIO.unit()));
    }

    /**
     * The one-core pair at {@link #SPINNING_DEPTH}, 32 B only: the blocking client of the rows above and the C lean
     * client, each pinned to the server loop's CPU. There a window's wake-ups are context switches on one CPU, no
     * cross-CPU wake-up: the calls per second are that CPU's time per request, the client's part of it what
     * differs.
     */
    private static void addOneCorePair(BenchFixture f, Pairing p, String socket, ServerSample.Source side,
            boolean cPeer, boolean quick, List<Cell> cells) throws IOException {
        int depth = SPINNING_DEPTH;
        long calls = (quick ? 600L : 3_000L) * depth;
        PeerThread t = f.peer(new PipelinedPeer(oneCore(depth), p.client(socket).cpu(PeerTable.SERVER_CPU), depth,
                depth), socket);
        cells.add(new Cell(oneCore(depth), PAYLOADS[0], "sysframe client, " + t.peer().framing()
                + ", pinned to the server loop's cpu " + PeerTable.SERVER_CPU, calls, calls / 4,
                        new ClientThreadsProbe(List.of(t), side)));
        if (!cPeer) return;
        CPeer lean = new CPeer("c-lean-one-core-" + depth, "sendmsg",
                CPeer.Options.lean("block", PeerTable.SERVER_CPU, depth));
        cells.add(new Cell(C_LEAN_PREFIX + oneCore(depth), PAYLOADS[0], lean.describe(), calls, calls / 4,
                f.closing(lean.probe(socket, side))));
    }

    /**
     * The spinning pair at {@link #SPINNING_DEPTH}: the socket row on a server whose loop waits
     * {@link #SPINNING_WAIT}, the channel's on a server whose channel does (its loop blocks by itself and
     * waits as its channel while it serves it); both clients wait so too, and refill a whole window, as
     * the rows above.
     */
    private static void addSpinningPair(BenchFixture f, Pairing p, int payload, boolean quick,
            List<Cell> cells) throws IOException {
        int depth = SPINNING_DEPTH;
        long calls = (quick ? 600L : 3_000L) * depth;
        WaitMode wait = WaitMode.parse(SPINNING_WAIT);
        String socket = f.socket("depth-spin-" + payload);
        GroutServer server = f.server(p.server(socket).waitMode(wait).cpus(PeerTable.SERVER_CPU));
        PeerThread t = f.peer(new PipelinedPeer(spinning(depth),
                p.client(socket).waitMode(wait).cpu(PeerTable.CLIENT_CPU), depth, depth), socket);
        cells.add(new Cell(spinning(depth), payload, "sysframe client, " + t.peer().framing()
                + ", client and server loop wait " + SPINNING_WAIT,
                calls, calls / 4, new ClientThreadsProbe(List.of(t), ServerSample.Source.of(server))));
        String shmSocket = f.socket("depth-spin-shm-" + payload);
        GroutServer shmServer = f.server(p.server(shmSocket).sharedMemory(true).sharedMemoryWaitMode(wait)
                .waitMode(WaitMode.BLOCK)
                .cpus(PeerTable.SERVER_CPU));
        PeerThread shm = f.peer(new PipelinedPeer(SHM_PREFIX + spinning(depth),
                p.client(shmSocket).sharedMemory(true).waitMode(wait).cpu(PeerTable.CLIENT_CPU), depth, depth),
                shmSocket);
        cells.add(new Cell(SHM_PREFIX + spinning(depth), payload, "sysframe client over a shared-memory channel, "
                + shm.peer().framing()
                + ", client and channel wait " + SPINNING_WAIT + " (server figures: the loop serving the channel)",
                        calls, calls / 4,
                new ClientThreadsProbe(List.of(shm), new ChannelSide(shmServer))));
    }
}
