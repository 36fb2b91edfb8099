package org.sysframe.bench.measure;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * A goal evaluated on one run: the figure in every round both cells ran (paired by round), its
 * min-max spread, its 95 % interval ({@link Interval}), the verdict, the rounds an unsettled goal
 * would need, and, when the goal is not met or level, an explanation computed from the same run.
 *
 * @param roundsNeeded for a goal NOT SETTLED, the estimate of the rounds it would need; else the rounds it took
 * @param versusFigure for a goal on a cell's own figure naming another cell as versus (the scale table's memory
 *                     goal: the C server beside the sysframe one), the median of versus's own figure over the
 *                     same rounds, shown beside the subject's; else NaN
 */
public record GoalVerdict(Goal goal, double[] perRound, Spread value, Interval ci, Goal.Status status,
                          int roundsNeeded, String explanation, double versusFigure) {

    /** Below this many ticks of user + system time per side, no user/kernel split is stated. */
    static final long MIN_TICKS_FOR_SPLIT = 100;

    /** The verdict of goal on table, or null when the table lacks either cell (or they share no round). */
    public static GoalVerdict of(Goal goal, BenchTable table) { return of(goal, table.runs()); }

    /** The verdict of goal on runs (of one table, any order), or null when they lack either cell. */
    public static GoalVerdict of(Goal goal, List<Measurement> runs) { return of(goal, runs, true); }

    /** As {@link #of(Goal, List)}; without the explanation when explain is false (the runner's looks). */
    static GoalVerdict of(Goal goal, List<Measurement> runs, boolean explain) {
        List<Measurement[]> pairs = pairs(runs, goal.subject(), goal.versus(), goal.payload());
        if (pairs.isEmpty()) return null;
        double[] perRound = new double[pairs.size()];
        double[] versusOwn = new double[pairs.size()];
        List<Measurement> s = new ArrayList<>(), v = new ArrayList<>();
        for (int i = 0; i < perRound.length; i++) {
            Measurement[] p = pairs.get(i);
            perRound[i] = goal.metric().of(p[0], p[1]);
            versusOwn[i] = goal.metric().of(p[1], p[1]);
            s.add(p[0]);
            v.add(p[1]);
        }
        boolean beside = !goal.metric().isRatio() && !goal.subject().equals(goal.versus());
        Spread value = Spread.of(perRound);
        Interval ci = interval(goal.metric(), perRound);
        Goal.Status status = goal.judge(ci);
        int needed = status == Goal.Status.NOT_SETTLED ? goal.roundsNeeded(ci) : perRound.length;
        boolean good = status == Goal.Status.MET || status == Goal.Status.LEVEL;
        String why = good || !explain ? null : explain(goal, perRound, ci, status, s, v);
        return new GoalVerdict(goal, perRound, value, ci, status, needed, why, beside ? Spread.of(versusOwn).median()
                : Double.NaN);
    }

    /** The interval a goal on metric is judged on, of its per-round figures in round order. */
    static Interval interval(Goal.Metric metric, double[] perRound) {
        return metric.isRatio() ? Interval.ofRatiosInBatches(perRound) : Interval.ofValuesInBatches(perRound);
    }

    /**
     * The interval of metric of subject against versus at payload, paired by round, as a goal on them
     * would be judged on it; null when they share no round.
     */
    public static Interval interval(Goal.Metric metric, List<Measurement> runs, String subject, String versus,
            int payload) {
        List<Measurement[]> pairs = pairs(runs, subject, versus, payload);
        if (pairs.isEmpty()) return null;
        double[] perRound = new double[pairs.size()];
        for (int i = 0; i < perRound.length; i++) perRound[i] = metric.of(pairs.get(i)[0], pairs.get(i)[1]);
        return interval(metric, perRound);
    }

    /**
     * The runs of subject and versus at payload in the rounds both ran, in round order, as pairs
     * {subject's, versus's}; for a goal on one cell's own figure both are that cell's run.
     */
    public static List<Measurement[]> pairs(List<Measurement> runs, String subject, String versus, int payload) {
        Map<Integer, Measurement> a = new TreeMap<>(), b = new TreeMap<>();
        for (Measurement m : runs) {
            if (m.payload() != payload || m.round() == Measurement.WARM_UP) continue;
            if (m.cell().equals(subject)) a.put(m.round(), m);
            if (m.cell().equals(versus)) b.put(m.round(), m);
        }
        List<Measurement[]> out = new ArrayList<>();
        for (Map.Entry<Integer, Measurement> e : a.entrySet()) {
            Measurement other = b.get(e.getKey());
            if (other != null) out.add(new Measurement[] {e.getValue(), other});
        }
        return out;
    }

    /** Whether the verdict is final: anything but NOT SETTLED. */
    public boolean settled() { return status != Goal.Status.NOT_SETTLED; }

    /** The figure's estimate (the interval's centre). */
    public double estimate() { return ci.estimate(); }

    /**
     * One line: the goal, this run's figure with its 95 % interval and rounds, the threshold and the
     * verdict; a goal NOT SETTLED adds the rounds it would need.
     */
    public String line() {
        String against = goal.subject().equals(goal.versus()) ? goal.subject() : goal.subject() + " vs "
                + goal.versus();
        String tail = status == Goal.Status.NOT_SETTLED
                ? "; budget or round cap reached, " + (roundsNeeded == Integer.MAX_VALUE
                        ? "the estimate lies on the bound: no number of rounds settles it"
                        : "about " + roundsNeeded + " rounds would settle it")
                : "";
        String versus = Double.isNaN(versusFigure) ? "" : "; " + goal.versus() + ": " + number(versusFigure)
                + goal.metric().unit();
        return String.format(Locale.ROOT, "goal %s (%s at %d B): %s %s%s (want %s): %s%s",
                goal.name(), against, goal.payload(), goal.metric().label(), figure(), versus, goal.want(),
                status.label(), tail);
    }

    /** e.g. {@code 1.200x [1.150-1.250], 9 rounds}: the estimate and its 95 % interval. */
    public String figure() { return figure(ci, goal.metric().unit()) + ", " + ci.n() + " rounds"; }

    /** e.g. {@code 1.200x [1.150-1.250]}: an interval's estimate and bounds, the estimate followed by unit. */
    public static String figure(Interval i, String unit) {
        return number(i.estimate()) + unit + " [" + number(i.lo()) + "-" + number(i.hi()) + "]";
    }

    public static String number(double v) {
        if (Double.isNaN(v)) return "n/a";
        return Math.abs(v) >= 100 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%.3f", v);
    }

    /** The line, followed by the explanation when the goal is not met or level. */
    public String text() { return explanation == null ? line() : line() + "\n  " + explanation; }

    static String explain(Goal goal, double[] perRound, Interval ci, Goal.Status status,
                          List<Measurement> subject, List<Measurement> versus) {
        String rounds;
        if (perRound.length <= 12) {
            StringJoiner j = new StringJoiner(" ");
            for (double d : perRound) j.add(String.format(Locale.ROOT, "%.3f", d));
            rounds = "per round " + j;
        } else {
            Spread s = Spread.of(perRound);
            rounds = String.format(Locale.ROOT, "%d rounds, min %.3f, median %.3f, max %.3f", perRound.length, s.min(),
                    s.median(), s.max());
        }
        String where = switch (status) {
            case MISSED -> goal.isLevel() || goal.atLeast() ? "lies wholly below " + Goal.number(goal.threshold())
                    : "lies wholly above " + Goal.number(goal.threshold());
            default -> goal.isLevel() ? "straddles " + Goal.number(goal.threshold()) + " (or 1 ± "
                    + Goal.number(goal.margin()) + ")"
                    : "straddles " + Goal.number(goal.threshold());
        };
        Side a = Side.of(subject), b = Side.of(versus);
        String diff = goal.subject().equals(goal.versus()) ? ""
                : String.format(Locale.ROOT, " Difference %s - %s: %+.2f us CPU per call%s.", goal.subject(),
                        goal.versus(), a.cpu - b.cpu, split(a, b));
        return String.format(Locale.ROOT, "why, from this run: %s; the 95 %% interval [%s-%s] %s. %s: %s. %s%s",
                rounds, number(ci.lo()), number(ci.hi()), where, goal.subject(), a.describe(),
                goal.subject().equals(goal.versus()) ? "" : goal.versus() + ": " + b.describe() + ".", diff);
    }

    /**
     * The kernel's part of a CPU difference, stated only when both sides have at least
     * {@link #MIN_TICKS_FOR_SPLIT} ticks of user + system time: the split comes from 10 ms ticks
     * (/proc/TID/stat), so its uncertainty is that of a share sampled over that many ticks,
     * sqrt(p(1-p)/ticks), which the line states with the tick counts. Otherwise total CPU only.
     */
    static String split(Side a, Side b) {
        if (a.ticks < MIN_TICKS_FOR_SPLIT || b.ticks < MIN_TICKS_FOR_SPLIT) {
            return String.format(Locale.ROOT,
                    " (total on-CPU time, exact; no user/kernel split: %d and %d ticks of 10 ms, too few)",
                    a.ticks, b.ticks);
        }
        double kernel = a.kernel() - b.kernel();
        double u = Math.hypot(a.kernelUncertainty(), b.kernelUncertainty());
        return String.format(Locale.ROOT,
                ", of it %+.2f ± %.2f us in the kernel (system share from %d and %d ticks of 10 ms)",
                kernel, u, a.ticks, b.ticks);
    }

    /**
     * One cell's figures over its rounds, per call: medians of round trip and CPU (as in the tables);
     * the system share of the CPU from the ticks summed over every round, with their count.
     */
    record Side(double roundTrip, double clientCpu, double serverCpu, double cpu, long ticks, double systemShare,
                String clientSyscalls, String serverSyscalls) {
        static Side of(List<Measurement> runs) {
            long userUs = 0, sysUs = 0;
            for (Measurement m : runs) {
                for (ThreadCpu c : new ThreadCpu[] {m.clientCpu(), m.serverCpu()}) {
                    if (c == null) continue;
                    userUs += c.userMicros();
                    sysUs += c.systemMicros();
                }
            }
            double roundTrip = Spread.over(runs, m -> 1e6 * m.clients() / m.callsPerSecond()).median();
            double client = Spread.over(runs, Measurement::clientCpuMicrosPerCall).median();
            double server = Spread.over(runs, m -> m.serverCpu() == null ? 0 : m.serverCpuMicrosPerCall()).median();
            long ticks = (userUs + sysUs) / ThreadCpu.MICROS_PER_TICK;
            double share = userUs + sysUs == 0 ? 0 : (double) sysUs / (userUs + sysUs);
            boolean kernelCounts = runs.stream().anyMatch(m -> m.clientLibrary() == null);
            return new Side(roundTrip, client, server, client + server, ticks, share,
                    CellSummary.describe(Spread.medianPerCall(runs,
                            kernelCounts ? Measurement::clientKernel : Measurement::clientLibrary, Measurement::calls)),
                    CellSummary.describe(Spread.medianPerCall(runs, Measurement::serverLibrary, Measurement::calls)));
        }

        double kernel() { return systemShare * cpu; }

        double kernelUncertainty() { return ticks == 0 ? 0 : cpu * Math.sqrt(systemShare * (1 - systemShare) / ticks); }

        String describe() {
            return String.format(Locale.ROOT,
                    "round trip %.1f us, CPU per call %.2f us client + %.2f us server (medians); syscalls per call: "
                    + "client %s, server %s",
                    roundTrip, clientCpu, serverCpu, clientSyscalls, serverSyscalls);
        }
    }
}
