package org.sysframe.bench.report;

import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.CategoryItemRenderer;
import org.jfree.chart.renderer.category.LineAndShapeRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.xy.XYItemRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.category.DefaultCategoryDataset;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Base64;

/**
 * JFreeChart charts rendered as PNG {@code <img>} tags with the image inline (the page needs no network).
 */
public final class ChartImages {
    private ChartImages() {}

    /** Removes the series whose values are all zero or missing. */
    static void removeEmptyRows(DefaultCategoryDataset d) {
        for (int row = d.getRowCount() - 1; row >= 0; row--) {
            boolean empty = true;
            for (int col = 0; col < d.getColumnCount(); col++) {
                Number v = d.getValue(row, col);
                if (v != null && v.doubleValue() != 0 && !Double.isNaN(v.doubleValue())) empty = false;
            }
            if (empty) d.removeRow(row);
        }
    }

    // Readable on white: distinct, strong colours and thick lines.
    private static final Color[] PALETTE = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e),
        new Color(0x9467bd), new Color(0x8c564b), new Color(0x17becf), new Color(0x7f7f7f),
        new Color(0xbcbd22), new Color(0xe377c2),
    };

    private static void style(JFreeChart chart) {
        chart.setBackgroundPaint(Color.WHITE);
        if (chart.getPlot() instanceof XYPlot xy) {
            styleXy(xy);
            return;
        }
        CategoryPlot plot = chart.getCategoryPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(new Color(0xcccccc));
        plot.setOutlineVisible(false);
        CategoryItemRenderer r = plot.getRenderer();
        for (int i = 0; i < plot.getDataset().getRowCount(); i++) {
            r.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
            r.setSeriesStroke(i, new BasicStroke(3f));
        }
        if (r instanceof LineAndShapeRenderer line) line.setDefaultShapesVisible(true);
        if (r instanceof BarRenderer bar) {
            bar.setBarPainter(new StandardBarPainter());
            bar.setShadowVisible(false);
        }
    }

    /** An XY plot (a sweep's lines with bands): the same palette, for lines and their bands alike. */
    private static void styleXy(XYPlot plot) {
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(new Color(0xcccccc));
        plot.setDomainGridlinePaint(new Color(0xcccccc));
        plot.setOutlineVisible(false);
        XYItemRenderer r = plot.getRenderer();
        for (int i = 0; i < plot.getDataset().getSeriesCount(); i++) {
            r.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
            r.setSeriesStroke(i, new BasicStroke(3f));
            if (r instanceof XYLineAndShapeRenderer line) line.setSeriesFillPaint(i, PALETTE[i % PALETTE.length]);
        }
    }

    static String img(JFreeChart chart, int w, int h) throws IOException {
        style(chart);
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        ChartUtils.writeChartAsPNG(png, chart, w, h);
        return "<img alt=\"" + esc(chart.getTitle().getText()) + "\" src=\"data:image/png;base64,"
                + Base64.getEncoder().encodeToString(png.toByteArray()) + "\">\n";
    }

    /** s with the characters HTML gives meaning to escaped. */
    public static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
