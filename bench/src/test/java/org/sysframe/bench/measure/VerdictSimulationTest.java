package org.sysframe.bench.measure;

import org.junit.jupiter.api.Test;
import org.sysframe.bench.cli.MatrixCommand;

import java.io.IOException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The verdicts on synthetic rounds of known truth, through the real runner (initial rounds, rounds
 * added while the goal is not settled, the round cap as the budget) and the real goal judgement:
 * 1,000 simulated bench runs per case, seeded, so every figure below is the same on every machine.
 * The per-round ratio is truth x e^N(0, sigma): "20 % noise" is sigma = 0.20 of the log-ratio.
 * No clock: the runner's clock is a counter and the budget the round cap.
 */
class VerdictSimulationTest {
    static final int RUNS = 1000;
    static final int INITIAL = MatrixCommand.DEFAULT_ROUNDS;
    static final int CAP = MatrixCommand.DEFAULT_MAX_ROUNDS;

    /** One simulated bench run of cells a (subject) and b (versus) judged on goal; its verdict. */
    static GoalVerdict simulate(Goal goal, double truth, double sigma, Random random) throws IOException {
        Cell.Probe probe = (cell, calls, round) -> {
            // b runs 1000 calls in 0.1 s every round; a's calls/s is truth x noise times b's.
            double ratio = cell.name().equals("a") ? truth * Math.exp(sigma * random.nextGaussian()) : 1;
            return new Measurement(cell.name(), cell.payload(), round, 1, 1000, 0.1 / ratio, 1, 1, 1, 1, 1,
                    null, null, null, null, null, null, null);
        };
        List<Cell> cells = List.of(new Cell("b", 32, "", 1000, 0, probe), new Cell("a", 32, "", 1000, 0, probe));
        long[] tick = {0};
        RoundRunner.Plan plan = new RoundRunner.Plan(List.of(goal), AddedTime.of(1e9), CAP, 1);
        List<Measurement> runs = RoundRunner.run("t", cells, INITIAL, plan, 1, () -> ++tick[0]);
        return GoalVerdict.of(goal, runs, false);
    }

    static Map<Goal.Status, Integer> tally(Goal goal, double truth, double sigma, long seed) throws IOException {
        Random random = new Random(seed);
        Map<Goal.Status, Integer> n = new EnumMap<>(Goal.Status.class);
        for (Goal.Status s : Goal.Status.values()) n.put(s, 0);
        for (int i = 0; i < RUNS; i++) n.merge(simulate(goal, truth, sigma, random).status(), 1, Integer::sum);
        return n;
    }

    static final Goal GAIN = new Goal("+5 %", "t", "a", "b", 32, Goal.Metric.CALLS_RATIO, true, 1.05);

    @Test
    void aTrueTenPercentGainWithTwentyPercentNoiseIsMetForAFivePercentGoalWithinTheBudget() throws IOException {
        Map<Goal.Status, Integer> n = tally(GAIN, 1.10, 0.20, 21);
        // Seed 21: 996 met, 4 missed.
        assertTrue(n.get(Goal.Status.MET) >= 950, "met in at least 95 % of the runs: " + n);
        assertTrue(n.get(Goal.Status.MISSED) <= 10, "missed in at most 1 %: " + n);
    }

    @Test
    void noGainIsJudgedMetForAFivePercentGoalInAtMostFivePercentOfTheRuns() throws IOException {
        Map<Goal.Status, Integer> n = tally(GAIN, 1.00, 0.20, 22);
        // Seed 22: 3 met, 997 missed.
        assertTrue(n.get(Goal.Status.MET) <= 50, "met in at most 5 % of the runs: " + n);
        assertTrue(n.get(Goal.Status.MISSED) >= 950, "and missed in the others: " + n);
    }

    static final Goal LEVEL = Goal.level("level", "t", "a", "b", 32, Goal.Metric.CALLS_RATIO, 0.03);

    @Test
    void aTrueTieIsJudgedLevelWithinThreePercent() throws IOException {
        // 5 % noise (the spread of sysframe against C one call at a time here): seed 23, 999 level, 1 met.
        Map<Goal.Status, Integer> n = tally(LEVEL, 1.00, 0.05, 23);
        assertTrue(n.get(Goal.Status.LEVEL) >= 950, "level in at least 95 % of the runs: " + n);
        assertEquals(0, n.get(Goal.Status.MISSED), n.toString());
    }
}
