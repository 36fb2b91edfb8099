package org.sysframe.bench.explore;

import org.junit.jupiter.api.Test;
import org.sysframe.bench.report.ReportsTest;
import org.sysframe.bench.cli.SweepCommand;
import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.peer.Pairing;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Bisection steps on a synthetic sweep whose two rows cross at 3000 B: where it measures, and the bracket it ends with.
 */
class BisectionTest {
    static final String A = "copy-threshold=256", B = "copy-threshold=8192";

    /** B's calls/s over A's: 1.2x per halving below 3000 B, spread +-0.5 % over five rounds. */
    static double ratio(int payload) { return 1 + 0.2 * (Math.log(3000.0 / payload) / Math.log(2)); }

    static BenchTable table(int... payloads) {
        List<Cell> cells = new ArrayList<>();
        List<Measurement> runs = new ArrayList<>();
        for (int p : payloads) {
            cells.add(new Cell(A, p, "", 1, 0, null));
            cells.add(new Cell(B, p, "", 1, 0, null));
        }
        for (int r = 1; r <= 5; r++) {
            for (int p : payloads) {
                runs.add(ReportsTest.run(A, p, r, 1_000_000, 1, 1, 1));
                runs.add(ReportsTest.run(B, p, r, Math.round(1_000_000 * ratio(p) * (1 + 0.0025 * (r - 3))), 1, 1, 1));
            }
        }
        return BenchTable.of(Sweep.NAME, "t", "copy-threshold", A, false, 5, cells, runs, List.of());
    }

    @Test
    void twoStepsNarrowTheBracketFromOneOctaveToTheSizesAroundTheCrossing() throws Exception {
        SweepSpec spec = SweepSpec.parse("copy-threshold=256,8192");
        Sweep.Plan plan = new Sweep.Plan(spec, Pairing.named("sysframe"), new int[] {1024, 2048, 4096, 8192},
                SweepCommand.pair(spec, ""), 5, true);
        BenchRun run = BenchRun.of("m", 5, true, 1, 1, List.of(table(1024, 2048, 4096, 8192)), null, null)
                .withCrossovers(List.of(plan.crossover()));
        Crossover before = run.crossovers().get(0);
        assertEquals(List.of(B, 2048, 4096, 2048, 4096),
                List.of(before.leader(), before.clearFrom(), before.clearTo(), before.below(), before.above()));

        List<String> measured = new ArrayList<>();
        Bisection.Measure fake = (rows, reference, payload) -> {
            measured.add(String.join("+", rows.stream().map(Pairing::name).toList()) + " vs " + reference + " at "
                    + payload);
            return table(payload);
        };
        BenchRun after = Bisection.refine(plan, run, 2, System.nanoTime(), fake);
        // sqrt(2048 * 4096) = 2896 (ratio 1.010: B still clear), then sqrt(2896 * 4096) = 3444, rounded to 3448 (0.960:
        // A clear)
        assertEquals(List.of(A + "+" + B + " vs " + A + " at 2896", A + "+" + B + " vs " + A + " at 3448"), measured);
        Crossover c = after.crossovers().get(0);
        assertEquals(List.of(B, 2896, 3448, 0, 2896, 3448),
                List.of(c.leader(), c.clearFrom(), c.clearTo(), c.ties(), c.below(), c.above()));
        BenchTable t = after.table(Sweep.NAME);
        assertEquals(List.of(1024, 2048, 2896, 3448, 4096, 8192), t.payloads());
        assertEquals(List.of("bisection step 1: 2.8 KiB measured afterwards, for " + A + ", " + B
                + " only (their own interleaved rounds)",
                "bisection step 2: 3.4 KiB measured afterwards, for " + A + ", " + B
                        + " only (their own interleaved rounds)"), t.notes());
        assertEquals(1, after.crossovers().size(), "the crossover is replaced, not added");
    }
}
