package org.sysframe.bench.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.bench.report.ReportsTest;
import org.sysframe.bench.report.ResultFiles;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Options that cannot work together, or an output that cannot be written, are refused before anything
 * is measured: one line on stderr, exit code 2 (a usage error), and nothing else printed, neither on
 * stdout nor by the progress reporter (whose first line comes when the first table begins).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class OptionRefusalsTest {
    @TempDir Path dir;

    /** args run through Main.execute, System.out and System.err captured: all that was printed is err's one line. */
    private static String refused(String... args) {
        StringWriter err = new StringWriter();
        PrintStream out0 = System.out, err0 = System.err;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream capture = new PrintStream(printed, true, StandardCharsets.UTF_8);
        System.setOut(capture);
        System.setErr(capture);
        int rc;
        try {
            rc = Main.execute(new PrintWriter(new StringWriter(), true), new PrintWriter(err, true), args);
        } finally {
            System.setOut(out0);
            System.setErr(err0);
        }
        assertEquals(Main.USAGE, rc, err.toString());
        assertEquals("", printed.toString(StandardCharsets.UTF_8), "nothing started: " + String.join(" ", args));
        String line = err.toString();
        assertEquals(1, line.lines().count(), line);
        return line.strip();
    }

    @Test
    void anOutputThatIsNotAWritableDirectoryIsRefusedAtTheStart() throws Exception {
        Path file = Files.writeString(dir.resolve("file"), "x");
        assertEquals("sysframe compare: --out " + file + ": not a directory",
                refused("compare", "--out", file.toString(), "--quick"));
        assertEquals("sysframe matrix: --out " + file.resolve("run") + ": not a directory (at " + file + ")",
                refused("matrix", "--out", file.resolve("run").toString(), "--quick"));
        assertEquals("sysframe sweep: --out " + file + ": not a directory",
                refused("sweep", "copy-threshold=256,4096", "--out", file.toString()));
    }

    @Test
    void tooFewRoundsAreRefusedAlikeByTheCommandsSharingTheOption() {
        assertEquals("sysframe compare: --rounds 4: at least 5 (medians need them)",
                refused("compare", "--rounds", "4"));
        assertEquals("sysframe sweep: --rounds 4: at least 5 (medians need them)",
                refused("sweep", "copy-threshold=256,4096", "--rounds", "4"));
        assertEquals("sysframe tune: --rounds 4: at least 5 (medians need them)", refused("tune", "--rounds", "4"));
    }

    @Test
    void quickAndFullTogetherAreRefused() {
        assertEquals("sysframe matrix: --quick and --full: choose one (--quick shortens every table, --full runs its "
                + "whole grid)",
                refused("matrix", "--quick", "--full"));
    }

    @Test
    void tunePayloadsAndAHistogramTogetherAreRefused() {
        // The histogram is the workload's sizes: --payloads beside it was ignored. Refused before the file is read.
        assertEquals("sysframe tune: --payloads and --histogram: choose one (the histogram's sizes are the workload's)",
                refused("tune", "--payloads", "64", "--histogram", dir.resolve("h.txt").toString()));
    }

    @Test
    void resultsRefusesATableJsonInOneLine() throws Exception {
        ResultFiles.writeAll(ReportsTest.known(), dir);
        Path table = dir.resolve("results.json");
        assertEquals("sysframe results: --from " + table
                + ": not a matrix run.json (it is the JSON of the table matrix; run.json lies beside it)",
                refused("results", "--from", table.toString()));
    }
}
