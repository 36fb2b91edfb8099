package org.sysframe.bench.measure;

import org.junit.jupiter.api.Test;
import org.sysframe.bench.peer.ClientThreadsProbe;
import org.sysframe.unix.SyscallCounts;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * The one runner: warm-ups first, then every cell once per round, in the cells' order in odd rounds and reversed in
 * even ones.
 */
class RoundRunnerTest {
    @Test
    void roundsAreInterleavedCellByCellInTheCellsOrderThenReversed() throws Exception {
        List<String> order = new ArrayList<>();
        Cell.Probe probe = (cell, calls, round) -> {
            order.add(cell.key() + " r" + round + " n" + calls);
            return new Measurement(cell.name(), cell.payload(), round, 1, calls, 1.0, 1, 1, 1, 1, 1,
                    SyscallCounts.ZERO, null, null, null, new ThreadCpu(0, 0, 0, 0, 0), null, null);
        };
        List<Cell> cells = List.of(new Cell("A", 32, "", 100, 50, probe), new Cell("B", 32, "", 100, 0, probe),
                new Cell("A", 1024, "", 10, 5, probe));
        List<Measurement> runs = RoundRunner.run("test", cells, 3);
        assertEquals(List.of("A/32 r0 n50", "A/1024 r0 n5",
                "A/32 r1 n100", "B/32 r1 n100", "A/1024 r1 n10",
                "A/1024 r2 n10", "B/32 r2 n100", "A/32 r2 n100",
                "A/32 r3 n100", "B/32 r3 n100", "A/1024 r3 n10"), order);
        assertEquals(9, runs.size(), "warm-ups are not kept");
        assertEquals(List.of(1, 1, 1, 2, 2, 2, 3, 3, 3), runs.stream().map(Measurement::round).toList());

        BenchTable t = BenchTable.of("t", "t", "pairing", "A", false, 3, cells, runs, List.of());
        assertEquals(List.of(1, 2, 3), t.runs("B", 32).stream().map(Measurement::round).toList());
        assertEquals(List.of("A", "B"), t.names());
        assertEquals(List.of(32, 1024), t.payloads());
        assertEquals(3, t.rows().size());
        assertEquals(1.0, t.row("B", 32).ratio().median());
    }

    @Test
    void aWarmUpIsRepeatedUntilItLastedAtLeastItsMinimumThenTheRoundsRun() throws Exception {
        List<String> order = new ArrayList<>();
        Cell.Probe probe = (cell, calls, round) -> {
            order.add(cell.key() + " r" + round);
            double seconds = cell.name().equals("fast") ? 0.04 : 0.2;
            return new Measurement(cell.name(), cell.payload(), round, 1, calls, seconds, 1, 1, 1, 1, 1,
                    SyscallCounts.ZERO, null, null, null, new ThreadCpu(0, 0, 0, 0, 0), null, null);
        };
        List<Cell> cells = List.of(new Cell("fast", 32, "", 100, 25, probe), new Cell("slow", 32, "", 100, 25, probe));
        long[] tick = {0};
        RoundRunner.run("test", cells, 1, new RoundRunner.Plan(List.of(), AddedTime.of(0), 256, 1), 1,
                () -> ++tick[0]);
        // 0.04 s a run: four runs (0.16 s) reach 0.15 s; 0.2 s: one.
        assertEquals(List.of("fast/32 r0", "fast/32 r0", "fast/32 r0", "fast/32 r0", "slow/32 r0",
                "fast/32 r1", "slow/32 r1"), order);
        // Without a plan (ping's one cell: the user's count of warm-up calls), one run.
        order.clear();
        RoundRunner.run("test", cells, 1);
        assertEquals(List.of("fast/32 r0", "slow/32 r0", "fast/32 r1", "slow/32 r1"), order);
    }

    @Test
    void callsAreSplitEvenlyBetweenConcurrentClients() {
        assertEquals(5, ClientThreadsProbe.share(40, 8, 0));
        assertEquals(6, ClientThreadsProbe.share(43, 8, 2));
        assertEquals(5, ClientThreadsProbe.share(43, 8, 3));
        long sum = 0;
        for (int i = 0; i < 8; i++) sum += ClientThreadsProbe.share(43, 8, i);
        assertEquals(43, sum);
    }

    /** A probe whose cell a makes calls/s of its round's entry in aRatios times b's (b: 1000 calls in 0.1 s). */
    static Cell.Probe ratios(List<String> order, double... aRatios) {
        return (cell, calls, round) -> {
            order.add(cell.name() + " r" + round);
            double r = cell.name().equals("a") ? aRatios[Math.min(round, aRatios.length) - 1] : 1;
            return new Measurement(cell.name(), cell.payload(), round, 1, 1000, 0.1 / r, 1, 1, 1, 1, 1,
                    null, null, null, null, null, null, null);
        };
    }

    @Test
    void roundsAreAddedOnlyToTheCellsOfUnsettledGoalsStillInterleaved() throws Exception {
        List<String> order = new ArrayList<>();
        // a against b straddles 1.05 in the 6 first rounds, then runs at 1.3x: settled after some added rounds.
        Cell.Probe p = ratios(order, 1.0, 1.1, 1.0, 1.1, 1.0, 1.1, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3,
                1.3, 1.3, 1.3,
                1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3,
                        1.3);
        List<Cell> cells = List.of(new Cell("b", 32, "", 1000, 0, p), new Cell("c", 32, "", 1000, 0, p),
                new Cell("a", 32, "", 1000, 0, p));
        Goal g = new Goal("+5 %", "t", "a", "b", 32, Goal.Metric.CALLS_RATIO, true, 1.05);
        long[] tick = {0};
        RoundRunner.Plan plan = new RoundRunner.Plan(List.of(g), AddedTime.of(1e9), 256, 1);
        List<Measurement> runs = RoundRunner.run("t", cells, 6, plan, 1, () -> ++tick[0]);
        assertEquals(List.of("a r6", "c r6", "b r6", "b r7", "a r7", "a r8", "b r8", "b r9", "a r9"),
                order.subList(15, 24));
        assertEquals(6, t(runs, "c"), "c is in no unsettled goal: no round added");
        GoalVerdict v = GoalVerdict.of(g, runs);
        assertEquals(Goal.Status.MET, v.status());
        assertEquals(t(runs, "a"), v.perRound().length);
        // Rounds 7.. come in batches of half the rounds so far: looks at 6, 9, 13, 19, ... rounds.
        assertEquals(0, List.of(9, 13, 19, 28, 42).indexOf(t(runs, "a")) < 0 ? 1 : 0, "stopped at a look: "
                + t(runs, "a"));
    }

    @Test
    void addedRoundsStopWhenTheBudgetIsSpentOrAtTheCap() throws Exception {
        Goal g = new Goal("+5 %", "t", "a", "b", 32, Goal.Metric.CALLS_RATIO, true, 1.05);
        double[] straddling = new double[300];
        for (int i = 0; i < straddling.length; i++) straddling[i] = i % 2 == 0 ? 0.9 : 1.25;
        // A clock that advances 1 s per reading: an added round reads it at its start and end (1 s long,
        // 2 s from one start to the next); the budget of 10 s starts at the first reading.
        List<String> order = new ArrayList<>();
        Cell.Probe p = ratios(order, straddling);
        List<Cell> cells = List.of(new Cell("b", 32, "", 1000, 0, p), new Cell("a", 32, "", 1000, 0, p));
        long[] now = {0};
        RoundRunner.Plan plan = new RoundRunner.Plan(List.of(g), AddedTime.of(10), 256, 1);
        List<Measurement> runs = RoundRunner.run("t", cells, 6, plan, 1, () -> now[0] += 1_000_000_000L);
        assertEquals(11, t(runs, "a"), "5 rounds added: the 6th would end past the budget");
        assertEquals(Goal.Status.NOT_SETTLED, GoalVerdict.of(g, runs).status());
        long[] tick = {0};
        runs = RoundRunner.run("t", cells, 6, new RoundRunner.Plan(List.of(g), AddedTime.of(1e9), 20, 1), 1,
                () -> ++tick[0]);
        assertEquals(20, t(runs, "a"), "the round cap");
    }

    @Test
    void tablesShareTheRunsTimeForAddedRoundsAndATableLeavesTheRestToThoseAfterIt() throws Exception {
        Goal g = new Goal("+5 %", "t", "a", "b", 32, Goal.Metric.CALLS_RATIO, true, 1.05);
        double[] straddling = new double[300];
        for (int i = 0; i < straddling.length; i++) straddling[i] = i % 2 == 0 ? 0.9 : 1.25;
        List<Cell> cells = List.of(new Cell("b", 32, "", 1000, 0, ratios(new ArrayList<>(), straddling)),
                new Cell("a", 32, "", 1000, 0, ratios(new ArrayList<>(), straddling)));
        // The clock of addedRoundsStopWhenTheBudgetIsSpentOrAtTheCap: 1 s per reading, an added round 2 s.
        long[] now = {0};
        RoundRunner.Clock clock = () -> now[0] += 1_000_000_000L;
        AddedTime time = AddedTime.of(20);
        time.table(2);
        List<Measurement> runs = RoundRunner.run("t", cells, 6, new RoundRunner.Plan(List.of(g), time, 256, 1), 1,
                clock);
        assertEquals(11, t(runs, "a"), "half of 20 s, as 10 s of a table's own: 5 rounds added");
        assertEquals(8.0, time.secondsLeft(), 1e-9, "12 s spent: from the first reading to the one after the rounds");
        time.table(1);
        runs = RoundRunner.run("t", cells, 6, new RoundRunner.Plan(List.of(g), time, 256, 1), 1, clock);
        assertEquals(10, t(runs, "a"), "the last table has what the first left, 8 s: 4 rounds");
        assertEquals(0.0, time.secondsLeft(), 1e-9);
        time.table(1);
        runs = RoundRunner.run("t", cells, 6, new RoundRunner.Plan(List.of(g), time, 256, 1), 1, clock);
        assertEquals(6, t(runs, "a"), "the run's time spent: no round added");
    }

    @Test
    void aTableWhoseGoalsAreSettledSpendsNothingOfTheRunsTime() throws Exception {
        Goal g = new Goal("+5 %", "t", "a", "b", 32, Goal.Metric.CALLS_RATIO, true, 1.05);
        double[] ahead = new double[6];
        Arrays.fill(ahead, 1.3);
        List<Cell> cells = List.of(new Cell("b", 32, "", 1000, 0, ratios(new ArrayList<>(), ahead)),
                new Cell("a", 32, "", 1000, 0, ratios(new ArrayList<>(), ahead)));
        long[] now = {0};
        AddedTime time = AddedTime.of(20);
        time.table(2);
        List<Measurement> runs = RoundRunner.run("t", cells, 6, new RoundRunner.Plan(List.of(g), time, 256, 1), 1,
                () -> now[0] += 1_000_000_000L);
        assertEquals(Goal.Status.MET, GoalVerdict.of(g, runs).status());
        assertEquals(6, t(runs, "a"));
        assertEquals(20.0, time.secondsLeft(), 1e-9, "settled after the initial rounds: nothing spent");
    }

    @Test
    void aTableMeasuredInTwoSetsGivesTheFirstHalfItsShareAndTheSecondTheRest() throws Exception {
        Goal g = new Goal("+5 %", "t", "a", "b", 32, Goal.Metric.CALLS_RATIO, true, 1.05);
        Goal apart = new Goal("+5 % apart", "t", "C a", "C b", 32, Goal.Metric.CALLS_RATIO, true, 1.05);
        Cell.Probe straddling = (cell, calls, round) -> {
            double r = cell.name().endsWith("a") ? (round % 2 == 1 ? 0.9 : 1.25) : 1;
            return new Measurement(cell.name(), cell.payload(), round, 1, 1000, 0.1 / r, 1, 1, 1, 1, 1,
                    null, null, null, null, null, null, null);
        };
        List<Cell> cells = List.of(new Cell("b", 32, "", 1000, 0, straddling), new Cell("a", 32, "", 1000, 0,
                straddling), new Cell("C b", 32, "", 1000, 0, straddling),
                new Cell("C a", 32, "", 1000, 0, straddling));
        long[] now = {0};
        RoundRunner.Clock clock = () -> now[0] += 1_000_000_000L;
        AddedTime time = AddedTime.of(20); // one table: all of it
        List<Cell> first = cells.subList(0, 2), second = cells.subList(2, 4);
        List<Measurement> runs = RoundRunner.run("t", first, 6, new RoundRunner.Plan(List.of(g, apart), time, 256, 1),
                2, clock);
        assertEquals(11, t(runs, "a"), "the first set: half of 20 s, 5 rounds added");
        runs = RoundRunner.run("t", second, 6, new RoundRunner.Plan(List.of(g, apart), time, 256, 1), 1, clock);
        assertEquals(10, t(runs, "C a"), "the second set: the 8 s the first left, 4 rounds added");
    }

    @Test
    void aTableMayAskForRunsOfAtLeastItsOwnLength() throws Exception {
        List<Long> calls = new ArrayList<>();
        Cell.Probe probe = (cell, n, round) -> {
            if (round != Measurement.WARM_UP) calls.add(n);
            return new Measurement(cell.name(), cell.payload(), round, 1, n, 1.0, 1, 1, 1, 1, 1,
                    SyscallCounts.ZERO, null, null, null, new ThreadCpu(0, 0, 0, 0, 0), null, null);
        };
        List<Cell> cells = List.of(new Cell("a", 32, "", 6000, 0, probe));
        RoundRunner.Plan tenth = new RoundRunner.Plan(List.of(), AddedTime.of(0), 256, 0.1);
        RoundRunner.run("t", cells, 2, tenth);
        assertEquals(List.of(600L, 600L), calls, "the plan's round length");
        calls.clear();
        RoundRunner.run("t", cells, 2, tenth.atLeast(1.0));
        assertEquals(List.of(6000L, 6000L), calls, "at least the cell's own count");
        calls.clear();
        RoundRunner.Plan twice = new RoundRunner.Plan(List.of(), AddedTime.of(0), 256, 2);
        assertSame(twice, twice.atLeast(1.0), "a longer round length stays");
        RoundRunner.run("t", cells, 1, twice.atLeast(1.0));
        assertEquals(List.of(12000L), calls, "a longer round length stays");
        calls.clear();
        RoundRunner.run("t", cells, 1);
        assertEquals(List.of(6000L), calls, "no plan (ping's cell): nothing scaled");
    }

    @Test
    void cellsApartRunInASetOfRoundsOfTheirOwnAfterTheOthers() throws Exception {
        List<String> order = new ArrayList<>();
        Cell.Probe probe = (cell, n, round) -> {
            if (round != Measurement.WARM_UP) order.add(cell.name() + " r" + round);
            return new Measurement(cell.name(), cell.payload(), round, 1, n, 1.0, 1, 1, 1, 1, 1,
                    SyscallCounts.ZERO, null, null, null, new ThreadCpu(0, 0, 0, 0, 0), null, null);
        };
        List<Cell> cells = List.of(new Cell("a", 32, "", 10, 0, probe), new Cell("C a", 32, "", 10, 0, probe),
                new Cell("b", 32, "", 10, 0, probe), new Cell("C b", 32, "", 10, 0, probe));
        List<Measurement> runs = RoundRunner.runApart("t", cells, c -> c.name().startsWith("C "), 2, null);
        assertEquals(List.of("a r1", "b r1", "b r2", "a r2", "C a r1", "C b r1", "C b r2", "C a r2"), order);
        assertEquals(8, runs.size());
        order.clear();
        RoundRunner.runApart("t", cells.subList(0, 1), c -> c.name().startsWith("C "), 1, null);
        assertEquals(List.of("a r1"), order, "no cell apart: one set");
    }

    private static int t(List<Measurement> runs, String cell) {
        return (int) runs.stream().filter(m -> m.cell().equals(cell)).count();
    }
}
