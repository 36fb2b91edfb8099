package org.sysframe.bench;

import java.util.Arrays;

/** Median and min-max of a set of per-round values: how a figure is summarised across rounds. */
public record Spread(double median, double min, double max, int n) {
    public static Spread of(double... values) {
        if (values.length == 0) return new Spread(Double.NaN, Double.NaN, Double.NaN, 0);
        double[] v = values.clone();
        Arrays.sort(v);
        int m = v.length / 2;
        double median = v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
        return new Spread(median, v[0], v[v.length - 1], v.length);
    }

    /** Half the min-max range relative to the median, in percent: a rough noise figure. */
    public double halfRangePercent() {
        return median == 0 ? 0 : (max - min) / 2 / Math.abs(median) * 100;
    }
}
