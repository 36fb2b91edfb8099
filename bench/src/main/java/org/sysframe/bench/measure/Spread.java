package org.sysframe.bench.measure;

import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleBiFunction;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Median and min-max of a set of per-round values: how a figure is summarised across rounds.
 */
public record Spread(double median, double min, double max, int n) {
    public static Spread of(double... values) {
        if (values.length == 0) return new Spread(Double.NaN, Double.NaN, Double.NaN, 0);
        double[] v = values.clone();
        Arrays.sort(v);
        int m = v.length / 2;
        double median = v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
        return new Spread(median, v[0], v[v.length - 1], v.length);
    }

    /** The spread of one figure over runs. */
    public static <T> Spread over(List<T> runs, ToDoubleFunction<T> figure) {
        return of(runs.stream().mapToDouble(figure).toArray());
    }

    /** The spread of a figure that compares run i with the reference's run i (a per-round ratio). */
    public static <T> Spread perRound(List<T> runs, List<T> reference,
                                      ToDoubleBiFunction<T, T> figure) {
        double[] v = new double[runs.size()];
        for (int i = 0; i < v.length; i++) v[i] = figure.applyAsDouble(runs.get(i), reference.get(i));
        return of(v);
    }

    /** Per kind, the median over runs of calls per transaction; NaN where a run has no counts. */
    public static <T> Map<SyscallKind, Double> medianPerCall(
            List<T> runs, Function<T, SyscallCounts> counts,
            ToLongFunction<T> calls) {
        Map<SyscallKind, Double> m = new EnumMap<>(SyscallKind.class);
        for (SyscallKind k : SyscallKind.values()) {
            m.put(k, over(runs, r -> {
                SyscallCounts c = counts.apply(r);
                return c == null ? Double.NaN : c.perCall(k, calls.applyAsLong(r));
            }).median());
        }
        return m;
    }

    /** Half the min-max range relative to the median, in percent: a rough noise figure. */
    public double halfRangePercent() {
        return median == 0 ? 0 : (max - min) / 2 / Math.abs(median) * 100;
    }
}
