package org.sysframe.bench.explore;

import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.peer.Pairing;
import org.sysframe.bench.table.PairingTable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Narrows a sweep's crossover by measuring between the two sizes its medians change side at: the
 * geometric middle of them, for the two crossing rows and the reference, in interleaved rounds of their
 * own, added to the table; then the crossover is found again, step after step.
 */
public final class Bisection {
    private Bisection() {}

    /**
     * The size halfway between lo and hi on a log2 axis, rounded to 8 bytes; 0 when none lies strictly between them.
     */
    static int midpoint(int lo, int hi) {
        long mid = Math.round(Math.sqrt((double) Math.max(lo, 1) * hi) / 8) * 8;
        if (mid <= lo || mid >= hi) mid = (lo + hi) / 2;
        return mid <= lo || mid >= hi ? 0 : (int) mid;
    }

    /** Measures rows at one payload size as a table of the sweep (real servers and clients, or a test's figures). */
    @FunctionalInterface
    interface Measure {
        BenchTable at(List<Pairing> rows, String reference, int payload) throws IOException;
    }

    /** Each row on an embedded server of its own, in the plan's rounds. */
    static Measure embedded(Sweep.Plan plan, String title, String rowKind) {
        return (rows, reference, payload) -> PairingTable.run(Sweep.NAME, title, rowKind, rows, reference,
                new int[] {payload}, plan.rounds(), plan.quick(), 1, Sweep.CALLS_SCALE);
    }

    /** The plan's run with up to steps sizes measured between the medians' bracket, and its crossover found again. */
    public static BenchRun refine(Sweep.Plan plan, BenchRun run, int steps, long startedNanos) throws IOException {
        BenchTable t = run.table(Sweep.NAME);
        return refine(plan, run, steps, startedNanos, embedded(plan, t.title(), t.rowKind()));
    }

    static BenchRun refine(Sweep.Plan plan, BenchRun run, int steps, long startedNanos,
            Measure measure) throws IOException {
        for (int i = 0; i < steps; i++) {
            BenchTable t = run.table(Sweep.NAME);
            Crossover c = run.crossovers(Sweep.NAME).get(0);
            if (c.outcome() != Crossover.Outcome.CROSSES) break;
            int mid = midpoint(c.below(), c.above());
            if (mid == 0 || t.payloads().contains(mid)) break;
            List<Pairing> rows = new ArrayList<>();
            for (Pairing p : plan.pairings()) {
                if (p.name().equals(c.a()) || p.name().equals(c.b()) || p.name().equals(t.reference())) rows.add(p);
            }
            BenchTable more = measure.at(rows, t.reference(), mid);
            BenchTable merged = merge(t, more, "bisection step " + (i + 1) + ": " + Limits.size(mid)
                    + " measured afterwards, for "
                    + String.join(", ", rows.stream().map(Pairing::name).toList())
                            + " only (their own interleaved rounds)");
            run = new BenchRun(run.machine(), run.rounds(), run.quick(), (System.nanoTime() - startedNanos) / 1e9,
                    run.serverLoops(), List.of(merged), run.goals(),
                    run.kernelUnavailable(), run.reproduce(), List.of()).withCrossovers(List.of(List.of(c.a(), c.b())));
        }
        return run;
    }

    /** One table of both tables' cells (sorted by size, stably) and runs, with a note. */
    static BenchTable merge(BenchTable t, BenchTable more, String note) {
        List<Cell> cells = new ArrayList<>(t.cells());
        cells.addAll(more.cells());
        cells.sort(Comparator.comparingInt(Cell::payload));
        List<Measurement> runs = new ArrayList<>(t.runs());
        runs.addAll(more.runs());
        List<String> notes = new ArrayList<>(t.notes());
        notes.add(note);
        return BenchTable.of(t.name(), t.title(), t.rowKind(), t.reference(), t.referenceOverRow(), t.rounds(), cells,
                runs, notes);
    }
}
