package org.sysframe.bench.measure;

import java.util.Arrays;

/**
 * A 95 % confidence interval of the centre of a set of per-round values, and the estimate itself:
 * the Hodges-Lehmann estimate (the median of every pairwise mean, Walsh averages) with the
 * distribution-free interval of the Wilcoxon signed-rank test. Ratios are taken on their logarithm
 * ({@link #ofRatios}), so that 2x and 0.5x lie at the same distance from 1 and a ratio's interval
 * is the exponential of the log-ratio's.
 *
 * <p>Why this one (see bench/README.md, "Goals"): it needs no normal distribution, only a symmetric
 * one (the log of a ratio of two figures that the machine disturbs alike); a bad round moves it by
 * one rank, not by its size; it needs about 2/3 of the rounds a median's order-statistic interval
 * needs for the same width (asymptotic relative efficiency 0.955 against 0.637 of the mean's); and
 * it is deterministic, no resampling seed. With fewer than 6 values no 95 % interval exists: the
 * interval is then the whole min-max range.
 *
 * @param estimate the centre (a ratio when built by {@link #ofRatios})
 * @param lo       lower end of the 95 % interval
 * @param hi       upper end
 * @param n        how many values it was computed from
 * @param log      true when the values were ratios taken on their logarithm
 */
public record Interval(double estimate, double lo, double hi, int n, boolean log) {

    /** Two-sided confidence level of every interval. */
    public static final double LEVEL = 0.95;

    /** The interval of ratios (all &gt; 0), computed on their logarithms. */
    public static Interval ofRatios(double... ratios) {
        double[] v = new double[ratios.length];
        for (int i = 0; i < v.length; i++) {
            if (!(ratios[i] > 0) || Double.isInfinite(ratios[i])) return empty(ratios.length, true);
            v[i] = Math.log(ratios[i]);
        }
        Interval l = ofValues(v);
        return new Interval(Math.exp(l.estimate), Math.exp(l.lo), Math.exp(l.hi), l.n, true);
    }

    /**
     * How many batches of consecutive rounds a verdict's interval is taken over ({@link #ofRatiosInBatches}):
     * 10, the lower end of the 10 to 30 batches that Schmeiser ("Batch size effects in the analysis of
     * simulation output", Operations Research 30, 1982) found best for a 95 % interval.
     */
    public static final int BATCHES = 10;

    /**
     * The interval of per-round ratios given in round order, taken on their logarithms over
     * {@link #BATCHES} batch means once there are at least two rounds per batch (fewer rounds: over the
     * rounds themselves, as {@link #ofRatios}). Rounds a few seconds apart are not independent on a
     * shared machine: a state of it that lasts seconds (what else runs, the hypervisor's) moves the
     * ratio of a whole stretch of rounds, and an interval over single rounds, which takes them as
     * independent, is then too narrow. The mean of a batch of consecutive rounds carries such a stretch
     * whole, so the batches' spread shows it; with independent rounds the batch interval is about as
     * wide as the per-round one (IntervalTest). {@link #n()} stays the number of rounds.
     */
    public static Interval ofRatiosInBatches(double... ratios) {
        double[] v = new double[ratios.length];
        for (int i = 0; i < v.length; i++) {
            if (!(ratios[i] > 0) || Double.isInfinite(ratios[i])) return empty(ratios.length, true);
            v[i] = Math.log(ratios[i]);
        }
        Interval l = ofValuesInBatches(v);
        return new Interval(Math.exp(l.estimate), Math.exp(l.lo), Math.exp(l.hi), l.n, true);
    }

    /** As {@link #ofRatiosInBatches}, of plain values in round order (e.g. syscalls per call). */
    public static Interval ofValuesInBatches(double... values) {
        if (values.length < 2 * BATCHES) return ofValues(values);
        Interval b = ofValues(batchMeans(values, BATCHES));
        return new Interval(b.estimate, b.lo, b.hi, values.length, false);
    }

    /** The means of batches consecutive runs of values, in order; their sizes differ by at most one. */
    static double[] batchMeans(double[] values, int batches) {
        int n = values.length;
        if (batches < 1 || batches > n) throw new IllegalArgumentException(batches + " batches of " + n + " values");
        double[] means = new double[batches];
        for (int i = 0; i < batches; i++) {
            int from = (int) ((long) i * n / batches), to = (int) ((long) (i + 1) * n / batches);
            double sum = 0;
            for (int j = from; j < to; j++) sum += values[j];
            means[i] = sum / (to - from);
        }
        return means;
    }

    /** The interval of plain values (e.g. syscalls per call), none NaN. */
    public static Interval ofValues(double... values) {
        for (double d : values) if (Double.isNaN(d) || Double.isInfinite(d)) return empty(values.length, false);
        int n = values.length;
        if (n == 0) return empty(0, false);
        double[] x = values.clone();
        Arrays.sort(x);
        long walsh = (long) n * (n + 1) / 2;
        double estimate = (walshSmallest(x, (walsh + 1) / 2) + walshSmallest(x, walsh / 2 + 1)) / 2;
        long k = criticalRank(n);
        if (k < 1) return new Interval(estimate, x[0], x[n - 1], n, false);
        return new Interval(estimate, walshSmallest(x, k), walshSmallest(x, walsh + 1 - k), n, false);
    }

    private static Interval empty(int n, boolean log) {
        return new Interval(Double.NaN, Double.NaN, Double.NaN, n, log);
    }

    /** True when the interval could be computed (no missing figure). */
    public boolean known() { return !Double.isNaN(estimate); }

    /**
     * The rank k of the Walsh averages whose k-th smallest and k-th largest bound the interval: the
     * largest k with P(W &lt; k) &lt;= 2.5 % for the signed-rank statistic W of n values; exact
     * (dynamic programming over the 2^n sign patterns) up to 400 values, the normal approximation
     * with continuity correction above. 0 when no such k exists (fewer than 6 values).
     */
    static synchronized long criticalRank(int n) {
        if (n < CRITICAL.length) {
            long k = CRITICAL[n];
            if (k >= 0) return k;
            return CRITICAL[n] = computeCriticalRank(n);
        }
        return computeCriticalRank(n);
    }

    private static final long[] CRITICAL = filled(401);

    private static long[] filled(int n) {
        long[] a = new long[n];
        Arrays.fill(a, -1);
        return a;
    }

    private static long computeCriticalRank(int n) {
        double alpha = (1 - LEVEL) / 2;
        if (n > 400) {
            double mean = n * (n + 1) / 4.0, sd = Math.sqrt(n * (n + 1) * (2.0 * n + 1) / 24);
            return Math.max(0, (long) Math.floor(mean - 1.959963984540054 * sd + 0.5));
        }
        int max = n * (n + 1) / 2;
        double[] count = new double[max + 1];
        count[0] = 1;
        for (int i = 1; i <= n; i++) {
            for (int s = Math.min(max, i * (i + 1) / 2); s >= i; s--) count[s] += count[s - i];
        }
        double total = Math.pow(2, n), cumulative = 0;
        long k = 0;
        for (int w = 0; w <= max; w++) {
            cumulative += count[w] / total;      // P(W <= w)
            if (cumulative > alpha) break;
            k = w + 1;                           // P(W < k) = P(W <= w) <= alpha
        }
        return k;
    }

    /**
     * The k-th smallest (1-based) of the n(n+1)/2 Walsh averages (x[i] + x[j]) / 2, i &lt;= j, of
     * sorted x: bisection on the value, counting the averages at or below it with two pointers, so
     * no array of n^2 averages is built.
     */
    static double walshSmallest(double[] x, long k) {
        double lo = x[0], hi = x[x.length - 1];
        if (countAtMost(x, lo) >= k) return lo;
        for (int i = 0; i < 200 && hi - lo > 1e-13 * Math.max(1, Math.abs(hi)); i++) {
            double mid = lo + (hi - lo) / 2;
            if (mid <= lo || mid >= hi) break;
            if (countAtMost(x, mid) >= k) hi = mid;
            else lo = mid;
        }
        return hi;
    }

    /** How many Walsh averages of sorted x are &lt;= t. */
    private static long countAtMost(double[] x, double t) {
        long c = 0;
        int j = x.length - 1;
        for (int i = 0; i < x.length; i++) {
            while (j >= i && x[i] + x[j] > 2 * t) j--;
            if (j < i) break;
            c += j - i + 1;
        }
        return c;
    }

    /**
     * How many values an interval would need to be as narrow as half its width times shrink (the
     * width falls with the square root of the values): the estimate of rounds a goal still needs.
     */
    public int needed(double halfWidthWanted) {
        double half = (log ? Math.log(hi) - Math.log(lo) : hi - lo) / 2;
        if (!(halfWidthWanted > 0) || Double.isNaN(half)) return Integer.MAX_VALUE;
        if (half <= halfWidthWanted) return n;
        double need = Math.ceil(n * (half / halfWidthWanted) * (half / halfWidthWanted));
        return need > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) need;
    }

    /** The interval's position of a value: its log when the interval is of ratios. */
    double scale(double v) { return log ? Math.log(v) : v; }
}
