package org.sysframe.bench;

import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * A goal evaluated on one run: the figure in every round, its spread, the verdict and, when the goal
 * is not met, an explanation computed from the same run (per-round values, round-trip time, CPU per
 * call with the kernel's share of it, and each side's syscalls per call).
 */
public record GoalVerdict(Goal goal, double[] perRound, Spread value, Goal.Status status, String explanation) {

    /** The verdict of goal on table, or null when the table lacks either cell (or their rounds differ). */
    public static GoalVerdict of(Goal goal, BenchTable table) {
        List<Measurement> s = table.runs(goal.subject(), goal.payload());
        List<Measurement> v = table.runs(goal.versus(), goal.payload());
        if (s.isEmpty() || s.size() != v.size()) return null;
        double[] perRound = new double[s.size()];
        for (int i = 0; i < perRound.length; i++) perRound[i] = goal.metric().of(s.get(i), v.get(i));
        Spread value = Spread.of(perRound);
        Goal.Status status = goal.judge(value);
        String why = status == Goal.Status.MET ? null : explain(goal, perRound, value, s, v);
        return new GoalVerdict(goal, perRound, value, status, why);
    }

    /** One line: the goal, this run's figure with its spread, the threshold and the verdict. */
    public String line() {
        String against = goal.subject().equals(goal.versus()) ? goal.subject() : goal.subject() + " vs " + goal.versus();
        return String.format(Locale.ROOT, "goal %s (%s at %d B): %s %.3f%s [%.3f-%.3f] (want %s): %s",
                goal.name(), against, goal.payload(), goal.metric().label(),
                value.median(), goal.metric().unit(), value.min(), value.max(), goal.want(), status.label());
    }

    /** The line, followed by the explanation when the goal is not met. */
    public String text() { return explanation == null ? line() : line() + "\n  " + explanation; }

    static String explain(Goal goal, double[] perRound, Spread value, List<Measurement> subject, List<Measurement> versus) {
        StringJoiner rounds = new StringJoiner(" ");
        for (double d : perRound) rounds.add(String.format(Locale.ROOT, "%.3f", d));
        String where = goal.judge(value) == Goal.Status.NOT_SETTLED ? "straddles"
                : (goal.atLeast() ? "lies wholly below" : "lies wholly above");
        Side a = Side.of(subject), b = Side.of(versus);
        return String.format(Locale.ROOT,
                "why, from this run: per round %s; the spread [%.3f-%.3f] %s %.2f. %s: %s. %s: %s. "
                        + "Difference %s - %s: %+.2f us CPU per call, %+.2f us of it in the kernel, %+.2f us in user space.",
                rounds, value.min(), value.max(), where, goal.threshold(), goal.subject(), a.describe(),
                goal.versus(), b.describe(), goal.subject(), goal.versus(),
                a.cpu - b.cpu, a.kernel - b.kernel, (a.cpu - a.kernel) - (b.cpu - b.kernel));
    }

    /**
     * One cell's figures over its rounds, per call: medians of round trip and CPU (as in the tables);
     * the kernel's share of the CPU from the sums over every round, so that 10 ms ticks add up.
     */
    private record Side(double roundTrip, double clientCpu, double serverCpu, double cpu, double kernel,
                        String clientSyscalls, String serverSyscalls) {
        static Side of(List<Measurement> runs) {
            double cpuUs = 0, sysUs = 0;
            for (Measurement m : runs) {
                cpuUs += ((m.clientCpu() == null ? 0 : m.clientCpu().cpuNanos()) + (m.serverCpu() == null ? 0 : m.serverCpu().cpuNanos())) / 1e3;
                sysUs += (m.clientCpu() == null ? 0 : m.clientCpu().systemMicros())
                        + (m.serverCpu() == null ? 0 : m.serverCpu().systemMicros());
            }
            double roundTrip = Spread.over(runs, m -> 1e6 * m.clients() / m.callsPerSecond()).median();
            double client = Spread.over(runs, Measurement::clientCpuMicrosPerCall).median();
            double server = Spread.over(runs, m -> m.serverCpu() == null ? 0 : m.serverCpuMicrosPerCall()).median();
            double share = cpuUs == 0 ? 0 : Math.min(1, sysUs / cpuUs);
            boolean kernelCounts = runs.stream().anyMatch(m -> m.clientLibrary() == null);
            return new Side(roundTrip, client, server, client + server, share * (client + server),
                    CellSummary.describe(Spread.medianPerCall(runs,
                            kernelCounts ? Measurement::clientKernel : Measurement::clientLibrary, Measurement::calls)),
                    CellSummary.describe(Spread.medianPerCall(runs, Measurement::serverLibrary, Measurement::calls)));
        }

        String describe() {
            return String.format(Locale.ROOT,
                    "round trip %.1f us, CPU per call %.2f us client + %.2f us server (medians), %.0f %% of it in the kernel"
                            + " (system time over all rounds, 10 ms ticks); syscalls per call: client %s, server %s",
                    roundTrip, clientCpu, serverCpu, cpu == 0 ? 0 : 100 * kernel / cpu, clientSyscalls, serverSyscalls);
        }
    }
}
