package org.sysframe.bench.report;

import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.DeviationRenderer;
import org.jfree.chart.ui.Layer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.YIntervalSeries;
import org.jfree.data.xy.YIntervalSeriesCollection;
import org.sysframe.bench.explore.Crossover;
import org.sysframe.bench.explore.Limits;
import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.CellSummary;
import org.sysframe.bench.measure.Spread;

import java.awt.BasicStroke;
import java.awt.Color;
import java.text.DecimalFormat;
import java.util.List;
import java.util.function.Function;

/**
 * A sweep drawn as lines over a numeric (log2) payload axis: one line per swept value through the
 * medians, with a band from min to max over the rounds, and each crossover marked: its uncertainty range
 * as a shaded interval, the medians' crossing as a vertical line.
 */
final class SweepChart {
    private SweepChart() {}

    /** calls/s of every row over payload size. */
    static JFreeChart callsPerSecond(BenchTable t, List<Crossover> crossovers) {
        return chart(t, crossovers, CellSummary::callsPerSec, t.title()
                + ": calls per second (median, band: min-max over rounds)", "calls/s");
    }

    /** Every row's calls/s over the reference's, per round, over payload size. */
    static JFreeChart ratio(BenchTable t, List<Crossover> crossovers) {
        return chart(t, crossovers, CellSummary::ratio, "calls/s over " + t.reference()
                + "'s, per round (median, band: min-max)", "ratio");
    }

    private static JFreeChart chart(BenchTable t, List<Crossover> crossovers, Function<CellSummary, Spread> figure,
            String title, String unit) {
        YIntervalSeriesCollection d = new YIntervalSeriesCollection();
        for (String name : t.names()) {
            YIntervalSeries s = new YIntervalSeries(name);
            for (int payload : t.payloads()) {
                CellSummary c = t.row(name, payload);
                if (c != null) s.add(x(payload), figure.apply(c).median(), figure.apply(c).min(),
                        figure.apply(c).max());
            }
            d.addSeries(s);
        }
        LogAxis sizes = new LogAxis("payload bytes (log scale; 0 drawn at 1)");
        sizes.setBase(2);
        sizes.setSmallestValue(1);
        sizes.setTickUnit(new NumberTickUnit(1)); // one tick per power of two...
        sizes.setNumberFormatOverride(new DecimalFormat("#,##0")); // ...labelled in bytes
        NumberAxis values = new NumberAxis(unit);
        values.setAutoRangeIncludesZero(false);
        DeviationRenderer r = new DeviationRenderer(true, true);
        r.setAlpha(0.18f);
        XYPlot plot = new XYPlot(d, sizes, values, r);
        for (Crossover c : crossovers) mark(plot, c);
        return new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    }

    private static void mark(XYPlot plot, Crossover c) {
        if (c.outcome() != Crossover.Outcome.CROSSES) return;
        IntervalMarker range = new IntervalMarker(x(c.clearFrom()), x(c.clearTo()), new Color(255, 200, 0, 60));
        range.setLabel(c.follower() + " overtakes " + c.leader());
        range.setLabelAnchor(RectangleAnchor.TOP_LEFT);
        range.setLabelTextAnchor(TextAnchor.TOP_LEFT);
        plot.addDomainMarker(range, Layer.BACKGROUND);
        ValueMarker at = new ValueMarker(Math.max(1, c.estimate()), Color.BLACK,
                new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 1, new float[] {6, 4}, 0));
        at.setLabel("medians cross near " + Limits.size(c.estimate()));
        at.setLabelAnchor(RectangleAnchor.BOTTOM_RIGHT);
        at.setLabelTextAnchor(TextAnchor.BOTTOM_LEFT);
        plot.addDomainMarker(at);
    }

    private static double x(int payload) { return Math.max(1, payload); }
}
