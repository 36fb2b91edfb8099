package org.sysframe.bench;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.category.DefaultCategoryDataset;
import org.sysframe.unix.SyscallKind;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes a matrix run as a terminal table, {@code results.csv}, {@code results.json} and
 * {@code report.html} (charts drawn by JFreeChart, embedded as PNG: the page needs no network).
 */
public final class ReportWriter {
    private ReportWriter() {}

    /** The terminal table: one row per pairing and payload. */
    public static String table(MatrixResult r) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%d rounds%s on %s; medians, [min-max] over rounds; ratio vs %s per round%n",
                r.rounds(), r.quick() ? " (quick)" : "", r.machine(), r.pairings().get(0).name()));
        String head = String.format(Locale.ROOT, "%-9s %6s %9s %5s %19s %7s %7s %8s  %-28s %-38s %s%n",
                "pairing", "bytes", "calls/s", "±%", "ratio [min-max]", "p50 us", "p99 us", "cpu us", "client syscalls/call",
                "server syscalls/call", "k=l");
        sb.append(head);
        sb.append("-".repeat(head.length() - 1)).append('\n');
        for (int payload : r.payloads()) {
            for (Pairing p : r.pairings()) {
                CellSummary c = r.cell(p.name(), payload);
                sb.append(String.format(Locale.ROOT, "%-9s %6d %9.0f %5.1f %5.3f [%5.3f-%5.3f] %7.1f %7.1f %8.2f  %-28s %-38s %s%n",
                        p.name(), payload, c.callsPerSec().median(), c.callsPerSec().halfRangePercent(),
                        c.ratio().median(), c.ratio().min(), c.ratio().max(),
                        c.p50Micros().median(), c.p99Micros().median(), c.cpuMicrosPerCall(),
                        CellSummary.describe(c.clientSyscalls()), CellSummary.describe(c.serverSyscalls()),
                        !c.kernelMeasured() ? "n/a" : c.kernelAgrees() ? "yes" : "NO"));
            }
        }
        sb.append("pairings:\n");
        for (Pairing p : r.pairings()) sb.append(String.format(Locale.ROOT, "  %-9s %s (%s)%n", p.name(), p.description(), p.framing()));
        for (String t : targets(r)) sb.append(t).append('\n');
        if (r.kernelUnavailable() != null) sb.append("kernel counts unavailable: ").append(r.kernelUnavailable()).append('\n');
        if (r.compare() != null) {
            sb.append("\nPeers on one sysframe server (").append(r.compare().rounds())
              .append(" interleaved rounds; syscalls of each peer from the kernel's counters):\n");
            sb.append(r.compare().table());
        }
        return sb.toString();
    }

    /** The seed's claim checked at 32 B: pairing 2 or 3 against pairing 1. */
    static List<String> targets(MatrixResult r) {
        List<String> out = new ArrayList<>();
        boolean has32 = false;
        for (int p : r.payloads()) has32 |= p == 32;
        if (!has32 || r.pairings().size() < 3) return out;
        for (int i = 1; i < Math.min(3, r.pairings().size()); i++) {
            CellSummary c = r.cell(r.pairings().get(i).name(), 32);
            double gain = (c.ratio().median() - 1) * 100;
            double cpuCut = (1 - c.cpuRatio().median()) * 100;
            out.add(String.format(Locale.ROOT, "target (%s vs %s at 32 B): calls/s %+.1f %% (want >= +10 %%): %s; CPU per call %.1f %% less (want >= 15 %%): %s",
                    c.pairing(), r.pairings().get(0).name(), gain, gain >= 10 ? "met" : "MISSED", cpuCut, cpuCut >= 15 ? "met" : "MISSED"));
        }
        return out;
    }

    public static void writeAll(MatrixResult r, Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("results.csv"), csv(r));
        Files.writeString(dir.resolve("results.json"), json(r));
        Files.writeString(dir.resolve("report.html"), html(r));
        if (r.compare() != null) {
            Files.writeString(dir.resolve("compare.csv"), compareCsv(r.compare()));
            Files.writeString(dir.resolve("compare.json"), compareJson(r.compare()));
        }
    }

    static String compareCsv(CompareResult c) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (CompareResult.Row row : c.rows()) rows.add(row.toMap());
        return csvOf(rows);
    }

    static String compareJson(CompareResult c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rounds", c.rounds());
        m.put("reference", c.reference());
        m.put("peers", c.framings());
        List<Object> rows = new ArrayList<>();
        for (CompareResult.Row row : c.rows()) rows.add(row.toMap());
        m.put("rows", rows);
        m.put("targets", c.targets());
        return Json.write(m) + "\n";
    }

    static String csv(MatrixResult r) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (CellSummary c : r.cells()) rows.add(c.toMap());
        return csvOf(rows);
    }

    private static String csvOf(List<Map<String, Object>> rows) {
        StringBuilder sb = new StringBuilder();
        List<String> header = null;
        for (Map<String, Object> m : rows) {
            if (header == null) {
                header = new ArrayList<>(m.keySet());
                sb.append(String.join(",", header)).append('\n');
            }
            List<String> row = new ArrayList<>();
            for (String k : header) {
                Object v = m.get(k);
                row.add(v instanceof Double d ? String.format(Locale.ROOT, "%.6g", d) : String.valueOf(v));
            }
            sb.append(String.join(",", row)).append('\n');
        }
        return sb.toString();
    }

    static String json(MatrixResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("machine", r.machine());
        m.put("rounds", r.rounds());
        m.put("quick", r.quick());
        m.put("seconds", r.seconds());
        List<Object> pairings = new ArrayList<>();
        for (Pairing p : r.pairings()) {
            Map<String, Object> pm = new LinkedHashMap<>();
            pm.put("name", p.name());
            pm.put("description", p.description());
            pm.put("framing", p.framing());
            pairings.add(pm);
        }
        m.put("pairings", pairings);
        List<Object> cells = new ArrayList<>();
        for (CellSummary c : r.cells()) cells.add(c.toMap());
        m.put("cells", cells);
        m.put("targets", targets(r));
        m.put("kernel_unavailable", r.kernelUnavailable());
        return Json.write(m) + "\n";
    }

    static String html(MatrixResult r) throws IOException {
        DefaultCategoryDataset cps = new DefaultCategoryDataset();
        DefaultCategoryDataset cpu = new DefaultCategoryDataset();
        DefaultCategoryDataset sys = new DefaultCategoryDataset();
        for (Pairing p : r.pairings()) {
            for (int payload : r.payloads()) {
                CellSummary c = r.cell(p.name(), payload);
                cps.addValue(c.callsPerSec().median(), p.name(), payload + " B");
                cpu.addValue(c.cpuMicrosPerCall(), p.name(), payload + " B");
            }
        }
        for (int payload : r.payloads()) {
            for (Pairing p : r.pairings()) {
                CellSummary c = r.cell(p.name(), payload);
                for (SyscallKind k : SyscallKind.values()) {
                    sys.addValue(c.clientSyscalls().get(k), "client " + k.kernelName(), p.name() + " " + payload + " B");
                    sys.addValue(c.serverSyscalls().get(k), "server " + k.kernelName(), p.name() + " " + payload + " B");
                }
            }
        }
        removeEmptyRows(sys);
        JFreeChart a = ChartFactory.createLineChart("Calls per second (median) by payload", "payload", "calls/s",
                cps, PlotOrientation.VERTICAL, true, false, false);
        JFreeChart b = ChartFactory.createLineChart("CPU per call, client + server (median, us on-CPU)", "payload", "us per call",
                cpu, PlotOrientation.VERTICAL, true, false, false);
        JFreeChart c = ChartFactory.createStackedBarChart("Syscalls per call by kind (library counts, client + server)", "",
                "syscalls per call", sys, PlotOrientation.VERTICAL, true, false, false);
        c.getCategoryPlot().getDomainAxis().setCategoryLabelPositions(CategoryLabelPositions.UP_45);

        StringBuilder sb = new StringBuilder();
        sb.append("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>sysframe matrix</title>\n")
          .append("<style>body{font-family:sans-serif;margin:2em;max-width:1200px} table{border-collapse:collapse;font-size:13px}")
          .append("td,th{border:1px solid #ccc;padding:3px 6px;text-align:right} td.l,th.l{text-align:left}")
          .append("img{display:block;margin:1.5em 0;max-width:100%} .miss{color:#b00;font-weight:bold}</style></head><body>\n")
          .append("<h1>sysframe: framing pairings compared</h1>\n<p>").append(esc(r.machine())).append("<br>")
          .append(r.rounds()).append(" interleaved rounds").append(r.quick() ? " (quick)" : "")
          .append(String.format(Locale.ROOT, ", %.0f s. Medians over rounds, [min-max]; ratios vs <b>%s</b> taken per round.</p>\n",
                  r.seconds(), esc(r.pairings().get(0).name())));
        sb.append("<h2>Targets</h2><ul>");
        for (String t : targets(r)) sb.append("<li").append(t.contains("MISSED") ? " class=\"miss\"" : "").append('>').append(esc(t)).append("</li>");
        sb.append("</ul>\n");
        sb.append(img(a, 1100, 450)).append(img(b, 1100, 450)).append(img(c, 1100, 600));
        sb.append("<h2>Table</h2><table><tr><th class=l>pairing</th><th>bytes</th><th>calls/s</th><th>ratio [min-max]</th>")
          .append("<th>CPU ratio</th><th>p50 us</th><th>p99 us</th><th>client us/call</th><th>server us/call</th>")
          .append("<th class=l>client syscalls/call</th><th class=l>server syscalls/call</th><th>library = kernel</th></tr>\n");
        for (int payload : r.payloads()) {
            for (Pairing p : r.pairings()) {
                CellSummary x = r.cell(p.name(), payload);
                sb.append(String.format(Locale.ROOT,
                        "<tr><td class=l>%s</td><td>%d</td><td>%.0f</td><td>%.3f [%.3f-%.3f]</td><td>%.3f</td><td>%.1f</td><td>%.1f</td><td>%.2f</td><td>%.2f</td><td class=l>%s</td><td class=l>%s</td><td>%s</td></tr>%n",
                        esc(p.name()), payload, x.callsPerSec().median(), x.ratio().median(), x.ratio().min(), x.ratio().max(),
                        x.cpuRatio().median(), x.p50Micros().median(), x.p99Micros().median(), x.clientCpuMicros().median(),
                        x.serverCpuMicros().median(), esc(CellSummary.describe(x.clientSyscalls())),
                        esc(CellSummary.describe(x.serverSyscalls())), !x.kernelMeasured() ? "n/a" : x.kernelAgrees() ? "yes" : "NO"));
            }
        }
        sb.append("</table>\n<h2>Pairings</h2><ul>");
        for (Pairing p : r.pairings()) {
            sb.append("<li><b>").append(esc(p.name())).append("</b>: ").append(esc(p.description())).append(" (")
              .append(esc(p.framing())).append(")</li>");
        }
        sb.append("</ul>\n");
        if (r.compare() != null) compareHtml(sb, r.compare());
        sb.append("</body></html>\n");
        return sb.toString();
    }

    private static void compareHtml(StringBuilder sb, CompareResult c) throws IOException {
        DefaultCategoryDataset cps = new DefaultCategoryDataset();
        DefaultCategoryDataset cpu = new DefaultCategoryDataset();
        for (CompareResult.Row row : c.rows()) {
            cps.addValue(row.callsPerSec().median(), row.payload() + " B", row.peer());
            cpu.addValue(row.clientCpu().median(), row.payload() + " B", row.peer());
        }
        JFreeChart a = ChartFactory.createBarChart("Peers on one sysframe server: calls per second (median)", "peer", "calls/s",
                cps, PlotOrientation.VERTICAL, true, false, false);
        JFreeChart b = ChartFactory.createBarChart("Peers: client CPU per call (median, us on-CPU)", "peer", "us per call",
                cpu, PlotOrientation.VERTICAL, true, false, false);
        sb.append("<h2>Peers on the same server</h2>\n<p>").append(c.rounds())
          .append(" interleaved rounds. Ratios are sysframe's client over the peer, per round. Peer syscalls come from the kernel's counters of the peer's thread (or process).</p><ul>");
        for (String t : c.targets()) sb.append("<li").append(t.contains("MISSED") ? " class=\"miss\"" : "").append('>').append(esc(t)).append("</li>");
        sb.append("</ul>\n");
        if (c.anyMissed()) sb.append("<p>").append(esc(String.format(Locale.ROOT, CompareResult.LIMITS))).append("</p>\n");
        sb.append(img(a, 1100, 420)).append(img(b, 1100, 420));
        sb.append("<table><tr><th class=l>peer</th><th>bytes</th><th>calls/s</th><th>sysframe/peer [min-max]</th><th>CPU sysframe/peer</th>")
          .append("<th>p50 us</th><th>p99 us</th><th>client us/call</th><th>server us/call</th><th class=l>client syscalls/call (kernel)</th><th class=l>server syscalls/call</th></tr>\n");
        for (CompareResult.Row row : c.rows()) {
            sb.append(String.format(Locale.ROOT,
                    "<tr><td class=l>%s</td><td>%d</td><td>%.0f</td><td>%.3f [%.3f-%.3f]</td><td>%.3f</td><td>%.1f</td><td>%.1f</td><td>%.2f</td><td>%.2f</td><td class=l>%s</td><td class=l>%s</td></tr>%n",
                    esc(row.peer()), row.payload(), row.callsPerSec().median(), row.referenceOverPeer().median(),
                    row.referenceOverPeer().min(), row.referenceOverPeer().max(), row.cpuReferenceOverPeer().median(),
                    row.p50Micros().median(), row.p99Micros().median(), row.clientCpu().median(), row.serverCpu().median(),
                    esc(CellSummary.describe(row.clientSyscalls())), esc(CellSummary.describe(row.serverSyscalls()))));
        }
        sb.append("</table>\n<ul>");
        for (String p : c.peers()) sb.append("<li><b>").append(esc(p)).append("</b>: ").append(esc(c.framings().get(p))).append("</li>");
        sb.append("</ul>\n");
    }

    private static void removeEmptyRows(DefaultCategoryDataset d) {
        for (int row = d.getRowCount() - 1; row >= 0; row--) {
            boolean empty = true;
            for (int col = 0; col < d.getColumnCount(); col++) {
                Number v = d.getValue(row, col);
                if (v != null && v.doubleValue() != 0) empty = false;
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

    private static String img(JFreeChart chart, int w, int h) throws IOException {
        style(chart);
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        ChartUtils.writeChartAsPNG(png, chart, w, h);
        return "<img alt=\"" + esc(chart.getTitle().getText()) + "\" src=\"data:image/png;base64,"
                + Base64.getEncoder().encodeToString(png.toByteArray()) + "\">\n";
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
