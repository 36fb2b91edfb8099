package org.sysframe.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.unix.SyscallCounts;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The report writer on a known two-pairing, one-payload result. */
class ReportWriterTest {
    static MatrixResult known() {
        SyscallCounts split = SyscallCounts.of(2000, 2000, 0, 0, 0, 0, 0);
        SyscallCounts copy = SyscallCounts.of(1000, 1000, 0, 0, 0, 0, 0);
        SyscallCounts server = SyscallCounts.of(1000, 1000, 0, 0, 0, 0, 1000);
        List<PingResult> base = new ArrayList<>(), seed = new ArrayList<>(), merged = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            base.add(StatisticsTest.result("baseline", 1000, 0.1, 30_000_000, 20_000_000, split, server));   // 10000/s, 50 us
            seed.add(StatisticsTest.result("seed-v3", 1250, 0.1, 25_000_000, 15_000_000, copy, server));    // 12500/s, 32 us
            merged.add(StatisticsTest.result("merged", 1050, 0.1, 30_000_000, 20_000_000, copy, server));   // 10500/s, 47.6 us
        }
        List<Pairing> pairings = Pairing.standard().subList(0, 3);
        List<CellSummary> cells = List.of(
                CellSummary.of("baseline", 32, base, base),
                CellSummary.of("seed-v3", 32, seed, base),
                CellSummary.of("merged", 32, merged, base));
        return new MatrixResult("test machine", pairings, new int[] {32}, 5, false, 12.5, cells, null, null);
    }

    @Test
    void tableShowsMediansRatiosCountsAndTargets() {
        String t = ReportWriter.table(known());
        assertTrue(t.contains("seed-v3       32     12500   0.0 1.250 [1.250-1.250]"), t);
        assertTrue(t.contains("2 sendto + 2 recvfrom"), t);
        assertTrue(t.contains("1 sendto + 1 recvfrom + 1 epoll_wait"), t);
        assertTrue(t.contains("target (seed-v3 vs baseline at 32 B): calls/s +25.0 % (want >= +10 %): met; CPU per call 36.0 % less (want >= 15 %): met"), t);
        assertTrue(t.contains("target (merged vs baseline at 32 B): calls/s +5.0 % (want >= +10 %): MISSED; CPU per call 4.8 % less (want >= 15 %): MISSED"), t);
    }

    @Test
    void writesCsvJsonAndAnHtmlPageWithThreeChartImages(@TempDir Path dir) throws Exception {
        ReportWriter.writeAll(known(), dir);
        List<String> csv = Files.readAllLines(dir.resolve("results.csv"));
        assertEquals(4, csv.size());
        assertTrue(csv.get(0).startsWith("pairing,payload,rounds,calls_per_sec_median,"), csv.get(0));
        assertTrue(csv.get(2).startsWith("seed-v3,32,5,12500.0,12500.0,12500.0,1.25000,"), csv.get(2));

        String json = Files.readString(dir.resolve("results.json"));
        assertTrue(json.startsWith("{\"machine\":\"test machine\",\"rounds\":5,"), json);
        assertTrue(json.contains("\"pairing\":\"merged\",\"payload\":32,\"rounds\":5,\"calls_per_sec_median\":10500,"), json);

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
        assertEquals(3, images);
        assertTrue(html.contains("class=\"miss\""), "missed targets are highlighted");
        assertTrue(html.contains("<td class=l>seed-v3</td><td>32</td><td>12500</td><td>1.250 [1.250-1.250]</td>"), html);
    }

    @Test
    void jsonEscapesStringsAndWritesNumbersPlainly() {
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("a", "x\"y\n");
        m.put("b", java.util.Arrays.asList(1, 2.5, null, true));
        assertEquals("{\"a\":\"x\\\"y\\n\",\"b\":[1,2.5,null,true]}", Json.write(m));
    }
}
