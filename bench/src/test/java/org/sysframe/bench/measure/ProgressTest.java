package org.sysframe.bench.measure;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The progress reporter as the runner drives it, on a clock that only the probe advances (1 s a run):
 * off a terminal one line per table, on one a line redrawn in place; no timing in it.
 */
class ProgressTest {
    private final long[] now = {0};
    private final StringBuilder out = new StringBuilder();

    /** Cell a makes 1.3x b's calls/s in every round; every run takes 1 s of the clock. */
    private final Cell.Probe probe = (cell, calls, round) -> {
        now[0] += 1_000_000_000L;
        double r = cell.name().equals("a") ? 1.3 : 1;
        return new Measurement(cell.name(), cell.payload(), round, 1, 1000, 0.1 / r, 1, 1, 1, 1, 1, null, null, null,
                null, null, null, null);
    };

    private final Goal goal = new Goal("+5 %", "t1", "a", "b", 32, Goal.Metric.CALLS_RATIO, true, 1.05);

    private Progress progress(boolean terminal) {
        return new Progress("matrix", 2, List.of(goal), terminal, out::append, () -> now[0]);
    }

    /** Table t1 (b and a, 6 rounds, in two sets of rounds), then table t2 (one cell, 6 rounds). */
    private void twoTables(Progress p) throws Exception {
        List<Cell> t1 = List.of(new Cell("b", 32, "", 1000, 0, probe), new Cell("a", 32, "", 1000, 0, probe));
        Progress.during(p, () -> {
            RoundRunner.run("t1", t1, 6);
            RoundRunner.run("t1", List.of(new Cell("c", 32, "", 1000, 0, probe)), 6); // a second set of the same table
            return RoundRunner.run("t2", List.of(new Cell("d", 32, "", 1000, 0, probe)), 6);
        });
    }

    @Test
    void offATerminalEachTableIsOneLineWithTheTimeSoFarTheEstimateAndTheGoalsSettled() throws Exception {
        twoTables(progress(false));
        assertEquals("sysframe matrix: table 1/2, t1 (2 cells x 6 rounds); 0 s so far\n"
                // t1 took 18 s, and its goal was met; t2 is estimated as long as t1 was.
                + "sysframe matrix: table 2/2, t2 (1 cell x 6 rounds); 18 s so far, about 18 s left; goals so far: 1 "
                        + "met, 0 missed, 0 level,"
                + " 0 not settled (of 1)\n", out.toString());
    }

    @Test
    void onATerminalOneLineIsRedrawnInPlaceAndClearedAtTheEnd() throws Exception {
        twoTables(progress(true));
        List<String> draws = List.of(out.toString().split("\r", -1));
        assertEquals("", draws.get(0), "every draw starts with a carriage return");
        assertEquals("[1/2 t1] goals 0/1 settled; round 1/6: b, 32 B\033[K", draws.get(1),
                "no estimate before a run ended");
        // 3 runs of 12 in 3 s: 9 s left in t1, and t2 as long as t1 (12 s) is projected to be.
        assertEquals("[1/2 t1] about 21 s left; goals 0/1 settled; round 2/6: b, 32 B\033[K", draws.get(4));
        assertTrue(draws.contains("[2/2 t2] about 18 s left; goals 1/1 settled; round 1/6: d, 32 B\033[K"),
                draws.toString());
        assertEquals("\033[K", draws.getLast(), "the line cleared at the end");
        for (String d : draws) assertTrue(d.replace("\033[K", "").length() <= Progress.TERMINAL_COLUMNS, d);
    }

    @Test
    void aRunWithNoReporterInstalledPrintsNothingOffATerminal() throws Exception {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true));
        List<Measurement> runs = new ArrayList<>();
        try {
            runs.addAll(RoundRunner.run("ping", List.of(new Cell("ping", 32, "", 1000, 10, probe)), 1));
        } finally {
            System.setErr(err);
        }
        assertEquals(1, runs.size());
        assertEquals("", captured.toString(),
                "stderr is no terminal here (surefire's pipe): ping's line is for terminals only");
    }

    @Test
    void durationsReadAsSecondsThenMinutes() {
        assertEquals("0 s", Progress.duration(-3));
        assertEquals("59 s", Progress.duration(59.4));
        assertEquals("3 min 10 s", Progress.duration(190));
    }
}
