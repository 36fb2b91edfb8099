package org.sysframe.bench.explore;

import org.junit.jupiter.api.Test;
import org.sysframe.bench.report.ReportsTest;
import org.sysframe.bench.cli.TuneCommand;
import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.Spread;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The crossover search and the tune rule as pure functions of synthetic spreads. */
class CrossoverAndTuneRuleTest {
    private static Crossover.Point at(int payload, double median, double min, double max) {
        return new Crossover.Point(payload, new Spread(median, min, max, 5));
    }

    @Test
    void theBracketRunsFromTheLastClearWinToTheFirstClearLoss() {
        List<Crossover.Point> p = List.of(
                at(4096, 0.97, 0.96, 0.99),   // given out of order: sorted by size
                at(256, 1.20, 1.10, 1.30),
                at(1024, 1.10, 1.02, 1.15),   // the last size copy wins clearly
                at(2048, 1.04, 0.98, 1.09),   // spreads hold 1
                at(3072, 0.98, 0.95, 1.01),   // spreads hold 1; the medians changed side between 2048 and 3072
                at(8192, 0.90, 0.85, 0.95));
        Crossover c = Crossover.find("sweep", "copy", "gather", p);
        assertEquals(Crossover.Outcome.CROSSES, c.outcome());
        assertEquals("copy", c.leader());
        assertEquals("gather", c.follower());
        assertEquals(1024, c.clearFrom());
        assertEquals(4096, c.clearTo());
        assertEquals(2, c.ties());
        assertEquals(2048, c.below());
        assertEquals(3072, c.above());
        // log2 interpolation: 11 + log2(1.5) * 0.04 / 0.06
        assertEquals(Math.pow(2, 11 + Math.log(1.5) / Math.log(2) * (0.04 / 0.06)), c.estimate(), 1e-6);
        assertEquals("copy stops paying off against gather between 1 KiB and 4 KiB here (spreads overlap at 2 sizes in "
                + "between);"
                + " medians cross near 2.6 KiB", c.text());
    }

    @Test
    void adjacentClearSidesAndTheOtherDirection() {
        Crossover c = Crossover.find("t", "a", "b",
                List.of(at(32, 0.8, 0.7, 0.9), at(64, 1.2, 1.1, 1.3), at(128, 0.9, 0.8, 0.95),
                at(256, 1.3, 1.2, 1.4)));
        assertEquals("b", c.leader(), "b wins the small sizes: the ratio a/b is below 1");
        assertEquals(32, c.clearFrom());
        assertEquals(64, c.clearTo());
        assertEquals(0, c.ties());
        assertEquals(32, c.below());
        assertEquals(64, c.above());
        assertEquals(Math.pow(2, 5.5), c.estimate(), 1e-9, "medians 0.8 and 1.2 cross halfway in log2");
        assertTrue(c.recrosses());
        assertEquals(3, c.medianChanges());
        assertEquals("b stops paying off against a between 32 B and 64 B here (no size measured in between); medians "
                + "cross near 45 B;"
                + " b wins clearly again at a larger size", c.text());
        Crossover exact = Crossover.find("t", "a", "b",
                List.of(at(0, 1.5, 1.2, 1.6), at(16, 1.0, 0.9, 1.1), at(64, 0.5, 0.4, 0.6)));
        assertEquals(0, exact.below());
        assertEquals(16, exact.above());
        assertEquals(16, exact.estimate(), 1e-9,
                "a median of exactly 1 is where they cross; size 0 counts as 1 on the log axis");
    }

    @Test
    void noCrossoverWhenOneSideOnlyOrNothingIsClear() {
        Crossover one = Crossover.find("t", "a", "b",
                List.of(at(32, 1.2, 1.1, 1.3), at(64, 1.0, 0.9, 1.1), at(128, 1.05, 0.99, 1.1)));
        assertEquals(Crossover.Outcome.NO_CROSSING, one.outcome());
        assertEquals("a", one.leader());
        assertEquals("a vs b: no crossover, a is ahead wherever the spreads do not overlap (the medians change side 0 "
                + "times between sizes)", one.text());
        Crossover none = Crossover.find("t", "a", "b", List.of(at(32, 1.2, 0.9, 1.3), at(64, 0.9, 0.8, 1.0)));
        assertEquals(Crossover.Outcome.UNSETTLED, none.outcome());
        assertNull(none.leader());
        assertEquals("a vs b: no crossover, the spreads overlap at every size measured (the medians change side 1 time "
                + "between sizes)", none.text());
    }

    private static Map<String, Spread> gains(Object... valueMedianMinMax) {
        Map<String, Spread> m = new LinkedHashMap<>();
        for (int i = 0; i < valueMedianMinMax.length; i += 4) {
            m.put((String) valueMedianMinMax[i], new Spread((double) valueMedianMinMax[i + 1],
                    (double) valueMedianMinMax[i + 2], (double) valueMedianMinMax[i + 3], 7));
        }
        return m;
    }

    @Test
    void tuneRecommendsOnlyAGainWhoseWholeSpreadClearsTheDefault() {
        TuneDecision d = TuneDecision.decide("copy-threshold", "1024",
                gains("256", 0.95, 0.90, 0.99, "4096", 1.06, 1.02, 1.09, "16384", 1.01, 0.97, 1.04));
        assertEquals(TuneDecision.Verdict.RECOMMEND, d.verdict());
        assertEquals("4096", d.recommended());
        assertEquals("copy-threshold: use 4096 instead of 1024, +6.0 % calls/s [+2.0 % to +9.0 %]", d.text());

        TuneDecision inside = TuneDecision.decide("readahead", "8192",
                gains("1024", 0.99, 0.96, 1.01, "65536", 1.03, 0.99, 1.08));
        assertEquals(TuneDecision.Verdict.NO_CLEAR_WINNER, inside.verdict());
        assertNull(inside.recommended());
        assertEquals("65536", inside.best());
        assertEquals("readahead: no clear winner, keep 8192: the best, 65536, gains +3.0 % calls/s [-1.0 % to +8.0 %], "
                + "inside the spread", inside.text());

        TuneDecision edge = TuneDecision.decide("flush", "deferred", gains("immediate", 1.05, 1.00, 1.10));
        assertEquals(TuneDecision.Verdict.NO_CLEAR_WINNER, edge.verdict(), "a min of exactly 1 is inside the spread");

        TuneDecision slower = TuneDecision.decide("flush", "deferred", gains("immediate", 0.9, 0.85, 0.95));
        assertEquals(TuneDecision.Verdict.KEEP_DEFAULT, slower.verdict());
        assertEquals("flush: keep deferred, every other value is clearly slower (best: immediate, -10.0 % calls/s "
                + "[-15.0 % to -5.0 %])", slower.text());

        TuneDecision two = TuneDecision.decide("copy-threshold", "1024",
                gains("4096", 1.06, 1.02, 1.09, "16384", 1.05, 1.03, 1.07, "256", 1.2, 0.8, 1.3));
        assertEquals(TuneDecision.Verdict.NO_CLEAR_WINNER, two.verdict(),
                "256 has the best median but not a clear gain");
        assertNull(two.recommended());
        TuneDecision rivals = TuneDecision.decide("copy-threshold", "1024",
                gains("4096", 1.06, 1.02, 1.09, "16384", 1.05, 1.03, 1.07));
        assertEquals(List.of("4096", "16384"), rivals.contenders());
        assertEquals("copy-threshold: no clear winner among 4096, 16384: each beats 1024, but their spreads overlap "
                + "(best 4096,"
                + " +6.0 % calls/s [+2.0 % to +9.0 %])", rivals.text());
    }

    @Test
    void tuneNeverRecommendsInsideTheSpreadOverManyRandomCases() {
        Random r = new Random(14);
        int recommended = 0;
        for (int i = 0; i < 20_000; i++) {
            Map<String, Spread> g = new LinkedHashMap<>();
            int n = 1 + r.nextInt(4);
            for (int k = 0; k < n; k++) {
                double lo = 0.85 + r.nextDouble() * 0.3, hi = lo + r.nextDouble() * 0.1;
                g.put("v" + k, new Spread(lo + (hi - lo) * r.nextDouble(), lo, hi, 7));
            }
            TuneDecision d = TuneDecision.decide("p", "held", g);
            if (d.recommended() == null) continue;
            recommended++;
            Spread s = g.get(d.recommended());
            assertTrue(s.min() > 1, d.text());
            for (Map.Entry<String, Spread> e : g.entrySet()) {
                if (e.getKey().equals(d.recommended()) || e.getValue().min() <= 1) continue;
                assertTrue(e.getValue().max() < s.min(), "another clear gain overlaps the recommended one: " + g);
            }
        }
        assertTrue(recommended > 1000, "the rule does recommend when it can: " + recommended);
    }

    @Test
    void gainIsTheDefaultsTimePerWorkloadCallOverTheCandidates() {
        List<Cell> cells = new ArrayList<>();
        List<Measurement> runs = new ArrayList<>();
        for (int size : new int[] {32, 1024}) {
            cells.add(new Cell(TuneCommand.DEFAULTS, size, "", 1000, 0, null));
            cells.add(new Cell("readahead=1024", size, "", 1000, 0, null));
        }
        for (int round = 1; round <= 5; round++) {
            for (int size : new int[] {32, 1024}) {
                // defaults: 10000/s at 32 B, 5000/s at 1 KiB; the candidate 12500/s and 4000/s, and 1 % faster per
                // round
                runs.add(ReportsTest.run(TuneCommand.DEFAULTS, size, round, size == 32 ? 1000 : 500, 1, 1, 1));
                runs.add(ReportsTest.run("readahead=1024", size, round,
                        Math.round((size == 32 ? 1250 : 400) * (1 + 0.01 * round)), 1, 1, 1));
            }
        }
        BenchTable t = BenchTable.of(TuneCommand.NAME, "t", "setting", TuneCommand.DEFAULTS, false, 5, cells, runs,
                List.of());
        Workload w = new Workload(new int[] {32, 1024}, new double[] {0.75, 0.25}, "mix");
        Spread g = TuneCommand.gain(t, w, "readahead=1024");
        double base = 0.75 / 10_000 + 0.25 / 5_000;
        assertEquals(base / (0.75 / (12_500 * 1.01) + 0.25 / (4_000 * 1.01)), g.min(), 1e-3);
        assertEquals(base / (0.75 / (12_500 * 1.05) + 0.25 / (4_000 * 1.05)), g.max(), 1e-3);
        assertEquals(base / (0.75 / (12_500 * 1.03) + 0.25 / (4_000 * 1.03)), g.median(), 1e-3);
    }

    @Test
    void bisectionMeasuresHalfwayOnTheLogAxisAndMergesBySize() {
        assertEquals(2896, Bisection.midpoint(2048, 4096), "sqrt(2048 * 4096) = 2896.3, rounded to 8 bytes");
        assertEquals(48, Bisection.midpoint(32, 64));
        assertEquals(8, Bisection.midpoint(0, 64), "0 counts as 1");
        assertEquals(17, Bisection.midpoint(16, 18), "rounding to 8 lands on an end: the arithmetic middle");
        assertEquals(0, Bisection.midpoint(16, 17), "nothing strictly between");
        List<Cell> a = List.of(new Cell("x", 32, "", 1, 0, null), new Cell("x", 64, "", 1, 0, null));
        BenchTable t = BenchTable.of("sweep", "t", "p", "x", false, 5, a, runs("x", 32, 64), List.of());
        BenchTable more = BenchTable.of("sweep", "t", "p", "x", false, 5, List.of(new Cell("x", 48, "", 1, 0, null)),
                runs("x", 48), List.of());
        BenchTable m = Bisection.merge(t, more, "bisected");
        assertEquals(List.of(32, 48, 64), m.payloads());
        assertEquals(15, m.runs().size());
        assertEquals(5, m.runs("x", 48).size());
        assertEquals(List.of("bisected"), m.notes());
    }

    private static List<Measurement> runs(String cell, int... payloads) {
        List<Measurement> out = new ArrayList<>();
        for (int r = 1; r <= 5; r++) for (int p : payloads) out.add(ReportsTest.run(cell, p, r, 1000, 1, 1, 1));
        return out;
    }
}
