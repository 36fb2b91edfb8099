package org.sysframe.bench.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.bench.report.Json;
import org.sysframe.bench.report.ReportsTest;
import org.sysframe.bench.report.ResultFiles;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The README's results (its block, the chart, the goals' list), written from one run's run.json and nothing else. */
class ResultsCommandTest {
    /** A repository's README and docs/results.md, each with its markers around old figures. */
    static Path repository(Path dir) throws Exception {
        Files.createDirectories(dir.resolve("docs"));
        Files.writeString(dir.resolve("README.md"), "# title\nbefore\n" + ResultsCommand.BEGIN + "\nold"
                + " figures\n" + ResultsCommand.END
                + "\nafter\n");
        Files.writeString(dir.resolve("docs/results.md"), "# results\n## The goals of the run in the README\n"
                + ResultsCommand.GOALS_BEGIN
                + "\nold goals\n" + ResultsCommand.GOALS_END + "\nmore\n");
        return dir.resolve("README.md");
    }

    @Test
    void theReadmeGetsTheChartAndAFewLinesAndDocsResultsTheGoalsFromOneRunTheRestKept(@TempDir Path dir)
            throws Exception {
        Path out = dir.resolve("20261201-101500");
        ResultFiles.writeAll(ReportsTest.known(), out);
        Path readme = repository(dir.resolve("repo"));
        ResultsCommand c = new ResultsCommand();
        c.from = out.resolve("run.json");
        c.readme = readme;
        Path chart = readme.getParent().resolve("docs/results.svg");
        Path page = readme.getParent().resolve("docs/results.md");
        assertEquals("wrote the results block of " + readme + ", the chart " + chart + " and the goal list of " + page
                + " from " + c.from + "\n", Quietly.run(c));
        String text = Files.readString(readme);
        assertEquals("# title\nbefore\n" + ResultsCommand.BEGIN + "\n"
                + "![Every goal of run 20261201-101500 against its threshold](docs/results.svg)\n\n"
                + "- **Run** `20261201-101500`: commit not known; 0 min 13 s; 5 interleaved rounds per cell,"
                + " more for the cells of goals\n"
                + "  not yet settled; file `run.json`.\n"
                + "- **Machine**: test machine.\n"
                + "- **Goals**: 2 met, 2 missed, 0 level, 0 not settled (of 4).\n"
                + "- Every goal with its figure, interval, rounds and verdict:\n"
                + "  [docs/results.md](docs/results.md#the-goals-of-the-run-in-the-readme); why the count of"
                + " missed and not settled goals\n"
                + "  differs between machines and runs: [on a VM](docs/results.md#how-to-read-the-goals-on-a-vm).\n"
                + ResultsCommand.END + "\nafter\n", text);
        String between = text.substring(text.indexOf(ResultsCommand.BEGIN), text.indexOf(ResultsCommand.END));
        int lines = between.split("\n").length - 1;
        assertTrue(lines <= 10, lines + " lines between the markers");
        assertEquals("# results\n## The goals of the run in the README\n" + ResultsCommand.GOALS_BEGIN + "\n"
                + "From one run, `20261201-101500` (test machine; commit not known; 0 min 13 s; 5 interleaved"
                + " rounds per cell, more for the\n"
                + "cells of goals not yet settled; file `run.json`). Each goal: the estimate and 95 % interval"
                + " of its per-round figure, the\n"
                + "rounds, the threshold, the verdict. Goals: 2 met, 2 missed, 0 level, 0 not settled (of 4).\n"
                + "- **matrix**\n"
                + "  - seed patch: +10 % calls/s · 32 B (seed-v3 vs baseline): 1.250x [1.250-1.250], 5 rounds,"
                + " want >= 1.10x: **met**\n"
                + "  - seed patch: 15 % less CPU · 32 B (seed-v3 vs baseline): 0.640x [0.640-0.640], 5 rounds,"
                + " want <= 0.85x: **met**\n"
                + "  - merged change: +10 % calls/s · 32 B (merged vs baseline): 1.050x [1.050-1.050], 5 rounds,"
                + " want >= 1.10x: **MISSED**\n"
                + "  - merged change: 15 % less CPU · 32 B (merged vs baseline): 0.952x [0.952-0.952], 5 rounds,"
                + " want <= 0.85x: **MISSED**\n"
                + ResultsCommand.GOALS_END + "\nmore\n", Files.readString(page));
        // The chart is the report's (one drawing for both), titled with the run.
        String svg = Files.readString(chart);
        assertTrue(svg.startsWith("<svg xmlns=\"http://www.w3.org/2000/svg\""), svg);
        assertTrue(svg.contains(">Run 20261201-101500: every goal's estimate (dot) and 95 % interval (bar)"
                + " against its threshold</text>"), svg);
        assertTrue(svg.contains(">merged change: +10 % calls/s · 32 B</text>"), svg);
        assertEquals(4, svg.split("r=\"4.5\"", -1).length - 1, "one dot per goal");
        // Written again from the same run: the same files.
        String once = Files.readString(readme) + Files.readString(page) + svg;
        Quietly.run(c);
        assertEquals(once, Files.readString(readme) + Files.readString(page) + Files.readString(chart));
    }

    @Test
    void theWrittenMarkdownFitsItsWidthAndNoLineStartsAsAQuoteOrAList() {
        String words = "want >= 0.97x: **NOT SETTLED** - a dash, 1. a number, # a hash, <= and + and * and 2) again ";
        for (int shift = 0; shift < 40; shift++) {
            String lines = ResultsCommand.wrapped("  - ", "x".repeat(shift) + " " + words.repeat(4));
            for (String line : lines.split("\n")) {
                assertTrue(line.length() <= ResultsCommand.WIDTH, line);
                String rest = line.substring(4);
                assertFalse(rest.matches("([>#*+=`|<-]|\\d+[.)]( |$)).*"), "a line starts as Markdown would read"
                        + " it: " + line);
            }
            String joined = String.join(" ", lines.substring(4).split("\n {4}")).strip();
            assertEquals(("x".repeat(shift) + " " + words.repeat(4)).strip(), joined,
                    "the same words, in the same order");
        }
    }

    @Test
    void withoutReadmeBothBlocksArePrintedAndNoFileTouched(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("20261201-101500");
        ResultFiles.writeAll(ReportsTest.known(), out);
        Path readme = repository(dir);
        String before = Files.readString(readme) + Files.readString(dir.resolve("docs/results.md"));
        ResultsCommand c = new ResultsCommand();
        c.from = out.resolve("run.json");
        String printed = Quietly.run(c);
        assertTrue(printed.startsWith(ResultsCommand.BEGIN + "\n![Every goal of run 20261201-101500"), printed);
        assertTrue(printed.contains(ResultsCommand.END + "\n\n" + ResultsCommand.GOALS_BEGIN + "\nFrom one run,"
                + " `20261201-101500` (test machine;"),
                printed);
        assertTrue(printed.endsWith(ResultsCommand.GOALS_END + "\n"), printed);
        assertEquals(before, Files.readString(readme) + Files.readString(dir.resolve("docs/results.md")));
        assertFalse(Files.exists(dir.resolve("docs/results.svg")));
        // --readme alone means README.md in the current directory; --readme FILE that file.
        ResultsCommand parsed = new ResultsCommand();
        new picocli.CommandLine(parsed).parseArgs("--from", "x.json", "--readme");
        assertEquals(Path.of("README.md"), parsed.readme);
        new picocli.CommandLine(parsed).parseArgs("--from", "x.json", "--readme", readme.toString());
        assertEquals(readme, parsed.readme);
    }

    @Test
    void aPageWithoutItsMarkersChangesNothing(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("run");
        ResultFiles.writeAll(ReportsTest.known(), out);
        Path readme = repository(dir.resolve("repo"));
        Path page = readme.getParent().resolve("docs/results.md");
        Files.writeString(page, "# results, no markers\n");
        String before = Files.readString(readme);
        ResultsCommand c = new ResultsCommand();
        c.from = out.resolve("run.json");
        c.readme = readme;
        assertEquals(page + ": expected one line '" + ResultsCommand.GOALS_BEGIN + "' and, after it, one line"
                + " '" + ResultsCommand.GOALS_END + "'",
                assertThrows(IllegalArgumentException.class, c::call).getMessage());
        assertEquals(before, Files.readString(readme));
        assertFalse(Files.exists(readme.getParent().resolve("docs/results.svg")));
        Files.delete(page);
        assertEquals("--readme: " + page + ": no such file",
                assertThrows(IllegalArgumentException.class, c::call).getMessage());
        assertEquals(before, Files.readString(readme));
    }

    @Test
    void aFileWithoutTheMarkersOrAFileThatIsNoRunIsRefusedInOneLine(@TempDir Path dir) throws Exception {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ResultsCommand.replace("no markers\n", ResultsCommand.BEGIN, ResultsCommand.END, "x",
                        "README.md"));
        assertEquals("README.md: expected one line '" + ResultsCommand.BEGIN + "' and, after it, one line '"
                + ResultsCommand.END + "'",
                e.getMessage());
        Path notRun = dir.resolve("x.json");
        Files.writeString(notRun, "{\"goals\":[]}");
        ResultsCommand c = new ResultsCommand();
        c.from = notRun;
        c.readme = dir.resolve("README.md");
        assertEquals("--from " + notRun
                + ": not a matrix run.json (it lacks the keys run, machine, rounds, seconds, tally, goals, tables)",
                assertThrows(IllegalArgumentException.class, c::call).getMessage());
        // A table's JSON (it has goals too) is no run.json: refused, naming the file to take.
        ResultFiles.writeAll(ReportsTest.known(), dir.resolve("run"));
        c.from = dir.resolve("run").resolve("results.json");
        assertEquals("--from " + c.from
                + ": not a matrix run.json (it is the JSON of the table matrix; run.json lies beside it)",
                assertThrows(IllegalArgumentException.class, c::call).getMessage());
        c.from = dir.resolve("missing.json");
        assertEquals("--from " + c.from + ": no such file (matrix writes run.json into its output directory)",
                assertThrows(IllegalArgumentException.class, c::call).getMessage());
        // A directory, a file that is not JSON, a goal without its figures: one line each, naming the file.
        c.from = dir.resolve("run");
        assertEquals("--from " + c.from + ": a directory; give the run.json in it (" + c.from.resolve("run.json") + ")",
                assertThrows(IllegalArgumentException.class, c::call).getMessage());
        c.from = dir.resolve("run").resolve("report.html");
        assertEquals("--from " + c.from + ": not a matrix run.json (not JSON at offset 0: unexpected character '<')",
                assertThrows(IllegalArgumentException.class, c::call).getMessage());
        String run = Files.readString(dir.resolve("run").resolve("run.json"));
        Path broken = dir.resolve("broken.json");
        Files.writeString(broken, run.replace("\"ci_lo\":", "\"ci_low\":"));
        c.from = broken;
        assertEquals("--from " + broken + ": not a matrix run.json (a goal without a number 'ci_lo')",
                assertThrows(IllegalArgumentException.class, c::call).getMessage());
    }

    @Test
    void jsonIsReadBackAsWritten() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("a", "x\"y\n\u00e9");
        m.put("b", Arrays.asList(1.5, null, true, List.of()));
        m.put("c", Map.of());
        assertEquals(m.toString(), Json.parse(Json.write(m)).toString());
        assertEquals("not JSON at offset 7: expected ',' or '}'", assertThrows(IllegalArgumentException.class,
                () -> Json.parse("{\"a\":1 \"b\":2}")).getMessage());
    }
}
