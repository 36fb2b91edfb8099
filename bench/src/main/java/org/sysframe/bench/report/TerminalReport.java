package org.sysframe.bench.report;

import org.sysframe.bench.explore.BenchRun;
import org.sysframe.bench.explore.Crossover;
import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.CellSummary;
import org.sysframe.bench.measure.Goal;
import org.sysframe.bench.measure.GoalVerdict;
import org.sysframe.bench.measure.Interval;
import org.sysframe.bench.table.ScaleTable;
import org.sysframe.bench.table.WaitTable;

import java.util.Locale;

/**
 * A bench run as printed on the terminal: per table, one row per cell with medians, [min-max] spreads,
 * ratios, CPU and syscalls per call, then the cells' settings and the goals evaluated on that table.
 *
 * <p>Internal to the bench: public for its other packages, not an API.
 */
public final class TerminalReport {
    private TerminalReport() {}

    public static String of(BenchRun run) {
        StringBuilder sb = new StringBuilder();
        boolean first = true;
        for (BenchTable t : run.tables()) {
            if (first) {
                sb.append(String.format(Locale.ROOT, "%d rounds%s (and rounds added to the cells of unsettled goals) on %s; medians over rounds; ratio vs %s per round, its estimate and 95 %% interval (min-max: the JSON)%s%n",
                        run.rounds(), run.quick() ? " (quick)" : "", run.machine(), t.reference(),
                        run.serverLoops() == 1 ? "" : "; " + run.serverLoops() + " server loops"));
            } else {
                sb.append(String.format(Locale.ROOT, "%n%s (%d interleaved rounds; %s):%n", t.title(), t.rounds(),
                        t.referenceOverRow() ? "syscalls of each peer from the kernel's counters"
                                : t.name().equals(ScaleTable.NAME) ? "each connection count a set of rounds of its own; server CPU per"
                                        + " request vs the C server's at the same count, per round"
                                : "ratio vs " + t.reference() + " per round"));
            }
            first = false;
            if (t.referenceOverRow()) peerRows(sb, t);
            else if (t.name().equals(ScaleTable.NAME)) scaleRows(sb, t);
            else rows(sb, t);
            if (t.name().equals(WaitTable.NAME)) {
                for (int payload : t.payloads()) {
                    for (String n : t.names()) {
                        CellSummary c = t.row(n, payload);
                        if (c != null) sb.append(String.format(Locale.ROOT, "  %-24s %5d B: %s%n", n, payload, c.tradeLine()));
                    }
                }
            }
            for (int payload : t.payloads()) {
                for (String n : t.names()) {
                    CellSummary c = t.row(n, payload);
                    if (c != null && !c.uringMix().isEmpty()) {
                        sb.append(String.format(Locale.ROOT, "  %-24s %5d B: io_uring SQEs per call: %s%n", n, payload, c.uringMix()));
                    }
                }
            }
            sb.append(t.rowKind()).append("s:\n");
            for (String n : t.names()) sb.append(String.format(Locale.ROOT, "  %-11s %s%n", n, t.settings(n)));
            for (String note : t.notes()) sb.append("note: ").append(note).append('\n');
            for (GoalVerdict g : run.goals(t.name())) sb.append(g.text()).append('\n');
            for (Crossover c : run.crossovers(t.name())) sb.append("crossover: ").append(c.text()).append('\n');
        }
        if (run.kernelUnavailable() != null) sb.append("kernel counts unavailable: ").append(run.kernelUnavailable()).append('\n');
        if (!run.goals().isEmpty()) sb.append(tally(run)).append('\n');
        return sb.toString();
    }

    /** e.g. {@code goals: 20 met, 2 missed, 3 level, 0 not settled (of 25), in 4 min 31 s}. */
    static String tally(BenchRun run) {
        java.util.Map<Goal.Status, Integer> n = new java.util.EnumMap<>(Goal.Status.class);
        for (Goal.Status s : Goal.Status.values()) n.put(s, 0);
        for (GoalVerdict g : run.goals()) n.merge(g.status(), 1, Integer::sum);
        long s = Math.round(run.seconds());
        return String.format(Locale.ROOT, "goals: %d met, %d missed, %d level, %d not settled (of %d), in %d min %02d s",
                n.get(Goal.Status.MET), n.get(Goal.Status.MISSED), n.get(Goal.Status.LEVEL), n.get(Goal.Status.NOT_SETTLED),
                run.goals().size(), s / 60, s % 60);
    }

    private static void rows(StringBuilder sb, BenchTable t) {
        int w = Math.max(9, t.rowKind().length());
        for (String n : t.names()) w = Math.max(w, n.length());
        String nameCol = "%-" + w + "s";
        String head = String.format(Locale.ROOT, nameCol + " %6s %9s %5s %19s %7s %7s %8s  %-28s %-38s %-3s %s%n",
                t.rowKind(), "bytes", "calls/s", "±%", "ratio [95 % CI]", "p50 us", "p99 us", "cpu us", "client syscalls/call",
                "server syscalls/call", "k=l", "cpus");
        sb.append(head).append("-".repeat(head.length() - 1)).append('\n');
        for (int payload : t.payloads()) {
            for (String name : t.names()) {
                CellSummary c = t.row(name, payload);
                if (c == null) continue;
                sb.append(String.format(Locale.ROOT, nameCol + " %6d %9.0f %5.1f %5.3f [%5.3f-%5.3f] %7.1f %7.1f %8.2f  %-28s %-38s %-3s %s%n",
                        name, payload, c.callsPerSec().median(), c.callsPerSec().halfRangePercent(),
                        c.ratioCi().estimate(), c.ratioCi().lo(), c.ratioCi().hi(),
                        c.p50Micros().median(), c.p99Micros().median(), c.cpuMicrosPerCall(),
                        CellSummary.describe(c.clientSyscalls()), CellSummary.describe(c.serverSyscalls()),
                        c.kernelColumn(), c.cpus()));
            }
        }
    }

    /**
     * The scale table: per row the load generator's calls/s and p99, the server's CPU and syscalls per
     * request, its CPU per request over the C server's at the same connections (estimate and 95 %
     * interval, paired by round), and its resident memory per connection.
     */
    private static void scaleRows(StringBuilder sb, BenchTable t) {
        int w = t.rowKind().length();
        for (String n : t.names()) w = Math.max(w, n.length());
        String nameCol = "%-" + w + "s";
        String head = String.format(Locale.ROOT, nameCol + " %9s %5s %8s %10s %-21s %10s  %-38s %-3s %s%n",
                t.rowKind(), "calls/s", "±%", "p99 us", "cpu us/req", "cpu vs C [95 % CI]", "RSS/conn", "server syscalls/request", "k=l", "cpus");
        sb.append(head).append("-".repeat(head.length() - 1)).append('\n');
        for (int payload : t.payloads()) {
            for (String name : t.names()) {
                CellSummary c = t.row(name, payload);
                if (c == null) continue;
                String beside = ScaleTable.cRowBeside(name);
                Interval vsC = beside == null || beside.equals(name) ? null
                        : GoalVerdict.interval(Goal.Metric.SERVER_CPU_RATIO, t.runs(), name, beside, payload);
                String ratio = vsC == null || !vsC.known() ? "-"
                        : String.format(Locale.ROOT, "%5.3f [%5.3f-%5.3f]", vsC.estimate(), vsC.lo(), vsC.hi());
                sb.append(String.format(Locale.ROOT, nameCol + " %9.0f %5.1f %8.1f %10.2f %-21s %10s  %-38s %-3s %s%n",
                        name, c.callsPerSec().median(), c.callsPerSec().halfRangePercent(), c.p99Micros().median(),
                        c.serverCpuMicros().median(), ratio, bytes(c.serverRssPerConnection().median()),
                        CellSummary.describe(c.serverSyscalls()), c.kernelColumn(), c.cpus()));
            }
        }
    }

    /** e.g. {@code 64 B}, {@code 37.5 KiB}; {@code -} when not measured. */
    static String bytes(double b) {
        if (Double.isNaN(b)) return "-";
        return Math.abs(b) < 1024 ? String.format(Locale.ROOT, "%.0f B", b) : String.format(Locale.ROOT, "%.1f KiB", b / 1024);
    }

    private static void peerRows(StringBuilder sb, BenchTable t) {
        String head = String.format(Locale.ROOT, "%-11s %5s %9s %-19s %8s %7s %7s %9s %8s  %-30s %-38s %s%n",
                t.rowKind(), "bytes", "calls/s", t.reference() + "/" + t.rowKind() + " [CI]", "cpu s/p", "p50 us", "p99 us", "client us",
                "server us", "client syscalls/call (kernel)", "server syscalls/call", "cpus");
        sb.append(head).append("-".repeat(head.length() - 1)).append('\n');
        for (int payload : t.payloads()) {
            for (String name : t.names()) {
                CellSummary r = t.row(name, payload);
                if (r == null) continue;
                sb.append(String.format(Locale.ROOT, "%-11s %5d %9.0f %5.3f [%5.3f-%5.3f] %8.3f %7.1f %7.1f %9.2f %8.2f  %-30s %-38s %s%n",
                        name, payload, r.callsPerSec().median(), r.referenceRatioCi().estimate(), r.referenceRatioCi().lo(),
                        r.referenceRatioCi().hi(), r.clientCpuReferenceRatio().median(), r.p50Micros().median(),
                        r.p99Micros().median(), r.clientCpuMicros().median(), r.serverCpuMicros().median(),
                        CellSummary.describe(r.clientSyscalls()), CellSummary.describe(r.serverSyscalls()), r.cpus()));
            }
        }
    }
}
