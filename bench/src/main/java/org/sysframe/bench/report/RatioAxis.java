package org.sysframe.bench.report;

import org.jfree.chart.axis.AxisState;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTick;
import org.jfree.chart.axis.Tick;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.TextAnchor;

import java.awt.Graphics2D;
import java.awt.geom.Rectangle2D;
import java.util.ArrayList;
import java.util.List;

/**
 * A log axis for ratios whose ticks are values one reads off an axis: the same as the goals' chart
 * ({@link GoalChart#ratioTicks}: 0.25, 0.5, 1, 2, 4, ..., or 0.75, 1, 1.25, 1.5 over a narrow range),
 * where JFreeChart's own log axis put its ticks at fractional powers of ten (1.585, 1.778, 1.995).
 */
final class RatioAxis extends LogAxis {
    private static final long serialVersionUID = 1L;

    RatioAxis(String label) {
        super(label);
        setBase(2);
        setSmallestValue(1e-3);
    }

    @Override
    public List<Tick> refreshTicks(Graphics2D g2, AxisState state, Rectangle2D dataArea, RectangleEdge edge) {
        boolean across = RectangleEdge.isTopOrBottom(edge);
        TextAnchor anchor = across ? (edge == RectangleEdge.TOP ? TextAnchor.BOTTOM_CENTER : TextAnchor.TOP_CENTER)
                : (edge == RectangleEdge.LEFT ? TextAnchor.CENTER_RIGHT : TextAnchor.CENTER_LEFT);
        List<Tick> ticks = new ArrayList<>();
        for (double v : GoalChart.ratioTicks(getLowerBound(), getUpperBound())) {
            ticks.add(new NumberTick(v, GoalChart.tick(v), anchor, anchor, 0));
        }
        return ticks;
    }
}
