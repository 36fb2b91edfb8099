package org.sysframe.bench.report;

import org.jfree.chart.ui.RectangleEdge;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.bench.explore.BenchRun;
import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Goal;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.ThreadCpu;
import org.sysframe.bench.table.PairingTable;
import org.sysframe.bench.table.ScaleTable;
import org.sysframe.unix.SyscallCounts;
import org.w3c.dom.Document;
import org.xml.sax.InputSource;

import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The reports (terminal, CSV, JSON, HTML) of a known run: three pairings at two payloads, five rounds. */
public class ReportsTest {
    static final int[] PAYLOADS = {32, 1024};

    /** A run of fixed figures per cell, the same in every round. */
    public static BenchRun known() {
        List<Cell> cells = new ArrayList<>();
        List<Measurement> runs = new ArrayList<>();
        for (int payload : PAYLOADS) {
            cells.add(new Cell("baseline", payload, "two syscalls", 1000, 0, null));
            cells.add(new Cell("seed-v3", payload, "copy", 1000, 0, null));
            cells.add(new Cell("merged", payload, "gather", 1000, 0, null));
        }
        for (int round = 1; round <= 5; round++) {
            for (int payload : PAYLOADS) {
                runs.add(run("baseline", payload, round, 1000, 30_000_000, 20_000_000, 2));  // 10000/s, 50 us
                runs.add(run("seed-v3", payload, round, 1250, 25_000_000, 15_000_000, 1));    // 12500/s, 32 us
                runs.add(run("merged", payload, round, 1050, 30_000_000, 20_000_000, 1));     // 10500/s, 47.6 us
            }
        }
        BenchTable t = BenchTable.of(PairingTable.NAME, "framing pairings", "pairing", "baseline", false, 5, cells,
                runs, List.of());
        return BenchRun.of("test machine", 5, false, 12.5, 1, List.of(t), null);
    }

    /** calls in 0.1 s; the client makes perCall sendto and recvfrom per call, the server one of each + epoll_wait. */
    public static Measurement run(String cell, int payload, int round, long calls, long clientNs, long serverNs,
            int perCall) {
        SyscallCounts client = SyscallCounts.builder().sendto(perCall * calls).recvfrom(perCall * calls).build();
        SyscallCounts server = SyscallCounts.builder().sendto(calls).recvfrom(calls).epollWait(calls).build();
        return new Measurement(cell, payload, round, 1, calls, 0.1, 20_000, 30_000, 50_000, 90_000, 100_000,
                client, client, server, server, new ThreadCpu(clientNs, 10_000, 20_000, 0, 0),
                new ThreadCpu(serverNs, 0, 10_000, 0, 0), "client cpu 0; server cpu 1");
    }

    @Test
    void tableShowsMediansRatiosCountsAndGoals() {
        String t = TerminalReport.of(known());
        assertTrue(
                t.contains("\nseed-v3      32    12500  0.0  1.250 [1.250-1.250]    20.0    50.0   32.00               "
                + " 2                3  yes\n"), t);
        assertTrue(
                t.contains("\n  baseline     32 B: client 2 sendto + 2 recvfrom; server 1 sendto + 1 recvfrom + 1 "
                + "epoll_wait; client cpu 0; server cpu 1\n"), t);
        assertTrue(
                t.contains("goal seed patch: +10 % calls/s (seed-v3 vs baseline at 32 B): calls/s 1.250x [1.250-1.250],"
                + " 5 rounds (want >= 1.10x): met"), t);
        assertTrue(
                t.contains("goal merged change: +10 % calls/s (merged vs baseline at 32 B): calls/s 1.050x "
                + "[1.050-1.050], 5 rounds (want >= 1.10x): MISSED"), t);
        assertTrue(
                t.contains("goal seed patch: 15 % less CPU (seed-v3 vs baseline at 32 B): CPU per call, client + "
                + "server 0.640x [0.640-0.640], 5 rounds (want <= 0.85x): met"), t);
        assertTrue(t.contains("ratio [95 % CI]"), t);
        assertTrue(t.endsWith("goals: 2 met, 2 missed, 0 level, 0 not settled (of 4), in 0 min 13 s\n"), t);
        assertFalse(t.contains("1024 B)"), "the goals are declared at 32 B only: " + t);
    }

    @Test
    void theVerdictComesFirstAfterTheMachineLineAndEveryLineFits160Columns() {
        String t = TerminalReport.of(known());
        List<String> lines = t.lines().toList();
        assertEquals("machine: test machine", lines.get(0));
        assertEquals("goals: 2 met, 2 missed, 0 level, 0 not settled (of 4), in 0 min 13 s", lines.get(1));
        assertEquals("  MISSED       matrix: merged change: +10 % calls/s, 32 B: 1.050x [1.050-1.050], want >= 1.10x",
                lines.get(2));
        assertEquals("  MISSED       matrix: merged change: 15 % less CPU, 32 B: 0.952x [0.952-0.952], want <= 0.85x",
                lines.get(3));
        assertTrue(lines.get(4).startsWith("5 interleaved rounds per cell, more for unsettled goals' cells;"),
                lines.get(4));
        assertEquals("framing pairings (5 interleaved rounds; ratio vs baseline per round):", lines.get(6));
        // Long texts (settings, notes, goals' explanations) are wrapped, each continuation indented.
        BenchRun wordy = wordy();
        String w = TerminalReport.of(wordy);
        for (String line : w.lines().toList()) assertTrue(line.length() <= TerminalReport.WIDTH, line.length() + ": "
                + line);
        assertTrue(w.contains("\nnote: " + "a long note, ".repeat(11) + "a long\n      note, a long note,"), w);
        assertTrue(w.contains("\n  a-row-of-a-long-name-here-24 two syscalls and a long description"), w);
        assertTrue(w.contains("description\n                               and a long description"),
                "under the settings, not the name: " + w);
    }

    /** A run with a long row name and settings, and a note far longer than a line. */
    static BenchRun wordy() {
        BenchTable t = known().tables().get(0);
        List<Cell> cells = new ArrayList<>(t.cells());
        cells.add(new Cell("a-row-of-a-long-name-here-24", 32, "two syscalls " + "and a long description ".repeat(12),
                1000, 0, null));
        List<Measurement> runs = new ArrayList<>(t.runs());
        for (int round = 1; round <= 5; round++) runs.add(run("a-row-of-a-long-name-here-24", 32, round, 1000,
                30_000_000, 20_000_000, 2));
        BenchTable wide = BenchTable.of(PairingTable.NAME, "framing pairings", "pairing", "baseline", false, 5, cells,
                runs, List.of("a long note, ".repeat(20).strip()));
        return BenchRun.of("test machine " + "with a long description, ".repeat(10), 5, false, 12.5, 1, List.of(wide),
                null);
    }

    @Test
    void aLatencyNotMeasuredReadsADashNotZero() {
        List<Cell> cells = List.of(new Cell("sysframe", 32, "", 1000, 0, null),
                new Cell("C lean", 32, "no clock per request", 1000, 0, null));
        List<Measurement> runs = new ArrayList<>();
        for (int round = 1; round <= 5; round++) {
            runs.add(run("sysframe", 32, round, 1000, 30_000_000, 20_000_000, 1));
            Measurement m = run("C lean", 32, round, 1000, 30_000_000, 20_000_000, 1);
            // A C lean peer reads no clock per request: every percentile 0.
            runs.add(new Measurement(m.cell(), m.payload(), m.round(), 1, m.calls(), m.seconds(), 0, 0, 0, 0, 0,
                    m.clientLibrary(),
                    m.clientKernel(), m.serverLibrary(), m.serverKernel(), m.clientCpu(), m.serverCpu(), m.cpus()));
        }
        BenchTable t = BenchTable.of("depth", "depth", "depth", "sysframe", false, 5, cells, runs, List.of());
        String text = TerminalReport.of(BenchRun.of("test machine", 5, false, 1, 1, List.of(t), null));
        assertTrue(text.contains("\nC lean       32    10000  0.0  1.000 [1.000-1.000]       -       -   50.00"), text);
        assertTrue(text.contains("\nsysframe     32    10000  0.0  1.000 [1.000-1.000]    20.0    50.0   50.00"), text);
    }

    @Test
    void theScaleTableShowsServerCpuPerRequestAgainstTheCServersAndMemoryPerConnection(
            @TempDir Path dir) throws Exception {
        List<Cell> cells = new ArrayList<>();
        List<Measurement> runs = new ArrayList<>();
        for (String name : List.of("epoll 1 loop 10000 idle", "C server 10000 idle")) cells.add(new Cell(name, 32, "",
                1000, 0, null));
        for (int round = 1; round <= 5; round++) {
            // sysframe: 12 us of server CPU per request, 38 KiB per connection; C: 10 us, 64 B.
            runs.add(run("epoll 1 loop 10000 idle", 32, round, 1000, 30_000_000, 12_000_000, 1)
                    .withServerRss(38 * 1024));
            runs.add(run("C server 10000 idle", 32, round, 1000, 30_000_000, 10_000_000, 1).withServerRss(64));
        }
        BenchTable scale = BenchTable.of(ScaleTable.NAME, "Scale", "server", "epoll 1 loop 10000 idle", false, 5,
                cells, runs, List.of());
        BenchRun run = BenchRun.of("test machine", 5, false, 12.5, 1, List.of(known().tables().get(0), scale), null);
        String t = TerminalReport.of(run);
        assertTrue(
                t.contains("each connection count a set of rounds of its own; server CPU per request vs the C server's "
                + "at the same count"), t);
        assertTrue(
                t.contains("\nepoll 1 loop 10000 idle    10000  0.0    50.0       12.00  1.200 [1.200-1.200]  38.0 KiB "
                + "              3  yes\n"), t);
        assertTrue(
                t.contains("\nC server 10000 idle        10000  0.0    50.0       10.00                    -      64 B "
                + "              3  yes\n"), t);
        assertTrue(
                t.contains("goal idle connection memory <= 4 KiB per connection (epoll 1 loop 10000 idle vs C server "
                + "10000 idle at 32 B):"
                + " server resident memory per connection 38.000 KiB\n  [38.000-38.000], 5 rounds; C server 10000 "
                        + "idle: 0.063 KiB (want <= 4.00 KiB): MISSED"), t);
        ResultFiles.writeAll(run, dir);
        List<String> csv = Files.readAllLines(dir.resolve("scale.csv"));
        assertTrue(csv.get(0).contains(",server_rss_bytes_per_connection_median,server_rss_bytes_per_connection_min,"),
                csv.get(0));
        assertTrue(Files.readString(dir.resolve("scale.json")).contains("\"server_rss_bytes_per_connection\":38912,"));
        assertTrue(Files.readString(dir.resolve("run.json")).contains("\"versus_figure\":0.0625"));
        // The other tables' files carry no memory columns.
        assertFalse(Files.readString(dir.resolve("results.csv")).contains("rss"));
    }

    @Test
    void writesCsvJsonAndAnHtmlPageWithThreeChartImages(@TempDir Path dir) throws Exception {
        List<String> files = ResultFiles.writeAll(known(), dir);
        assertEquals(List.of("results.csv", "results.json", "run.json", "report.html"), files);
        List<String> csv = Files.readAllLines(dir.resolve("results.csv"));
        assertEquals(7, csv.size());
        assertTrue(csv.get(0)
                .startsWith("pairing,payload,rounds,calls_per_sec_median,calls_per_sec_min,calls_per_sec_max,"
                        + "ratio_vs_baseline_median,"), csv.get(0));
        assertTrue(csv.get(2).startsWith("seed-v3,32,5,12500.0,12500.0,12500.0,1.25000,"), csv.get(2));

        String json = Files.readString(dir.resolve("results.json"));
        assertTrue(
                json.startsWith("{\"machine\":\"test machine\",\"table\":\"matrix\",\"title\":\"framing pairings\","
                + "\"rounds\":5,"), json);
        assertTrue(json.contains("\"pairing\":\"merged\",\"payload\":32,\"rounds\":5,\"calls_per_sec_median\":10500,"),
                json);

        String html = Files.readString(dir.resolve("report.html"));
        Matcher m = Pattern.compile("src=\"data:image/png;base64,([A-Za-z0-9+/=]+)\"").matcher(html);
        int images = 0;
        while (m.find()) {
            byte[] png = Base64.getDecoder().decode(m.group(1));
            assertEquals((byte) 0x89, png[0]);
            assertEquals('P', png[1]);
            assertEquals('N', png[2]);
            assertEquals('G', png[3]);
            assertTrue(png.length > 5000, "a chart with content, not an empty image: " + png.length + " bytes");
            images++;
        }
        assertEquals(5, images); // ratio boxes, CPU boxes, client and server syscalls by kind, latency percentiles
        assertTrue(html.contains("<span class=miss>"), "missed goals are highlighted");
        assertTrue(
                html.contains("<p class=headline><b>Verdict: 2 of 4 goals met, 0 level, 2 missed, 0 not settled. goal "
                + "seed patch: +10 % calls/s"), html);
        // The page opens with the overall verdict, one folding line per goal, then the goals' chart (inline SVG).
        int overall =
                html.indexOf("<p class=overall><b>goals: 2 met, 2 missed, 0 level, 0 not settled (of 4), in 0 min 13 "
                + "s</b></p>");
        int firstGoal = html.indexOf("<details class=goal><summary><span class=ok>met</span> seed patch: +10 %"
                + " calls/s · 32 B <span class=fig>calls/s"
                + " 1.250x [1.250-1.250], 5 rounds, want &gt;= 1.10x</span></summary>");
        int chart = html.indexOf("<svg ");
        int firstTable = html.indexOf("<h2>framing pairings</h2>");
        int note = html.indexOf("<h3>How to read this on a VM</h3>");
        assertTrue(overall > 0 && overall < note && note < firstGoal && firstGoal < chart && chart < firstTable, html);
        assertTrue(html.contains("<span class=miss>MISSED</span> merged change: +10 % calls/s · 32 B"), html);
        assertEquals(4, html.substring(chart, html.indexOf("</svg>")).split("r=\"4.5\"", -1).length - 1, "one"
                + " dot per goal");
        assertEquals(images, html.split("src=\"", -1).length - 1,
                "every src is an embedded image: no broken reference");
        assertTrue(
                html.contains("<td class=l>seed-v3</td><td>32</td><td>12500</td><td>1.250 "
                + "[1.250-1.250]</td><td>5</td>"), html);
    }

    /** Goals as the chart draws them: a ratio and a row's own figure, at two payloads, with every verdict. */
    static List<GoalChart.Row> chartRows() {
        return List.of(
                new GoalChart.Row("peers", "one at a time: at least 0.97x C lean", 32, true, "x", true, 0.97, 0, 0.964,
                        0.889, 0.979,
                        Goal.Status.NOT_SETTLED, "goal one at a time at 32 B"),
                new GoalChart.Row("peers", "one at a time: at least 0.97x C lean", 1024, true, "x", true, 0.97, 0, 1.02,
                        1.0, 1.04,
                        Goal.Status.MET, "goal one at a time at 1024 B"),
                new GoalChart.Row("depth", "depth 64: 8x depth 1", 32, true, "x", true, 8, 0, 36.1, 35.7, 44.5,
                        Goal.Status.MET, "goal depth"),
                new GoalChart.Row("wait", "spin:50us within 10 % of spinning", 32, true, "x", true, 0.9, 0.1, 0.98, 0.9,
                        1.01,
                        Goal.Status.LEVEL, "goal level"),
                new GoalChart.Row("wait", "shared memory spinning: no syscall per call", 32, false, " syscalls", false,
                        0.0005, 0, 0, 0, 0,
                        Goal.Status.MET, "goal no syscall"),
                new GoalChart.Row("concurrency", "64 virtual callers on one client: at most 0.2 client syscalls"
                        + " per call", 32, false,
                        " syscalls", false, 0.2, 0, 0.267, 0.256, 0.284, Goal.Status.MISSED, "goal a <b> & \"c\""));
    }

    @Test
    void theGoalChartLabelsEachGoalWithItsPayloadAndCutsNoText() throws Exception {
        String svg = GoalChart.svg(chartRows(), "Run 1: every goal");
        // A file of its own (docs/results.svg): well-formed XML, every text escaped.
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        Document doc = f.newDocumentBuilder()
                .parse(new InputSource(new StringReader(svg)));
        assertEquals("svg", doc.getDocumentElement().getTagName());
        assertTrue(svg.contains("<title>goal a &lt;b&gt; &amp; &quot;c&quot;</title>"), svg);
        // The same goal at 32 B and at 1 KiB reads differently.
        assertTrue(svg.contains(">one at a time: at least 0.97x C lean · 32 B</text>"), svg);
        assertTrue(svg.contains(">one at a time: at least 0.97x C lean · 1 KiB</text>"), svg);
        // A long name wraps, its payload never on a line of its own.
        assertTrue(svg.contains(">64 virtual callers on one client: at most 0.2</text>"), svg);
        assertTrue(svg.contains(">client syscalls per call · 32 B</text>"), svg);
        // The ratios on a log axis with ticks at powers of two, the own figures over their threshold on a linear one.
        for (String tick : List.of(">0.5</text>", ">1</text>", ">2</text>", ">4</text>", ">8</text>", ">64</text>",
                ">1.5</text>")) {
            assertTrue(svg.contains(tick), tick + " in " + svg);
        }
        assertTrue(svg.contains(">0.964x [0.889-0.979] ≥ 0.97x</text>"), svg);
        assertTrue(svg.contains(">0.980x [0.900-1.010] level 0.90-1.10x</text>"), svg);
        assertTrue(svg.contains(">0.267 [0.256-0.284] ≤ 0.20 syscalls</text>"), svg);
        assertTrue(svg.contains(">NOT SETTLED</text>"), svg);
        // Nothing is cut: every text starts inside the drawing, and the widest column ends before its right edge.
        Matcher width = Pattern.compile("<svg [^>]*width=\"(\\d+)\" height=\"(\\d+)\" viewBox=\"0 0 (\\d+)"
                + " (\\d+)\"").matcher(svg);
        assertTrue(width.find(), svg);
        int w = Integer.parseInt(width.group(1));
        assertEquals(width.group(1), width.group(3), "scales to its box: the viewBox is the drawing");
        Matcher verdict = Pattern.compile("<text x=\"([0-9.]+)\" y=\"[0-9.]+\" font-weight=\"bold\""
                + " fill=\"#[0-9a-f]+\">NOT SETTLED</text>")
                .matcher(svg);
        assertTrue(verdict.find(), svg);
        assertTrue(Double.parseDouble(verdict.group(1)) + "NOT SETTLED".length() * GoalChart.CAPS <= w, "the"
                + " verdict ends inside " + w);
        Matcher x = Pattern.compile("<text x=\"([0-9.]+)\"").matcher(svg);
        while (x.find()) assertTrue(Double.parseDouble(x.group(1)) < w, x.group());
    }

    @Test
    void ratioAxesTickAtValuesOneReadsOff() {
        assertEquals(List.of(0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0), GoalChart.ratioTicks(0.25, 64));
        assertEquals(List.of(0.75, 1.0, 1.25, 1.5, 1.75), GoalChart.ratioTicks(0.72, 1.9));
        assertEquals(List.of(0.5, 1.0, 1.5, 2.0, 2.5), GoalChart.ratioTicks(0.5, 2.5));
        assertEquals(List.of(0.9, 1.0, 1.1, 1.2, 1.3), GoalChart.ratioTicks(0.85, 1.34));
        assertEquals(List.of(0.97, 0.98, 0.99, 1.0, 1.01, 1.02, 1.03), GoalChart.ratioTicks(0.97, 1.03));
        for (double[] range : new double[][] {{0.3, 0.9}, {0.97, 1.03}, {1.2, 40}, {0.01, 300}, {1.5, 2.4}}) {
            List<Double> ticks = GoalChart.ratioTicks(range[0], range[1]);
            assertTrue(ticks.size() >= 3 && ticks.size() <= 12, range[0] + "-" + range[1] + ": " + ticks);
            for (double t : ticks) {
                boolean power = Math.abs(Math.log(t) / Math.log(2) - Math.rint(Math.log(t) / Math.log(2))) < 1e-9;
                boolean round = Math.abs(t * 100 - Math.rint(t * 100)) < 1e-9;
                assertTrue(power || round, range[0] + "-" + range[1] + ": " + t);
            }
        }
        assertEquals(List.of("1/16", "0.125", "0.25", "0.75", "1", "1.5", "64"),
                Stream.of(0.0625, 0.125, 0.25, 0.75, 1.0, 1.5, 64.0).map(GoalChart::tick).toList());
        // report.html's box charts take the same ticks.
        RatioAxis axis = new RatioAxis("ratio");
        axis.setRange(0.72, 1.9);
        assertEquals(List.of("0.75", "1", "1.25", "1.5", "1.75"),
                axis.refreshTicks(null, null, null, RectangleEdge.LEFT)
                .stream().map(t -> t.getText()).toList());
    }

    @Test
    void jsonHoldsEveryRoundsRawFiguresInRunOrder() {
        BenchRun run = known();
        String json = ResultFiles.json(run, run.table(PairingTable.NAME));
        int at = json.indexOf("\"runs\":[");
        assertTrue(at > 0, json);
        Matcher m =
                Pattern.compile("\\{\"cell\":\"([a-z0-9-]+)\",\"payload\":(\\d+),\"round\":(\\d+),\"clients\":1,"
                + "\"calls\":(\\d+),")
                .matcher(json.substring(at));
        List<String> seen = new ArrayList<>();
        while (m.find()) seen.add(m.group(1) + "/" + m.group(2) + "/" + m.group(3) + "/" + m.group(4));
        assertEquals(30, seen.size(), "5 rounds x 6 cells");
        assertEquals(List.of("baseline/32/1/1000", "seed-v3/32/1/1250", "merged/32/1/1050",
                "baseline/1024/1/1000", "seed-v3/1024/1/1250", "merged/1024/1/1050", "baseline/32/2/1000"),
                seen.subList(0, 7));
        assertEquals("merged/1024/5/1050", seen.get(29));
        // Every figure of a run, per call: client and server syscalls by kind, CPU, where it ran.
        assertTrue(json.contains("\"client_lib_sendto_per_call\":1,\"client_lib_recvfrom_per_call\":1,"), json);
        assertTrue(json.contains("\"server_kernel_epoll_wait_per_call\":1,"), json);
        assertTrue(
                json.contains("\"client_cpu_us_per_call\":20,\"client_user_us_per_call\":8,"
                + "\"client_sys_us_per_call\":16,"), json);
        assertTrue(json.contains("\"cpus\":\"client cpu 0; server cpu 1\"}"), json);
        assertTrue(
                json.contains("\"goals\":[{\"name\":\"seed patch: +10 % calls/s\",\"subject\":\"seed-v3\","
                + "\"versus\":\"baseline\","
                + "\"payload\":32,\"metric\":\"calls/s\",\"want\":\">= 1.10x\",\"table\":\"matrix\","
                        + "\"kind\":\"at_least\",\"threshold\":1.1,"
                + "\"margin\":0,\"per_round\":[1.25,1.25,1.25,1.25,1.25],\"rounds\":5,\"median\":1.25,\"min\":1.25,"
                        + "\"max\":1.25,"
                + "\"estimate\":1.25,\"ci_lo\":1.25,\"ci_hi\":1.25,\"ci_level\":0.95,\"status\":\"met\","
                        + "\"rounds_needed\":null,"), json);
    }

    @Test
    void jsonEscapesStringsAndWritesNumbersPlainly() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("a", "x\"y\n");
        m.put("b", Arrays.asList(1, 2.5, null, true));
        assertEquals("{\"a\":\"x\\\"y\\n\",\"b\":[1,2.5,null,true]}", Json.write(m));
    }
}
