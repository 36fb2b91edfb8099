package org.sysframe.bench.explore;

import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.Spread;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Where one strategy overtakes another over payload sizes, from the per-round ratio of their calls/s
 * at each measured size. A size is won clearly when the whole [min-max] of the ratio is on one side of 1,
 * and is a tie when the spread holds 1.
 *
 * <p>The crossover is the first change from sizes one side wins clearly to sizes the other side wins
 * clearly: {@code leader} wins clearly up to {@code clearFrom}, {@code follower} from {@code clearTo}
 * on, and every size measured between them is a tie: that range is the crossover's uncertainty.
 * Within it, the medians change side between {@code below} and {@code above}, and {@code estimate}
 * is where the line between those two medians crosses 1 on a log2 size axis.
 *
 * <p>Only the first crossover is reported; {@code recrosses} says whether the leader wins clearly again
 * at a larger size; {@code medianChanges} counts how often the medians change side of 1 from one size to
 * the next (a measure of noise when there is no clear crossover).
 *
 * @param table    the table the sizes come from
 * @param a        the strategy whose calls/s is the ratio's numerator
 * @param b        the one in the denominator
 * @param outcome  whether there is a crossover, and if not, why
 * @param leader   the strategy ahead at the small sizes (null unless CROSSES)
 * @param follower the one that overtakes it
 */
public record Crossover(String table, String a, String b, Outcome outcome, String leader, String follower,
                        int clearFrom, int clearTo, int ties, int below, int above, double estimate, boolean recrosses,
                        int medianChanges) {

    /** What the sizes show. */
    public enum Outcome {
        /** One side wins clearly at small sizes, the other at larger ones. */
        CROSSES,
        /** Wherever the spreads do not overlap, the same side wins (or they overlap everywhere). */
        NO_CROSSING,
        /** The spreads overlap at every size: nothing is clear. */
        UNSETTLED
    }

    /** a's calls/s over b's, round by round, at one size. */
    public record Point(int payload, Spread ratio) {
        /** +1 when a wins clearly, -1 when b does, 0 when the spread holds 1. */
        int side() { return ratio.min() > 1 ? 1 : ratio.max() < 1 ? -1 : 0; }
    }

    /** The crossover of a over b in a table with a row of each at every payload. */
    static Crossover in(BenchTable t, String a, String b) {
        List<Point> points = new ArrayList<>();
        for (int payload : t.payloads()) {
            List<Measurement> x = t.runs(a, payload), y = t.runs(b, payload);
            if (x.isEmpty() || x.size() != y.size()) continue;
            points.add(new Point(payload, Spread.perRound(x, y, (r, s) -> r.callsPerSecond() / s.callsPerSecond())));
        }
        return find(t.name(), a, b, points);
    }

    /** The first crossover of a over b in points (any order); a pure function of the spreads. */
    public static Crossover find(String table, String a, String b, List<Point> points) {
        List<Point> p = new ArrayList<>(points);
        p.sort(Comparator.comparingInt(Point::payload));
        int changes = 0;
        for (int i = 1; i < p.size(); i++) {
            if (Math.signum(p.get(i).ratio().median() - 1) * Math.signum(p.get(i - 1).ratio().median() - 1)
                    < 0) changes++;
        }
        int first = -1;
        for (int i = 0; i < p.size() && first < 0; i++) if (p.get(i).side() != 0) first = i;
        if (first < 0) return new Crossover(table, a, b, Outcome.UNSETTLED, null, null, -1, -1, 0, -1, -1, Double.NaN,
                false, changes);
        int side = p.get(first).side();
        int to = -1;
        for (int i = first + 1; i < p.size() && to < 0; i++) if (p.get(i).side() == -side) to = i;
        if (to < 0) return new Crossover(table, a, b, Outcome.NO_CROSSING, side > 0 ? a : b, null, -1, -1, 0, -1, -1,
                Double.NaN, false, changes);
        int from = to - 1;
        while (p.get(from).side() != side) from--;
        // The medians are on the leader's side at from and on the follower's at to: find where they change side.
        int k = from;
        while (sideOfMedian(p.get(k + 1), side) > 0) k++;
        double m0 = p.get(k).ratio().median() - 1, m1 = p.get(k + 1).ratio().median() - 1;
        double x0 = log2(p.get(k).payload()), x1 = log2(p.get(k + 1).payload());
        double estimate = Math.pow(2, x0 + (x1 - x0) * m0 / (m0 - m1));
        boolean recrosses = false;
        for (int i = to + 1; i < p.size(); i++) recrosses |= p.get(i).side() == side;
        return new Crossover(table, a, b, Outcome.CROSSES, side > 0 ? a : b, side > 0 ? b : a,
                p.get(from).payload(), p.get(to).payload(), to - from - 1, p.get(k).payload(), p.get(k + 1).payload(),
                estimate, recrosses, changes);
    }

    /** +1 when the median is strictly on side's side of 1, else -1. */
    private static int sideOfMedian(Point q, int side) { return (q.ratio().median() - 1) * side > 0 ? 1 : -1; }

    private static double log2(int payload) { return Math.log(Math.max(1, payload)) / Math.log(2); }

    private String medians() {
        return " (the medians change side " + medianChanges + (medianChanges == 1 ? " time" : " times")
                + " between sizes)";
    }

    /**
     * One sentence, e.g. {@code copy-threshold=8192 stops paying off against copy-threshold=256 between
     * 2 KiB and 4 KiB here (no size measured in between); medians cross near 2.9 KiB}.
     */
    public String text() {
        return switch (outcome) {
            case UNSETTLED -> a + " vs " + b + ": no crossover, the spreads overlap at every size measured" + medians();
            case NO_CROSSING -> a + " vs " + b + ": no crossover, " + leader
                    + " is ahead wherever the spreads do not overlap" + medians();
            case CROSSES -> String.format(Locale.ROOT,
                    "%s stops paying off against %s between %s and %s here (%s); medians cross near %s",
                    leader, follower, Limits.size(clearFrom), Limits.size(clearTo),
                    ties == 0 ? "no size measured in between" : "spreads overlap at " + ties
                            + (ties == 1 ? " size" : " sizes") + " in between",
                    Limits.size(estimate)) + (recrosses ? "; " + leader + " wins clearly again at a larger size" : "");
        };
    }
}
