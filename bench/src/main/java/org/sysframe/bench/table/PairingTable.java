package org.sysframe.bench.table;

import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Goal;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.RoundRunner;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.peer.BenchFixture;
import org.sysframe.bench.peer.ClientThreadsProbe;
import org.sysframe.bench.peer.Pairing;
import org.sysframe.bench.peer.PeerThread;
import org.sysframe.transport.GroutServer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static org.sysframe.bench.measure.Goal.Metric.CALLS_RATIO;
import static org.sysframe.bench.measure.Goal.Metric.CPU_RATIO;

/**
 * The strategy matrix as a table: one embedded server and one sysframe client per pairing, a cell per
 * pairing and payload, ratios against the first pairing (the baseline).
 */
public final class PairingTable implements Table {
    public static final String NAME = "matrix";

    private static final List<Goal> GOALS = List.of(
            new Goal("seed patch: +10 % calls/s", NAME, "seed-v3", "baseline", 32, CALLS_RATIO, true, 1.10),
            new Goal("seed patch: 15 % less CPU", NAME, "seed-v3", "baseline", 32, CPU_RATIO, false, 0.85),
            new Goal("merged change: +10 % calls/s", NAME, "merged", "baseline", 32, CALLS_RATIO, true, 1.10),
            new Goal("merged change: 15 % less CPU", NAME, "merged", "baseline", 32, CPU_RATIO, false, 0.85));

    @Override
    public String name() { return NAME; }

    @Override
    public String about() {
        return "framing pairings over the payload sizes, a server each (--pairing, --baseline, --payloads)";
    }

    /** The built-in pairings' names: a --pairing names its own cells, which no goal names. */
    @Override
    public Set<String> cells() {
        Set<String> out = new LinkedHashSet<>();
        for (Pairing p : Pairing.standard()) out.add(p.name());
        return out;
    }

    @Override
    public List<Goal> goals() { return GOALS; }

    @Override
    public BenchTable run(TableRun run) throws IOException {
        try {
            return run(NAME, "framing pairings", "pairing", run.pairings(), run.reference(), run.payloads(),
                    run.rounds(), run.quick(), run.serverLoops(), 1, run.plan());
        } catch (UnsupportedOperationException e) {
            throw run.serverLoopsRefused(e);
        }
    }

    /** Calls per cell: enough for a stable median, fewer for big payloads. */
    public static long callsFor(int payload, boolean quick) {
        long n = payload <= 1024 ? 6_000 : payload <= 8192 ? 4_000 : 1_500;
        return quick ? n / 5 : n;
    }

    /**
     * A table named name of every pairing at every payload, each pairing on a server of its own, with
     * ratios against the pairing named reference; also what a sweep runs ({@link org.sysframe.bench.cli.SweepCommand}).
     * Each cell makes {@link #callsFor} x scale calls, x the pairing's depth (a pipelined cell is that much
     * faster per call): sweeps measure smaller differences than the matrix and run longer cells. No
     * rounds are added.
     */
    public static BenchTable run(String name, String title, String rowKind, List<Pairing> pairings, String reference,
                          int[] payloads, int rounds, boolean quick, int serverLoops, int scale) throws IOException {
        return run(name, title, rowKind, pairings, reference, payloads, rounds, quick, serverLoops, scale, null);
    }

    private static BenchTable run(String name, String title, String rowKind, List<Pairing> pairings, String reference,
                          int[] payloads, int rounds, boolean quick, int serverLoops, int scale,
                          RoundRunner.Plan plan) throws IOException {
        try (BenchFixture f = new BenchFixture(name)) {
            List<Cell.Probe> probes = new ArrayList<>();
            for (Pairing p : pairings) {
                String socket = f.socket("p" + probes.size());
                GroutServer server = f.server(p.server(socket).loops(serverLoops));
                PeerThread client = f.peer(p.peer(p.name(), socket), socket);
                probes.add(new ClientThreadsProbe(List.of(client), ServerSample.Source.of(server)));
            }
            List<Cell> cells = new ArrayList<>();
            for (int payload : payloads) {
                for (int i = 0; i < pairings.size(); i++) {
                    Pairing p = pairings.get(i);
                    long calls = callsFor(payload, quick) * scale * p.depth();
                    cells.add(new Cell(p.name(), payload, p.description() + " (" + p.framing() + loops(serverLoops)
                            + ")",
                            calls, calls / 2, probes.get(i)));
                }
            }
            List<Measurement> runs = RoundRunner.run(name, cells, rounds, plan);
            return BenchTable.of(name, title, rowKind, reference, false, rounds, cells, runs, List.of());
        }
    }

    static String loops(int n) { return n == 1 ? "" : ", " + n + " server loops"; }
}
