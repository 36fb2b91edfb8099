package org.sysframe.bench.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.bench.report.Json;
import org.sysframe.bench.report.ReportsTest;
import org.sysframe.bench.report.ResultFiles;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The README's results block, written from one run's run.json and nothing else. */
class ResultsCommandTest {
    @Test
    void theBlockBetweenTheMarkersIsWrittenFromOneRunAndTheRestIsKept(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("20261201-101500");
        ResultFiles.writeAll(ReportsTest.known(), out);
        Path readme = dir.resolve("README.md");
        Files.writeString(readme, "# title\nbefore\n" + ResultsCommand.BEGIN + "\nold figures\n" + ResultsCommand.END + "\nafter\n");
        ResultsCommand c = new ResultsCommand();
        c.from = out.resolve("run.json");
        c.readme = readme;
        assertEquals("wrote the results block of " + readme + " from " + c.from + "\n", quietly(c));
        assertEquals("# title\nbefore\n" + ResultsCommand.BEGIN + "\n"
                + "From one run, `20261201-101500` (test machine; commit not known; 0 min 13 s; 5 interleaved rounds per cell, more for the"
                + " cells of goals not yet settled; file `run.json`). Each goal: the estimate and 95 % interval of its per-round figure,"
                + " the rounds, the threshold, the verdict. Goals: 2 met, 2 missed, 0 level, 0 not settled (of 4), in 0 min 13 s.\n"
                + "- **matrix**\n"
                + "  - seed patch: +10 % calls/s (seed-v3 vs baseline, 32 B): 1.250x [1.250-1.250], 5 rounds, want >= 1.10x: **met**\n"
                + "  - seed patch: 15 % less CPU (seed-v3 vs baseline, 32 B): 0.640x [0.640-0.640], 5 rounds, want <= 0.85x: **met**\n"
                + "  - merged change: +10 % calls/s (merged vs baseline, 32 B): 1.050x [1.050-1.050], 5 rounds, want >= 1.10x: **MISSED**\n"
                + "  - merged change: 15 % less CPU (merged vs baseline, 32 B): 0.952x [0.952-0.952], 5 rounds, want <= 0.85x: **MISSED**\n"
                + ResultsCommand.END + "\nafter\n", Files.readString(readme));
        // Written again from the same run: the same file.
        String once = Files.readString(readme);
        quietly(c);
        assertEquals(once, Files.readString(readme));
    }

    @Test
    void withoutReadmeTheBlockIsPrintedAndNoFileTouched(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("20261201-101500");
        ResultFiles.writeAll(ReportsTest.known(), out);
        Path readme = dir.resolve("README.md");
        String text = "# title\n" + ResultsCommand.BEGIN + "\nold figures\n" + ResultsCommand.END + "\n";
        Files.writeString(readme, text);
        ResultsCommand c = new ResultsCommand();
        c.from = out.resolve("run.json");
        String printed = quietly(c);
        assertTrue(printed.startsWith(ResultsCommand.BEGIN + "\nFrom one run, `20261201-101500` (test machine;"), printed);
        assertTrue(printed.endsWith(ResultsCommand.END + "\n"), printed);
        assertEquals(text, Files.readString(readme));
        // --readme alone means README.md in the current directory; --readme FILE that file.
        ResultsCommand parsed = new ResultsCommand();
        new picocli.CommandLine(parsed).parseArgs("--from", "x.json", "--readme");
        assertEquals(Path.of("README.md"), parsed.readme);
        new picocli.CommandLine(parsed).parseArgs("--from", "x.json", "--readme", readme.toString());
        assertEquals(readme, parsed.readme);
    }

    /** Runs c with System.out captured (a green run is quiet); what it printed. */
    static String quietly(ResultsCommand c) throws Exception {
        java.io.PrintStream out = System.out;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setOut(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            assertEquals(0, c.call());
        } finally {
            System.setOut(out);
        }
        return captured.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void aFileWithoutTheMarkersOrAFileThatIsNoRunIsRefusedInOneLine(@TempDir Path dir) throws Exception {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ResultsCommand.replace("no markers\n", "x", "README.md"));
        assertEquals("README.md: expected one line '" + ResultsCommand.BEGIN + "' and, after it, one line '" + ResultsCommand.END + "'",
                e.getMessage());
        Path notRun = dir.resolve("x.json");
        Files.writeString(notRun, "{\"goals\":[]}");
        ResultsCommand c = new ResultsCommand();
        c.from = notRun;
        c.readme = dir.resolve("README.md");
        assertEquals("--from " + notRun + ": not a matrix run.json (it lacks the keys run, machine, rounds, seconds, tally, goals, tables)",
                assertThrows(IllegalArgumentException.class, c::call).getMessage());
        // A table's JSON (it has goals too) is no run.json: refused, naming the file to take.
        ResultFiles.writeAll(ReportsTest.known(), dir.resolve("run"));
        c.from = dir.resolve("run").resolve("results.json");
        assertEquals("--from " + c.from + ": not a matrix run.json (it is the JSON of the table matrix; run.json lies beside it)",
                assertThrows(IllegalArgumentException.class, c::call).getMessage());
        c.from = dir.resolve("missing.json");
        assertEquals("--from " + c.from + ": no such file (matrix writes run.json into its output directory)",
                assertThrows(IllegalArgumentException.class, c::call).getMessage());
    }

    @Test
    void jsonIsReadBackAsWritten() {
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("a", "x\"y\n\u00e9");
        m.put("b", java.util.Arrays.asList(1.5, null, true, java.util.List.of()));
        m.put("c", java.util.Map.of());
        assertEquals(m.toString(), Json.parse(Json.write(m)).toString());
        assertEquals("not JSON at offset 7: expected ',' or '}'", assertThrows(IllegalArgumentException.class,
                () -> Json.parse("{\"a\":1 \"b\":2}")).getMessage());
    }
}
