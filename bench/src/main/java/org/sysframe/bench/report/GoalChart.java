package org.sysframe.bench.report;

import org.sysframe.bench.explore.Limits;
import org.sysframe.bench.measure.Goal;
import org.sysframe.bench.measure.GoalVerdict;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.sysframe.bench.report.ChartImages.esc;

/**
 * Every goal of a run in one SVG, the same drawing inline in {@code report.html} and as
 * {@code docs/results.svg} under the README ({@code ./sysframe results --readme}): one row per goal,
 * its estimate (a dot) and 95 % interval (a bar) against its threshold (a black mark with a notch
 * on its good side, or a level goal's shaded band), coloured by verdict, grouped by table. The label
 * is the goal's name and payload; beside the plot, the figures and the verdict in words.
 *
 * <p>Two sections, because two kinds of figure share no axis. A ratio of two rows (calls/s, CPU,
 * p99 of one row over another's) is drawn at its own value on a common log axis with ticks at
 * powers of two, where 0.5x and 2x lie equally far from 1. A row's own figure (syscalls per call,
 * p50 in microseconds, KiB per connection) has a unit of its own, a threshold anywhere from 0.0005
 * to 4, and is often exactly 0 (no syscall per call), which no log axis can show: each is divided by
 * its threshold and drawn on a linear axis from 0 to twice the threshold, its real value and unit in
 * the text beside it.
 *
 * <p>No text is cut: the label column is as wide as its longest line (names wrap at
 * {@value #LABEL_CHARS} characters), the figure and verdict columns as wide as their longest text,
 * each estimated generously from the character count, and the drawing scales to its box (viewBox).
 */
public final class GoalChart {
    private GoalChart() {}

    /**
     * One goal as the chart draws it, from a verdict of this run ({@link #row(GoalVerdict)}) or from a
     * run.json's goal ({@link #row(Map)}).
     *
     * @param ratio true for a ratio of two rows (the log section), false for a row's own figure
     * @param unit  the figure's unit as printed after it: {@code x} for a ratio, e.g. {@code  us}
     * @param line  the goal's one-line verdict, the row's tooltip
     */
    public record Row(String table, String name, int payload, boolean ratio, String unit, boolean atLeast,
                      double threshold, double margin, double estimate, double lo, double hi, Goal.Status status,
                      String line) {
        /** The goal's name and its payload, e.g. {@code one at a time: at least 0.97x C lean · 1 KiB}. */
        public String label() { return GoalChart.label(name, payload); }

        boolean level() { return margin > 0; }
    }

    /** A goal's name with its payload, so that the same goal at 32 B and at 1 KiB reads differently. */
    public static String label(String name, int payload) { return name + " · " + Limits.size(payload); }

    static Row row(GoalVerdict v) {
        Goal g = v.goal();
        return new Row(g.table(), g.name(), g.payload(), g.metric().isRatio(), unit(g.metric()), g.atLeast(),
                g.threshold(), g.margin(), v.ci().estimate(), v.ci().lo(), v.ci().hi(), v.status(), v.line());
    }

    static List<Row> rows(List<GoalVerdict> goals) { return goals.stream().map(GoalChart::row).toList(); }

    /**
     * A goal of a run.json (as {@link ResultFiles} writes it) as a row; an
     * {@link IllegalArgumentException} naming the key that is missing or of the wrong kind.
     */
    public static Row row(Map<String, Object> g) {
        String metricLabel = text(g, "metric");
        Goal.Metric metric = null;
        for (Goal.Metric m : Goal.Metric.values()) if (m.label().equals(metricLabel)) metric = m;
        // A metric this build does not know (a run.json of another version): a ratio when its want ends in x.
        boolean ratio = metric == null ? text(g, "want").endsWith("x") : metric.isRatio();
        String kind = text(g, "kind");
        Goal.Status status = null;
        for (Goal.Status s : Goal.Status.values()) if (s.label().equals(text(g, "status"))) status = s;
        if (status == null) {
            throw new IllegalArgumentException("goal " + g.get("name") + ": status " + g.get("status")
                    + " is not a verdict");
        }
        return new Row(text(g, "table"), text(g, "name"), (int) number(g, "payload"), ratio,
                metric == null ? (ratio ? "x" : "") : unit(metric), !kind.equals("at_most"), number(g, "threshold"),
                number(g, "margin"), number(g, "estimate"), number(g, "ci_lo"), number(g, "ci_hi"), status,
                text(g, "line"));
    }

    private static String text(Map<String, Object> g, String key) {
        if (g.get(key) instanceof String s) return s;
        throw new IllegalArgumentException("a goal without a text '" + key + "'");
    }

    private static double number(Map<String, Object> g, String key) {
        Object v = g.get(key);
        if (v instanceof Number n) return n.doubleValue();
        if (v == null && g.containsKey(key)) return Double.NaN; // an interval not known is written as null
        throw new IllegalArgumentException("a goal without a number '" + key + "'");
    }

    /** The unit printed after a figure: x for a ratio, the figure's own for the others. */
    static String unit(Goal.Metric m) {
        return switch (m) {
            case CLIENT_SYSCALLS_PER_CALL, SERVER_SYSCALLS_PER_CALL -> " syscalls";
            default -> m.unit();
        };
    }

    // Layout, in pixels of a 12 px sans-serif font. A character is estimated at 6.6 px (7.4 bold, 9 a bold
    // capital as in NOT SETTLED, 8 in the 13 px title): about a tenth more than DejaVu Sans, the widest of
    // the usual fonts, takes on average.
    static final int LABEL_CHARS = 48;
    static final double CAPS = 9.0;
    private static final double CHAR = 6.6, BOLD = 7.4, DIGIT = 6.6, TITLE = 8.0;
    private static final int PAD = 8, GAP = 14, PLOT = 300, LINE = 15, ROW_PAD = 7, HEADING = 24, AXIS = 20;

    /** The colour of a verdict: green met or level, red missed, amber not settled. */
    static String colour(Goal.Status s) {
        return switch (s) {
            case MET, LEVEL -> "#1a7f37";
            case MISSED -> "#cf222e";
            case NOT_SETTLED -> "#b35900";
        };
    }

    /** The chart of the goals of one run, title first. */
    public static String svg(List<Row> goals, String title) {
        List<Row> ratios = grouped(goals.stream().filter(Row::ratio).toList());
        List<Row> own = grouped(goals.stream().filter(r -> !r.ratio()).toList());
        double labelWidth = 0, figureWidth = 0, verdictWidth = 0;
        for (Row r : goals) {
            for (String l : lines(r)) labelWidth = Math.max(labelWidth, l.length() * CHAR);
            labelWidth = Math.max(labelWidth, r.table().length() * BOLD);
            figureWidth = Math.max(figureWidth, figure(r).length() * DIGIT);
            verdictWidth = Math.max(verdictWidth, r.status().label().length() * CAPS);
        }
        double plotX = PAD + labelWidth + GAP, figureX = plotX + PLOT + GAP, verdictX = figureX + figureWidth + GAP;
        int width = (int) Math.ceil(Math.max(verdictX + verdictWidth + PAD, PAD + legendWidth(goals) + PAD));
        width = (int) Math.ceil(Math.max(width, PAD + title.length() * TITLE + PAD));
        Layout l = new Layout(width, plotX, figureX, verdictX);

        StringBuilder body = new StringBuilder();
        double y = header(body, goals, title);
        if (!ratios.isEmpty()) {
            double lo = Double.POSITIVE_INFINITY, hi = Double.NEGATIVE_INFINITY;
            for (Row r : ratios) {
                double band = r.level() ? 1 + r.margin() : r.threshold();
                for (double v : new double[] {r.lo(), r.hi(), r.estimate(), r.threshold(), band}) {
                    if (v > 0 && !Double.isInfinite(v)) {
                        lo = Math.min(lo, v);
                        hi = Math.max(hi, v);
                    }
                }
            }
            Axis log = Axis.log(lo, hi);
            y = section(body, l, ratios, log, y,
                    "Ratios of two rows (log scale): estimate and 95 % interval against the threshold",
                    "ratio of the two rows, per round (1: level; the notch on a threshold points to its good side)");
        }
        if (!own.isEmpty()) {
            y = section(body, l, own, Axis.OVER_THRESHOLD, y + 10,
                    "A row's own figure (syscalls per call, latency, memory), over its threshold (linear scale)",
                    "figure / threshold (0: none at all; 1: the threshold; the real figure and its unit on the right)");
        }
        int height = (int) Math.ceil(y + PAD);
        return f("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"goals\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Liberation Sans, Helvetica, Arial, sans-serif\""
                + " font-size=\"12\" role=\"img\">%n"
                + "<title>%s</title>%n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>%n",
                width, height, width, height, esc(title)) + body + "</svg>\n";
    }

    /** String.format in the root locale (a decimal point whatever the machine's language). */
    private static String f(String format, Object... args) { return String.format(Locale.ROOT, format, args); }

    /** The columns' left edges and the drawing's width. */
    private record Layout(int width, double plotX, double figureX, double verdictX) {
        double x(double p) { return plotX + PLOT * p; }
    }

    /** The goals of each table together, the tables in the order they first appear. */
    private static List<Row> grouped(List<Row> rows) {
        Map<String, List<Row>> byTable = new LinkedHashMap<>();
        for (Row r : rows) byTable.computeIfAbsent(r.table(), t -> new ArrayList<>()).add(r);
        return byTable.values().stream().flatMap(List::stream).toList();
    }

    /** The title and the legend; where the sections begin. */
    private static double header(StringBuilder sb, List<Row> goals, String title) {
        sb.append(f("<text x=\"%d\" y=\"18\" font-weight=\"bold\" font-size=\"13\">%s</text>%n", PAD, esc(title)));
        double x = PAD;
        int y = 40;
        for (Object[] item : legend(goals)) {
            String colour = (String) item[0], text = (String) item[1];
            sb.append(f("<circle cx=\"%.1f\" cy=\"%d\" r=\"5\" fill=\"%s\"/><text x=\"%.1f\" y=\"%d\">%s</text>%n",
                    x + 5, y - 4, colour, x + 14, y, esc(text)));
            x += 14 + text.length() * CHAR + 18;
        }
        sb.append(threshold(x + 2, y - 11, y + 1, 1));
        String mark = "threshold, notched on its good side";
        sb.append(f("<text x=\"%.1f\" y=\"%d\">%s</text>%n", x + 14, y, mark));
        x += 14 + mark.length() * CHAR + 18;
        sb.append(f("<rect x=\"%.1f\" y=\"%d\" width=\"22\" height=\"12\" fill=\"#cfe3f7\"/>"
                + "<text x=\"%.1f\" y=\"%d\">a level goal's band</text>%n", x, y - 10, x + 28, y));
        return y + 12;
    }

    /** The legend's entries: colour and text, one per verdict with its count. */
    private static List<Object[]> legend(List<Row> goals) {
        long ok = goals.stream().filter(r -> r.status() == Goal.Status.MET || r.status() == Goal.Status.LEVEL).count();
        long missed = goals.stream().filter(r -> r.status() == Goal.Status.MISSED).count();
        long open = goals.size() - ok - missed;
        return List.of(new Object[] {colour(Goal.Status.MET), ok + " met or level"},
                new Object[] {colour(Goal.Status.MISSED), missed + " missed"},
                new Object[] {colour(Goal.Status.NOT_SETTLED), open + " not settled"});
    }

    private static double legendWidth(List<Row> goals) {
        double w = 0;
        for (Object[] item : legend(goals)) w += 14 + ((String) item[1]).length() * CHAR + 18;
        return w + 14 + "threshold, notched on its good side".length() * CHAR + 18 + 28
                + "a level goal's band".length() * CHAR;
    }

    /** One section: its title, the axis, a heading per table and a row per goal, the axis again with its caption. */
    private static double section(StringBuilder sb, Layout l, List<Row> rows, Axis axis, double top, String title,
                                  String caption) {
        double y = top + 22;
        sb.append(f("<text x=\"%d\" y=\"%.1f\" font-weight=\"bold\">%s</text>%n", PAD, y, esc(title)));
        y += 8;
        double gridTop = y + AXIS;
        ticks(sb, l, axis, y + 14);
        y += AXIS;
        StringBuilder grid = new StringBuilder(), marks = new StringBuilder();
        String table = null;
        int n = 0;
        for (Row r : rows) {
            if (!r.table().equals(table)) {
                table = r.table();
                marks.append(f("<text x=\"%d\" y=\"%.1f\" font-weight=\"bold\" fill=\"#57606a\">%s</text>%n",
                        PAD, y + HEADING - 7, esc(table)));
                y += HEADING;
            }
            List<String> lines = lines(r);
            double h = lines.size() * LINE + ROW_PAD, mid = y + h / 2;
            if (n++ % 2 == 0) {
                grid.append(f("<rect x=\"0\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"#f3f5f7\"/>%n",
                        y, l.width(), h));
            }
            marks.append("<g><title>").append(esc(r.line())).append("</title>\n");
            for (int i = 0; i < lines.size(); i++) {
                double baseline = y + ROW_PAD / 2.0 + LINE * (i + 1) - 3.5;
                marks.append(f("<text x=\"%d\" y=\"%.1f\">%s</text>%n", PAD + 6, baseline, esc(lines.get(i))));
            }
            row(marks, l, axis, r, y + 3, y + h - 3, mid);
            marks.append("</g>\n");
            y += h;
        }
        // Grid lines under the rows' marks, from the axis to the last row.
        for (double t : axis.ticks) {
            double x = l.x(axis.position(t));
            grid.append(f("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>%n",
                    x, gridTop - 4, x, y + 4, t == 1 ? "#8c959f" : "#d0d7de"));
        }
        sb.append(grid).append(marks);
        ticks(sb, l, axis, y + 18);
        sb.append(f("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#57606a\">%s</text>%n",
                l.x(0.5), y + 36, esc(caption)));
        return y + 36;
    }

    private static void ticks(StringBuilder sb, Layout l, Axis axis, double y) {
        for (double t : axis.ticks) {
            sb.append(f("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#57606a\">%s</text>%n",
                    l.x(axis.position(t)), y, tick(t)));
        }
    }

    /** One goal's marks between top and bottom: band or threshold, interval, estimate, arrows, figures and verdict. */
    private static void row(StringBuilder sb, Layout l, Axis axis, Row r, double top, double bottom, double mid) {
        String colour = colour(r.status());
        if (r.level()) {
            double a = l.x(clamp(axis.position(r, 1 - r.margin()))), b = l.x(clamp(axis.position(r, 1 + r.margin())));
            sb.append(f("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#cfe3f7\"/>%n",
                    a, top, b - a, bottom - top));
        } else {
            double t = axis.position(r, r.threshold());
            if (t >= 0 && t <= 1) sb.append(threshold(l.x(t), top, bottom, r.atLeast() ? 1 : -1));
        }
        double lo = axis.position(r, r.lo()), hi = axis.position(r, r.hi()), e = axis.position(r, r.estimate());
        if (!Double.isNaN(lo) && !Double.isNaN(hi) && !Double.isNaN(e)) {
            double x1 = l.x(clamp(Math.min(lo, hi))), x2 = l.x(clamp(Math.max(lo, hi)));
            sb.append(f("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"4\""
                    + " stroke-linecap=\"round\"/>%n", x1, mid, Math.max(x2, x1 + 1), mid, colour));
            sb.append(f("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"%s\" stroke=\"#fff\"/>%n",
                    l.x(clamp(e)), mid, colour));
            if (Math.max(lo, hi) > 1) sb.append(arrow(l.x(1) + 2, mid, 1, colour));
            if (Math.min(lo, hi) < 0) sb.append(arrow(l.x(0) - 2, mid, -1, colour));
        }
        sb.append(f("<text x=\"%.1f\" y=\"%.1f\">%s</text>%n", l.figureX(), mid + 4, esc(figure(r))));
        sb.append(f("<text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\" fill=\"%s\">%s</text>%n", l.verdictX(),
                mid + 4, colour, esc(r.status().label())));
    }

    /** The threshold's mark: a vertical bar with a notch on the good side (dir 1: right, an "at least" goal). */
    private static String threshold(double x, double top, double bottom, int dir) {
        return f("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#1f2328\" stroke-width=\"2\"/>"
                + "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"#1f2328\"/>%n",
                x, top, x, bottom, x, top, x + 6 * dir, top + 3.5, x, top + 7);
    }

    private static String arrow(double x, double y, int dir, String colour) {
        return f("<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\"/>%n",
                x + 8 * dir, y, x, y - 5, x, y + 5, colour);
    }

    private static double clamp(double p) { return Math.max(0, Math.min(1, p)); }

    /** e.g. {@code 0.964x [0.889-0.979] ≥ 0.97x}, {@code 0.031 [0.031-0.031] ≤ 0.0413 syscalls}. */
    static String figure(Row r) {
        String want = r.level() ? " level " + bound(1 - r.margin()) + "-" + bound(1 + r.margin())
                : (r.atLeast() ? " ≥ " : " ≤ ") + bound(r.threshold());
        String interval = " [" + GoalVerdict.number(r.lo()) + "-" + GoalVerdict.number(r.hi()) + "]";
        // A ratio's x after the estimate too (1.667x); a figure with a unit says it once, at the end.
        return GoalVerdict.number(r.estimate()) + (r.ratio() ? r.unit() : "") + interval + want + r.unit();
    }

    /** A threshold as it is written: 1.10, 0.97, 0.0005, 0.0413. */
    static String bound(double v) {
        return String.format(Locale.ROOT, "%.4f", v).replaceAll("(\\.\\d\\d)0+$", "$1");
    }

    /** A tick's label: 0.125, 0.25, 0.5, 1, 1.5, 2, 4, 64, 1/16. */
    static String tick(double v) {
        if (v > 0 && v < 0.1) return "1/" + Math.round(1 / v);
        String s = String.format(Locale.ROOT, "%.3f", v).replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }

    /**
     * The ticks of a ratio's log axis between lo and hi: powers of two (0.25, 0.5, 1, 2, 4, ...) when
     * the range holds at least four of them, else multiples of 0.5, 0.25, 0.1, 0.05, 0.02 or 0.01, the
     * coarsest that gives five (or four); never a value such as 1.778 that no one reads off an axis.
     */
    public static List<Double> ratioTicks(double lo, double hi) {
        List<Double> powers = new ArrayList<>();
        for (int k = -20; k <= 20; k++) {
            double v = Math.pow(2, k);
            if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) powers.add(v);
        }
        if (powers.size() >= 4) {
            if (powers.size() <= 12) return powers;
            List<Double> every = new ArrayList<>(); // more than 12: every other power, 1 kept
            int one = Math.max(0, powers.indexOf(1.0));
            for (int i = one % 2; i < powers.size(); i += 2) every.add(powers.get(i));
            return every;
        }
        List<List<Double>> candidates = new ArrayList<>();
        for (double step : new double[] {0.5, 0.25, 0.1, 0.05, 0.02, 0.01}) {
            List<Double> multiples = new ArrayList<>();
            long k = Math.max(1, (long) Math.ceil(lo / step - 1e-9));
            for (; k * step <= hi * (1 + 1e-9) && multiples.size() <= 12; k++) {
                multiples.add(Math.round(k * step * 1000) / 1000.0);
            }
            if (multiples.size() <= 12) candidates.add(multiples);
        }
        // The coarsest step with five ticks or more; else with four; else the powers there are.
        for (int least : new int[] {5, 4}) {
            for (List<Double> c : candidates) if (c.size() >= least) return c;
        }
        return powers;
    }

    /** A horizontal axis: where a figure of a row lies on it, 0 at the left edge and 1 at the right. */
    private static final class Axis {
        static final Axis OVER_THRESHOLD = new Axis(false, 0, 2, List.of(0.0, 0.5, 1.0, 1.5, 2.0));

        final boolean log;
        final double lo, hi;
        final List<Double> ticks;

        private Axis(boolean log, double lo, double hi, List<Double> ticks) {
            this.log = log;
            this.lo = lo;
            this.hi = hi;
            this.ticks = ticks;
        }

        /**
         * A log axis from the power of two at or below lo to the one at or above hi: at least 0.5 to 2, at
         * most 1/64 to 256.
         */
        static Axis log(double lo, double hi) {
            if (!(lo > 0) || Double.isInfinite(lo)) lo = 1;
            if (!(hi > 0) || Double.isInfinite(hi)) hi = 1;
            double a = Math.max(-6, Math.min(-1, Math.floor(Math.log(lo) / Math.log(2) + 1e-9)));
            double b = Math.min(8, Math.max(1, Math.ceil(Math.log(hi) / Math.log(2) - 1e-9)));
            return new Axis(true, Math.pow(2, a), Math.pow(2, b), ratioTicks(Math.pow(2, a), Math.pow(2, b)));
        }

        /** Where v lies on this axis (the axis's own value, before any threshold is applied). */
        double position(double v) {
            if (Double.isNaN(v)) return Double.NaN;
            if (log) return v <= 0 ? Double.NEGATIVE_INFINITY : Math.log(v / lo) / Math.log(hi / lo);
            return (v - lo) / (hi - lo);
        }

        /** Where a figure of row r lies: itself on the log axis, over the row's threshold on the linear one. */
        double position(Row r, double v) {
            if (log) return position(v);
            return r.threshold() > 0 ? position(v / r.threshold()) : Double.NaN;
        }
    }

    /**
     * A row's label in lines of at most {@value #LABEL_CHARS} characters, its payload never split from the
     * name's last word.
     */
    private static List<String> lines(Row r) {
        String nbsp = "\u00a0", payload = Limits.size(r.payload()).replace(" ", nbsp);
        List<String> lines = wrap(r.name() + nbsp + "·" + nbsp + payload, LABEL_CHARS);
        return lines.stream().map(s -> s.replace(nbsp, " ")).toList();
    }

    /** Splits text into lines of at most width characters at spaces (a longer word alone on its line). */
    public static List<String> wrap(String text, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            if (!line.isEmpty() && line.length() + 1 + word.length() > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            if (!line.isEmpty()) line.append(' ');
            line.append(word);
        }
        if (!line.isEmpty()) lines.add(line.toString());
        return lines;
    }
}
