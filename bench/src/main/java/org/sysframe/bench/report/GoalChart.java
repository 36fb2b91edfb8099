package org.sysframe.bench.report;

import org.sysframe.bench.measure.Goal;
import org.sysframe.bench.measure.GoalVerdict;

import java.util.List;
import java.util.Locale;

import static org.sysframe.bench.report.ChartImages.esc;

/**
 * Every goal's figure with its 95 % interval against its threshold, as one inline SVG (the page
 * needs no network): one row per goal on a common log axis of figure over threshold, turned so that
 * the good side is always to the right (threshold over figure for an "at most" goal), the threshold
 * the vertical line at 1 and a level goal's band 1 &plusmn; margin shaded. Figures beyond the axis
 * are drawn to its edge with an arrow; every row is labelled with its real numbers.
 */
final class GoalChart {
    private GoalChart() {}

    static final double AXIS = 4;          // the axis runs from 1/AXIS to AXIS times the threshold
    private static final int LABEL = 430, PLOT = 420, FIGURES = 250, ROW = 22, TOP = 46;

    /** The position of a figure on the axis: 0 (left edge) to 1 (right edge), the threshold at 0.5. */
    static double position(Goal g, double v) {
        double x;
        if (g.isLevel()) x = v;
        else if (g.atLeast()) x = v / g.threshold();
        else x = v == 0 ? Double.POSITIVE_INFINITY : g.threshold() / v;
        if (Double.isNaN(x)) return Double.NaN;
        if (!(x > 0)) return 0;
        double p = 0.5 + Math.log(x) / Math.log(AXIS) / 2;
        return Math.max(0, Math.min(1, p));
    }

    static String svg(List<GoalVerdict> goals) {
        int width = LABEL + PLOT + FIGURES, height = TOP + ROW * goals.size() + 30;
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\""
                + " font-size=\"12\" role=\"img\"><title>Each goal's figure with its 95 %% interval against its threshold</title>%n", width, height));
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"16\" font-weight=\"bold\">Each goal: estimate (dot) and 95 %% interval (bar)"
                + " over its threshold (line), good side to the right; log axis</text>%n", 4));
        double mid = LABEL + PLOT / 2.0;
        for (double tick : new double[] {1 / AXIS, 0.5, 1, 2, AXIS}) {
            double x = LABEL + PLOT * (0.5 + Math.log(tick) / Math.log(AXIS) / 2);
            sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>"
                            + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%s</text>%n",
                    x, TOP - 8, x, TOP + ROW * goals.size(), tick == 1 ? "#000" : "#ddd", x, TOP - 12,
                    tick == 1 ? "threshold" : (tick < 1 ? "1/" + Math.round(1 / tick) : Math.round(tick) + "x")));
        }
        for (int i = 0; i < goals.size(); i++) {
            GoalVerdict v = goals.get(i);
            Goal g = v.goal();
            int y = TOP + ROW * i + ROW / 2;
            if (i % 2 == 1) {
                sb.append(String.format(Locale.ROOT, "<rect x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f6f6f6\"/>%n",
                        y - ROW / 2, width, ROW));
            }
            String colour = switch (v.status()) {
                case MET, LEVEL -> "#070";
                case MISSED -> "#b00";
                case NOT_SETTLED -> "#a60";
            };
            if (g.isLevel()) {
                double a = LABEL + PLOT * position(g, 1 - g.margin()), b = LABEL + PLOT * position(g, 1 + g.margin());
                sb.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#cde\"/>%n",
                        a, y - ROW / 2 + 2, b - a, ROW - 4));
            }
            String name = g.name() + " (" + g.payload() + " B)";
            sb.append(String.format(Locale.ROOT, "<text x=\"4\" y=\"%d\">%s</text>%n", y + 4, esc(name.length() > 62 ? name.substring(0, 61) + "…" : name)));
            double lo = position(g, v.ci().lo()), hi = position(g, v.ci().hi()), e = position(g, v.ci().estimate());
            if (!Double.isNaN(lo) && !Double.isNaN(hi) && !Double.isNaN(e)) {
                double x1 = LABEL + PLOT * Math.min(lo, hi), x2 = LABEL + PLOT * Math.max(lo, hi), xe = LABEL + PLOT * e;
                sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"4\"/>"
                        + "<circle cx=\"%.1f\" cy=\"%d\" r=\"5\" fill=\"%s\" stroke=\"#fff\"/>%n", x1, y, Math.max(x2, x1 + 1), y, colour, xe, y, colour));
                if (e >= 1) sb.append(arrow(LABEL + PLOT, y, 1, colour));
                if (e <= 0) sb.append(arrow(LABEL, y, -1, colour));
            }
            sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>%n", LABEL + PLOT + 8, y + 4, colour,
                    esc(shortFigure(v) + " " + g.want() + ": " + v.status().label())));
        }
        double y = TOP + ROW * goals.size() + 18;
        sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#555\">figure over threshold"
                + " (threshold over figure for an \"at most\" goal; shaded: a level goal's band)</text>%n", mid, y));
        sb.append("</svg>\n");
        return sb.toString();
    }

    private static String arrow(double x, int y, int dir, String colour) {
        return String.format(Locale.ROOT, "<polygon points=\"%.1f,%d %.1f,%d %.1f,%d\" fill=\"%s\"/>%n",
                x + 8 * dir, y, x, y - 6, x, y + 6, colour);
    }

    private static String shortFigure(GoalVerdict v) {
        return GoalVerdict.number(v.ci().estimate()) + v.goal().metric().unit() + " [" + GoalVerdict.number(v.ci().lo()) + "-"
                + GoalVerdict.number(v.ci().hi()) + "]";
    }
}
