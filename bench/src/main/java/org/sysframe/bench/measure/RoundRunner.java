package org.sysframe.bench.measure;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The one runner of every table: a warm-up per cell (under a plan, its run repeated until it lasted
 * {@link #MIN_WARM_UP_SECONDS}), then rounds in which every cell is measured
 * once, interleaved so that machine drift hits every cell alike, the odd rounds in the cells' order
 * and the even ones in reverse (A B C, C B A, A B C, ...): a cell then follows each neighbour as often
 * as it precedes it. In one order only, a cell measured right after another meets the machine in the
 * same state every round, and the ratio of the two measures that state as much as the cells
 * (docs/results.md).
 *
 * <p>Under a {@link Plan} (what {@code matrix} gives its tables), the runner then adds rounds
 * while a goal of the table is NOT SETTLED: each added round measures, still interleaved and in the
 * same alternating order, only the cells such goals name, until every goal of the table is settled, the
 * table's share of the run's {@link AddedTime} is spent or the round cap is reached. Goals are looked
 * at after each batch of added rounds, a batch being half the rounds so far (8, 12, 18, 27, ... rounds:
 * 13 looks up to 1,024), so that the number of looks grows with the logarithm of the rounds: every look is a chance
 * for a 95 % interval to exclude the truth, and batches of half the rounds give a goal fewer false
 * verdicts than smaller ones (VerdictSimulationTest; docs/results.md). A table's code does nothing for
 * this: it measures through its {@code TableRun}, which passes its name (the one its goals give) and
 * the run's plan.
 *
 * <p>Every warm-up, run and look is told to the {@link Progress} a command installed (the table, the
 * cell, the round, the goals' verdicts), which shows them on stderr: the tables print nothing of it.
 */
public final class RoundRunner {
    private RoundRunner() {}

    /**
     * How rounds are added and how long a run of a cell is.
     *
     * @param goals       the goals whose tables get added rounds (those of the table being run)
     * @param added       the run's time for added rounds, shared by its tables (of 0 s: none are added)
     * @param maxRounds   the round cap of a table, initial rounds included
     * @param lengthScale every cell's calls per run (and warm-up) times this (1: the tables' own)
     */
    public record Plan(List<Goal> goals, AddedTime added, int maxRounds, double lengthScale) {
        public Plan {
            goals = List.copyOf(goals);
            Objects.requireNonNull(added, "added");
            if (maxRounds < 1) throw new IllegalArgumentException("round cap " + maxRounds + ": expected >= 1");
            if (!(lengthScale > 0) || lengthScale > 10) {
                throw new IllegalArgumentException("round length " + lengthScale + ": expected a factor in (0, 10]");
            }
        }

        /** This plan with its round length raised to at least length. */
        public Plan atLeast(double length) {
            return lengthScale >= length ? this : new Plan(goals, added, maxRounds, length); // the same time shared
        }

        /** Calls of a run scaled by the round length: at least 64 (or the unscaled count when smaller). */
        long scaled(long calls) {
            if (calls <= 0 || lengthScale == 1) return calls;
            return Math.max(Math.min(calls, 64), Math.round(calls * lengthScale));
        }
    }

    /**
     * A cell's warm-up under a {@link Plan} lasts at least this long: its run is repeated until its
     * calls took that much in all (at most {@link #MAX_WARM_UP_RUNS} runs); without one (ping's cell,
     * whose warm-up is the user's count) it is one run. By calls alone, a cell of fast calls would be
     * measured before the JIT has compiled its path (the wait table gives its spinning shared-memory
     * cells a warm-up by calls of their own); a longer minimum lengthens make bench (docs/results.md).
     */
    static final double MIN_WARM_UP_SECONDS = 0.15;
    static final int MAX_WARM_UP_RUNS = 200;

    /**
     * Every measured run (warm-ups left out) in the order it ran, no rounds added: round 1's cells, then round 2's...
     */
    public static List<Measurement> run(String table, List<Cell> cells, int rounds) throws IOException {
        return run(table, cells, rounds, null, 1, System::nanoTime);
    }

    /**
     * As {@link #run(String, List, int)}, with rounds added and runs scaled under plan (null: none, the cells' own
     * length).
     */
    public static List<Measurement> run(String table, List<Cell> cells, int rounds, Plan plan) throws IOException {
        return run(table, cells, rounds, plan, 1, System::nanoTime);
    }

    /**
     * As {@link #run(String, List, int)}, in two sets of rounds one after the other: the cells that
     * are not apart, then those that are, each set with its own added rounds (the first within half the
     * table's share of the run's {@link AddedTime}, the second within what is left of it), so that a cell
     * has the same neighbours in every round of its set. For a table where no goal pairs a cell of one
     * set with one of the other: in one set, the connections and backends tables' rounds with their C
     * processes in them read the io_uring goals 10-20 % apart from the rounds added without them.
     */
    public static List<Measurement> runApart(String table, List<Cell> cells, Predicate<Cell> apart, int rounds,
            Plan plan)
            throws IOException {
        List<Cell> second = cells.stream().filter(apart).toList();
        List<Measurement> runs = new ArrayList<>(run(table, cells.stream().filter(apart.negate()).toList(), rounds,
                plan, second.isEmpty() ? 1 : 2, System::nanoTime));
        if (!second.isEmpty()) runs.addAll(run(table, second, rounds, plan, 1, System::nanoTime));
        return runs;
    }

    /** The table note of {@link #runApart}: what a ratio against reference means for the second set's rows. */
    public static String apartNote(String first, String second, String reference) {
        return "the " + first + " rows' rounds, then the " + second + " rows': their ratio to " + reference
                + " pairs rounds that did not run side by side";
    }

    /** A clock in nanoseconds (the tests' is a counter: no timing in them). */
    @FunctionalInterface
    interface Clock {
        long nanos();
    }

    /** The cells in round r's order: the cells' own in odd rounds, reversed in even ones. */
    static List<Cell> inRoundOrder(List<Cell> cells, int r) {
        return r % 2 == 1 ? cells : cells.reversed();
    }

    /**
     * As {@link #run(String, List, int)}, with rounds added under plan (null: none added) for at most the table's
     * share of its time over setsToCome (this set and the table's sets after it), reported to the installed
     * {@link Progress} (or, with none, to one of its own that shows on a terminal only).
     */
    static List<Measurement> run(String table, List<Cell> cells, int rounds, Plan plan, int setsToCome,
            Clock clock) throws IOException {
        Progress installed = Progress.current();
        Progress progress = installed != null ? installed : Progress.unplanned(table);
        try {
            return run(table, cells, rounds, plan, setsToCome, clock, progress);
        } finally {
            if (installed == null) progress.finish();
        }
    }

    private static List<Measurement> run(String table, List<Cell> cells, int rounds, Plan plan, int setsToCome,
            Clock clock, Progress progress)
            throws IOException {
        List<Cell> warmed = cells.stream().filter(c ->
                (plan == null ? c.warmUpCalls() : plan.scaled(c.warmUpCalls())) > 0).toList();
        progress.set(table, cells.size(), rounds, warmed.size());
        for (Cell c : warmed) {
            long warm = plan == null ? c.warmUpCalls() : plan.scaled(c.warmUpCalls());
            progress.warmUp(c);
            // Under a plan (matrix's tables) the warm-up lasts at least its minimum; else (ping's one
            // cell, compare) it is the calls asked for, no more.
            double spent = 0;
            int most = plan == null ? 1 : MAX_WARM_UP_RUNS;
            for (int i = 0; i < most && spent < MIN_WARM_UP_SECONDS; i++) {
                spent += c.probe().measure(c, warm, Measurement.WARM_UP).seconds();
            }
            progress.ran();
        }
        List<Measurement> out = new ArrayList<>(cells.size() * rounds);
        for (int r = 1; r <= rounds; r++) {
            for (Cell c : inRoundOrder(cells, r)) {
                progress.round(c, r, rounds);
                out.add(c.probe().measure(c, plan == null ? c.calls() : plan.scaled(c.calls()), r));
                progress.ran();
            }
        }
        // The goals judged: the plan's, whose unsettled cells get rounds; without a plan the reporter's, for it alone.
        List<Goal> goals = (plan != null ? plan.goals() : progress.goals(table)).stream().filter(g ->
                g.table().equals(table)).toList();
        Set<String> need = look(goals, out, progress);
        if (plan != null) addRounds(cells, rounds, plan, setsToCome, clock, out, goals, need, progress);
        return out;
    }

    private static void addRounds(List<Cell> cells, int rounds, Plan plan, int setsToCome, Clock clock,
            List<Measurement> out, List<Goal> goals, Set<String> need, Progress progress) throws IOException {
        if (need.isEmpty()) return; // nothing to add: the share stays with the table's other set and the tables after
        long begin = clock.nanos();
        long end = begin + plan.added().share(setsToCome);
        try {
            addRounds(cells, rounds, plan, end, clock, out, goals, need, progress);
        } finally {
            plan.added().spent(clock.nanos() - begin);
        }
    }

    private static void addRounds(List<Cell> cells, int rounds, Plan plan, long end, Clock clock,
            List<Measurement> out, List<Goal> goals, Set<String> need, Progress progress) throws IOException {
        int round = rounds;
        long longest = 0;
        boolean spent = false;
        while (round < plan.maxRounds() && !need.isEmpty() && !spent) {
            int batch = Math.max(1, round / 2);
            for (int b = 0; b < batch && round < plan.maxRounds(); b++) {
                long started = clock.nanos();
                spent = started + longest > end;
                if (spent) break;
                round++;
                for (Cell c : inRoundOrder(cells, round)) {
                    if (!need.contains(c.key())) continue;
                    progress.added(c, round, need.size(), (end - started) / 1e9);
                    out.add(c.probe().measure(c, plan.scaled(c.calls()), round));
                }
                longest = Math.max(longest, clock.nanos() - started);
            }
            need = look(goals, out, progress);
        }
    }

    /** The keys of the cells that the goals still NOT SETTLED on runs name, the verdicts told to progress. */
    private static Set<String> look(List<Goal> goals, List<Measurement> runs, Progress progress) {
        List<GoalVerdict> verdicts = new ArrayList<>();
        for (Goal g : goals) verdicts.add(GoalVerdict.of(g, runs, false));
        progress.judged(verdicts);
        return unsettledCells(verdicts);
    }

    /** The keys of the cells of the verdicts NOT SETTLED (a null verdict: a goal whose cells did not run, none). */
    private static Set<String> unsettledCells(List<GoalVerdict> verdicts) {
        Set<String> need = new LinkedHashSet<>();
        for (GoalVerdict v : verdicts) {
            if (v == null || v.settled()) continue;
            need.add(v.goal().subject() + "/" + v.goal().payload());
            need.add(v.goal().versus() + "/" + v.goal().payload());
        }
        return need;
    }
}
