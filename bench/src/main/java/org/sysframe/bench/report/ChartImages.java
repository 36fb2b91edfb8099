package org.sysframe.bench.report;

import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.data.category.DefaultCategoryDataset;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Base64;

/**
 * JFreeChart charts rendered as PNG {@code <img>} tags with the image inline (the page needs no network).
 *
 * <p>Internal to the bench: public for the tests of its other packages, not an API.
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
    private static final java.awt.Color[] PALETTE = {
        new java.awt.Color(0x1f77b4), new java.awt.Color(0xd62728), new java.awt.Color(0x2ca02c), new java.awt.Color(0xff7f0e),
        new java.awt.Color(0x9467bd), new java.awt.Color(0x8c564b), new java.awt.Color(0x17becf), new java.awt.Color(0x7f7f7f),
        new java.awt.Color(0xbcbd22), new java.awt.Color(0xe377c2),
    };

    private static void style(JFreeChart chart) {
        chart.setBackgroundPaint(java.awt.Color.WHITE);
        if (chart.getPlot() instanceof org.jfree.chart.plot.XYPlot xy) {
            styleXy(xy);
            return;
        }
        org.jfree.chart.plot.CategoryPlot plot = chart.getCategoryPlot();
        plot.setBackgroundPaint(java.awt.Color.WHITE);
        plot.setRangeGridlinePaint(new java.awt.Color(0xcccccc));
        plot.setOutlineVisible(false);
        org.jfree.chart.renderer.category.CategoryItemRenderer r = plot.getRenderer();
        for (int i = 0; i < plot.getDataset().getRowCount(); i++) {
            r.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
            r.setSeriesStroke(i, new java.awt.BasicStroke(3f));
        }
        if (r instanceof org.jfree.chart.renderer.category.LineAndShapeRenderer line) line.setDefaultShapesVisible(true);
        if (r instanceof org.jfree.chart.renderer.category.BarRenderer bar) {
            bar.setBarPainter(new org.jfree.chart.renderer.category.StandardBarPainter());
            bar.setShadowVisible(false);
        }
    }

    /** An XY plot (a sweep's lines with bands): the same palette, for lines and their bands alike. */
    private static void styleXy(org.jfree.chart.plot.XYPlot plot) {
        plot.setBackgroundPaint(java.awt.Color.WHITE);
        plot.setRangeGridlinePaint(new java.awt.Color(0xcccccc));
        plot.setDomainGridlinePaint(new java.awt.Color(0xcccccc));
        plot.setOutlineVisible(false);
        org.jfree.chart.renderer.xy.XYItemRenderer r = plot.getRenderer();
        for (int i = 0; i < plot.getDataset().getSeriesCount(); i++) {
            r.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
            r.setSeriesStroke(i, new java.awt.BasicStroke(3f));
            if (r instanceof org.jfree.chart.renderer.xy.XYLineAndShapeRenderer line) line.setSeriesFillPaint(i, PALETTE[i % PALETTE.length]);
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
