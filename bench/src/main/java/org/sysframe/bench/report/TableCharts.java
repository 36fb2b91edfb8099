package org.sysframe.bench.report;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.BoxAndWhiskerRenderer;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.statistics.DefaultBoxAndWhiskerCategoryDataset;
import org.sysframe.bench.explore.BenchRun;
import org.sysframe.bench.explore.Crossover;
import org.sysframe.bench.explore.Sweep;
import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.CellSummary;
import org.sysframe.bench.measure.GoalVerdict;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.Spread;
import org.sysframe.bench.table.DepthTable;
import org.sysframe.unix.SyscallKind;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.sysframe.bench.report.ChartImages.img;

/**
 * The charts of one table in {@code report.html} (JFreeChart, embedded as PNGs): calls/s, ratios and CPU
 * as boxes over the rounds, syscalls per call by kind, latency percentiles; the depth table's lines
 * against the number in flight, a sweep's lines with its crossovers.
 */
final class TableCharts {
    private TableCharts() {}

    /** The charts of table t of run, as inline PNGs: a sweep's lines, else the table's kind of charts. */
    static void append(StringBuilder sb, BenchRun run, BenchTable t) throws IOException {
        if (t.name().equals(Sweep.NAME)) sweep(sb, run, t);
        else charts(sb, t);
    }

    /** A sweep: its lines with min-max bands and the crossovers marked. */
    private static void sweep(StringBuilder sb, BenchRun run, BenchTable t) throws IOException {
        List<Crossover> crossovers = run.crossovers(t.name());
        sb.append(img(SweepChart.callsPerSecond(t, crossovers), 1100, 480));
        sb.append(img(SweepChart.ratio(t, crossovers), 1100, 480));
    }

    private static void charts(StringBuilder sb, BenchTable t) throws IOException {
        if (t.referenceOverRow()) {
            DefaultBoxAndWhiskerCategoryDataset calls = new DefaultBoxAndWhiskerCategoryDataset();
            DefaultBoxAndWhiskerCategoryDataset client = new DefaultBoxAndWhiskerCategoryDataset();
            for (CellSummary row : t.rows()) {
                List<Measurement> runs = t.runs(row.name(), row.payload());
                if (runs.isEmpty()) continue;
                calls.add(runs.stream().map(Measurement::callsPerSecond).toList(), row.payload() + " B", row.name());
                client.add(runs.stream().map(Measurement::clientCpuMicrosPerCall).toList(), row.payload() + " B",
                        row.name());
            }
            sb.append(
                    img(boxes(t.title()
                    + ": calls per second over the rounds (box: quartiles, line: median, whiskers: min-max)",
                    t.rowKind(), "calls/s", calls, false), 1100, 420));
            sb.append(
                    img(boxes(t.title()
                    + ": client CPU per call over the rounds (us on-CPU; box: quartiles, whiskers: min-max)",
                    t.rowKind(), "us per call", client, false), 1100, 420));
            return;
        }
        if (t.payloads().size() < 2) {
            spreadCharts(sb, t);
            return;
        }
        if (t.name().equals(DepthTable.NAME)) {
            depthCharts(sb, t);
            return;
        }
        DefaultBoxAndWhiskerCategoryDataset cpuBoxes = new DefaultBoxAndWhiskerCategoryDataset();
        for (String name : t.names()) {
            for (int payload : t.payloads()) {
                List<Measurement> runs = t.runs(name, payload); // not every row runs at every payload
                if (!runs.isEmpty()) cpuBoxes.add(runs.stream().map(Measurement::totalCpuMicrosPerCall).toList(), name,
                        payload + " B");
            }
        }
        sb.append(img(ratioBoxes(t), 1100, 480));
        sb.append(
                img(
                boxes("CPU per call, client + server, over the rounds (us on-CPU; box: quartiles, whiskers: min-max)",
                        "payload",
                "us per call", cpuBoxes, false), 1100, 450));
        sb.append(img(syscalls(t, true), 1100, 520));
        sb.append(img(syscalls(t, false), 1100, 520));
        sb.append(img(percentiles(t, t.payloads().get(Math.min(1, t.payloads().size() - 1))), 1100, 450));
    }

    /** Per-round ratio against the reference, as boxes (min-max whiskers) per row, one group per payload. */
    private static JFreeChart ratioBoxes(BenchTable t) {
        DefaultBoxAndWhiskerCategoryDataset d = new DefaultBoxAndWhiskerCategoryDataset();
        double lo = Double.POSITIVE_INFINITY, hi = 0;
        for (int payload : t.payloads()) {
            for (String name : t.names()) {
                // Paired by round: a cell given added rounds has more runs than the others.
                List<Measurement[]> pairs = GoalVerdict.pairs(t.runs(), name, t.reference(), payload);
                if (pairs.isEmpty()) continue;
                List<Double> ratios = new ArrayList<>();
                for (Measurement[] p : pairs) {
                    double x = p[0].callsPerSecond() / p[1].callsPerSecond();
                    ratios.add(x);
                    if (x > 0 && !Double.isInfinite(x)) {
                        lo = Math.min(lo, x);
                        hi = Math.max(hi, x);
                    }
                }
                d.add(ratios, name, payload + " B");
            }
        }
        JFreeChart c = boxes(t.title() + ": calls/s over " + t.reference()
                + "'s, per round (log axis; box: quartiles, whiskers: min-max)",
                "payload", "ratio", d, true);
        RatioAxis axis = new RatioAxis("ratio (log scale)");
        // Every round's ratio inside the axis, whiskers and outliers included (the automatic range cut off the top).
        if (hi > 0) axis.setRange(lo / 1.06, hi * 1.06);
        c.getCategoryPlot().setRangeAxis(axis);
        return c;
    }

    /** A box-and-whisker chart without mean dots (they hid the boxes): median line, quartile box, min-max whiskers. */
    private static JFreeChart boxes(String title, String category, String value, DefaultBoxAndWhiskerCategoryDataset d,
            boolean legend) {
        JFreeChart c = ChartFactory.createBoxAndWhiskerChart(title, category, value, d, legend);
        if (c.getCategoryPlot().getRenderer() instanceof BoxAndWhiskerRenderer r) {
            r.setMeanVisible(false);
            r.setMedianVisible(true);
            r.setMaxOutlierVisible(false);
            r.setMinOutlierVisible(false);
            r.setUseOutlinePaintForWhiskers(false);
            r.setFillBox(true);
        }
        return c;
    }

    /**
     * One side's syscalls per call by kind (library counts; the client's kernel counts for a peer
     * without its own), a stacked bar per row and payload: client and server apart, so each chart's
     * colours are the kinds of one side only.
     */
    private static JFreeChart syscalls(BenchTable t, boolean client) {
        DefaultCategoryDataset sys = new DefaultCategoryDataset();
        for (int payload : t.payloads()) {
            for (String name : t.names()) {
                CellSummary c = t.row(name, payload);
                if (c == null) continue;
                for (SyscallKind k : SyscallKind.values()) {
                    sys.addValue((client ? c.clientSyscalls() : c.serverSyscalls()).get(k), k.kernelName(), name + " "
                            + payload + " B");
                }
            }
        }
        ChartImages.removeEmptyRows(sys);
        JFreeChart c = ChartFactory.createStackedBarChart((client ? "Client syscalls per call"
                : "Server syscalls per request")
                + " by kind (library counts)", "", "syscalls per call", sys, PlotOrientation.VERTICAL, true, false,
                        false);
        c.getCategoryPlot().getDomainAxis().setCategoryLabelPositions(CategoryLabelPositions.UP_45);
        return c;
    }

    /** Latency percentiles of every row at one payload (medians over the rounds), from HdrHistogram. */
    private static JFreeChart percentiles(BenchTable t, int payload) {
        DefaultCategoryDataset d = new DefaultCategoryDataset();
        for (String name : t.names()) {
            List<Measurement> runs = t.runs(name, payload);
            if (runs.isEmpty()) continue;
            d.addValue(Spread.over(runs, m -> m.p50Nanos() / 1e3).median(), name, "p50");
            d.addValue(Spread.over(runs, m -> m.p90Nanos() / 1e3).median(), name, "p90");
            d.addValue(Spread.over(runs, m -> m.p99Nanos() / 1e3).median(), name, "p99");
            d.addValue(Spread.over(runs, m -> m.p999Nanos() / 1e3).median(), name, "p99.9");
        }
        return ChartFactory.createLineChart(t.title() + ": round-trip latency percentiles at " + payload
                + " B (median over rounds)",
                "percentile", "us", d, PlotOrientation.VERTICAL, true, false, false);
    }

    /** Calls/s and latency (p50, p99) against the number in flight, one line per client and payload. */
    private static void depthCharts(StringBuilder sb, BenchTable t) throws IOException {
        DefaultCategoryDataset cps = new DefaultCategoryDataset();
        DefaultCategoryDataset lat = new DefaultCategoryDataset();
        for (int payload : t.payloads()) {
            for (String client : new String[] {"", DepthTable.C_PREFIX}) {
                String who = (client.isEmpty() ? "sysframe " : "C ") + payload + " B";
                for (int depth : DepthTable.DEPTHS) {
                    CellSummary c = t.row(client + DepthTable.name(depth), payload);
                    if (c == null) continue;
                    cps.addValue(c.callsPerSec().median(), who, Integer.toString(depth));
                    lat.addValue(c.p50Micros().median(), who + " p50", Integer.toString(depth));
                    lat.addValue(c.p99Micros().median(), who + " p99", Integer.toString(depth));
                }
            }
        }
        sb.append(img(ChartFactory.createLineChart(t.title()
                + ": calls per second (median) against requests in flight", "depth",
                "calls/s", cps, PlotOrientation.VERTICAL, true, false, false), 1100, 450));
        sb.append(
                img(
                ChartFactory.createLineChart("Per-request latency (median of the rounds' p50 and p99) against requests "
                        + "in flight", "depth",
                "us", lat, PlotOrientation.VERTICAL, true, false, false), 1100, 450));
    }

    /**
     * One payload: calls/s and CPU per call of every row as boxes over its rounds (median, quartiles,
     * and min-max whiskers), so the spread is seen with the figure.
     */
    private static void spreadCharts(StringBuilder sb, BenchTable t) throws IOException {
        DefaultBoxAndWhiskerCategoryDataset cps = new DefaultBoxAndWhiskerCategoryDataset();
        DefaultBoxAndWhiskerCategoryDataset cpu = new DefaultBoxAndWhiskerCategoryDataset();
        for (String name : t.names()) {
            List<Double> calls = new ArrayList<>(), micros = new ArrayList<>();
            for (Measurement m : t.runs()) {
                if (!m.cell().equals(name)) continue;
                calls.add(m.callsPerSecond());
                micros.add(m.totalCpuMicrosPerCall());
            }
            if (calls.isEmpty()) continue;
            cps.add(calls, "calls/s", name);
            cpu.add(micros, "CPU us per call", name);
        }
        for (var chart : List.of(
                boxes(t.title()
                + ": calls per second over the rounds (box: quartiles, line: median, whiskers: min-max)", t.rowKind(),
                "calls/s", cps, false),
                boxes(t.title() + ": CPU per call, client + server, over the rounds", t.rowKind(), "us per call", cpu,
                        false))) {
            chart.getCategoryPlot().getDomainAxis().setCategoryLabelPositions(CategoryLabelPositions.UP_45);
            sb.append(img(chart, 1100, 480));
        }
    }
}
