package org.sysframe.bench.report;

import org.sysframe.bench.explore.BenchRun;
import org.sysframe.bench.explore.Crossover;
import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.CellSummary;
import org.sysframe.bench.measure.Goal;
import org.sysframe.bench.measure.GoalVerdict;
import org.sysframe.bench.measure.Interval;
import org.sysframe.bench.measure.Spread;
import org.sysframe.bench.table.ScaleTable;
import org.sysframe.bench.table.WaitTable;
import org.sysframe.unix.SyscallKind;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A bench run as printed on the terminal, verdict first: the machine, the goals' tally with one line per
 * goal not met, then per table its rows (medians, spreads, ratios with their 95 % interval, CPU and
 * syscalls per call), under it per row the syscalls by kind and the CPUs it ran on, the rows' settings,
 * the notes and the goals evaluated on that table; the tally again at the end. Every line fits
 * {@link #WIDTH} columns: the rows hold figures only, and the long texts under them are wrapped. A figure
 * not measured (the latency of a C lean row, which reads no clock per request) is {@code -}.
 */
public final class TerminalReport {
    private TerminalReport() {}

    /** The widest line. */
    public static final int WIDTH = 160;

    public static String of(BenchRun run) {
        StringBuilder sb = new StringBuilder();
        wrap(sb, "machine: " + run.machine(), "  ");
        if (!run.goals().isEmpty()) {
            sb.append(tally(run)).append('\n');
            for (Goal.Status s : List.of(Goal.Status.MISSED, Goal.Status.NOT_SETTLED)) {
                for (GoalVerdict g : run.goals()) if (g.status() == s) wrap(sb, "  " + notMet(g), "      ");
            }
        }
        wrap(sb,
                String.format(Locale.ROOT,
                "%d interleaved rounds per cell%s, more for unsettled goals' cells; medians over rounds;"
                        + " ratios per round, estimate and 95 %% interval (min-max: the JSON)%s",
                run.rounds(), run.quick() ? " (quick)" : "", run.serverLoops() == 1 ? "" : "; " + run.serverLoops()
                        + " server loops"), "  ");
        for (BenchTable t : run.tables()) {
            sb.append('\n');
            wrap(sb, String.format(Locale.ROOT, "%s (%d interleaved rounds; %s):", t.title(), t.rounds(),
                    t.referenceOverRow() ? "syscalls of each peer from the kernel's counters"
                            : t.name().equals(ScaleTable.NAME)
                                    ? "each connection count a set of rounds of its own; server CPU per"
                                    + " request vs the C server's at the same count, per round"
                            : "ratio vs " + t.reference() + " per round"), "  ");
            if (t.referenceOverRow()) peerRows(sb, t);
            else if (t.name().equals(ScaleTable.NAME)) scaleRows(sb, t);
            else rows(sb, t);
            details(sb, t);
            int w = nameWidth(t);
            sb.append(t.rowKind()).append("s:\n");
            for (String n : t.names()) wrap(sb, "  " + pad(n, w) + " " + t.settings(n), " ".repeat(w + 3));
            for (String note : t.notes()) wrap(sb, "note: " + note, "      ");
            for (GoalVerdict g : run.goals(t.name())) {
                wrap(sb, g.line(), "  ");
                if (g.explanation() != null) wrap(sb, "  " + g.explanation(), "    ");
            }
            for (Crossover c : run.crossovers(t.name())) wrap(sb, "crossover: " + c.text(), "  ");
        }
        if (run.kernelUnavailable() != null) wrap(sb, "kernel counts unavailable: " + run.kernelUnavailable(), "  ");
        if (!run.goals().isEmpty()) sb.append(tally(run)).append('\n');
        return sb.toString();
    }

    /** e.g. {@code goals: 20 met, 2 missed, 3 level, 0 not settled (of 25), in 4 min 31 s}. */
    static String tally(BenchRun run) {
        Map<Goal.Status, Integer> n = new EnumMap<>(Goal.Status.class);
        for (Goal.Status s : Goal.Status.values()) n.put(s, 0);
        for (GoalVerdict g : run.goals()) n.merge(g.status(), 1, Integer::sum);
        long s = Math.round(run.seconds());
        return String.format(Locale.ROOT,
                "goals: %d met, %d missed, %d level, %d not settled (of %d), in %d min %02d s",
                n.get(Goal.Status.MET), n.get(Goal.Status.MISSED), n.get(Goal.Status.LEVEL),
                        n.get(Goal.Status.NOT_SETTLED),
                run.goals().size(), s / 60, s % 60);
    }

    /** e.g. {@code MISSED       peers: +20 % over jnr-unixsocket, 32 B: 0.962x [0.785-1.091], want >= 1.20x}. */
    static String notMet(GoalVerdict g) {
        return String.format(Locale.ROOT, "%-12s %s: %s, %d B: %s%s [%s-%s], want %s", g.status().label(),
                g.goal().table(), g.goal().name(),
                g.goal().payload(), GoalVerdict.number(g.ci().estimate()), g.goal().metric().unit(),
                        GoalVerdict.number(g.ci().lo()),
                GoalVerdict.number(g.ci().hi()), g.goal().want());
    }

    private static void rows(StringBuilder sb, BenchTable t) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {t.rowKind(), "bytes", "calls/s", "±%", "ratio [95 % CI]", "p50 us", "p99 us", "cpu us",
                "client sys/call", "server sys/call", "k=l"});
        for (int payload : t.payloads()) {
            for (String name : t.names()) {
                CellSummary c = t.row(name, payload);
                if (c == null) continue;
                rows.add(new String[] {name, String.valueOf(payload), f("%.0f", c.callsPerSec().median()),
                        f("%.1f", c.callsPerSec().halfRangePercent()), ci(c.ratioCi()), latency(c.p50Micros()),
                        latency(c.p99Micros()),
                        f("%.2f", c.cpuMicrosPerCall()), total(c.clientSyscalls()), total(c.serverSyscalls()),
                                c.kernelColumn()});
            }
        }
        columns(sb, rows, 1);
    }

    /**
     * The scale table: per row the load generator's calls/s and p99, the server's CPU and syscalls per
     * request, its CPU per request over the C server's at the same connections (estimate and 95 %
     * interval, paired by round), and its resident memory per connection.
     */
    private static void scaleRows(StringBuilder sb, BenchTable t) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {t.rowKind(), "calls/s", "±%", "p99 us", "cpu us/req", "cpu vs C [95 % CI]", "RSS/conn",
                "server sys/req", "k=l"});
        for (int payload : t.payloads()) {
            for (String name : t.names()) {
                CellSummary c = t.row(name, payload);
                if (c == null) continue;
                String beside = ScaleTable.cRowBeside(name);
                Interval vsC = beside == null || beside.equals(name) ? null
                        : GoalVerdict.interval(Goal.Metric.SERVER_CPU_RATIO, t.runs(), name, beside, payload);
                rows.add(new String[] {name, f("%.0f", c.callsPerSec().median()),
                        f("%.1f", c.callsPerSec().halfRangePercent()),
                        latency(c.p99Micros()), f("%.2f", c.serverCpuMicros().median()), vsC == null ? "-" : ci(vsC),
                        bytes(c.serverRssPerConnection().median()), total(c.serverSyscalls()), c.kernelColumn()});
            }
        }
        columns(sb, rows, 1);
    }

    private static void peerRows(StringBuilder sb, BenchTable t) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {t.rowKind(), "bytes", "calls/s", t.reference() + "/" + t.rowKind() + " [95 % CI]",
                "cpu s/p", "p50 us", "p99 us", "client us", "server us", "client sys/call", "server sys/call"});
        for (int payload : t.payloads()) {
            for (String name : t.names()) {
                CellSummary r = t.row(name, payload);
                if (r == null) continue;
                rows.add(new String[] {name, String.valueOf(payload), f("%.0f", r.callsPerSec().median()),
                        ci(r.referenceRatioCi()),
                        f("%.3f", r.clientCpuReferenceRatio().median()), latency(r.p50Micros()), latency(r.p99Micros()),
                        f("%.2f", r.clientCpuMicros().median()), f("%.2f", r.serverCpuMicros().median()),
                                total(r.clientSyscalls()),
                        total(r.serverSyscalls())});
            }
        }
        columns(sb, rows, 1);
    }

    /**
     * Under the rows, one entry per row: its syscalls per call by kind and the CPUs its threads ran on;
     * in the wait table also the trade of its wait mode, and the SQEs of an io_uring side.
     */
    private static void details(StringBuilder sb, BenchTable t) {
        int w = nameWidth(t);
        sb.append(t.referenceOverRow()
                ? "syscalls per call by kind (the client's: the kernel's count), and the CPUs the threads ran on:\n"
                : t.name().equals(ScaleTable.NAME)
                        ? "the server's syscalls per request by kind, and the CPUs the threads ran on:\n"
                : "syscalls per call by kind, and the CPUs the threads ran on:\n");
        for (int payload : t.payloads()) {
            for (String n : t.names()) {
                CellSummary c = t.row(n, payload);
                if (c == null) continue;
                StringBuilder d = new StringBuilder();
                if (!t.name().equals(ScaleTable.NAME)) d.append("client ").append(kinds(c.clientSyscalls()))
                        .append("; server ");
                d.append(kinds(c.serverSyscalls())).append("; ").append(c.cpus());
                if (t.name().equals(WaitTable.NAME)) d.append("; ").append(c.tradeLine());
                if (!c.uringMix().isEmpty()) d.append("; io_uring SQEs per call: ").append(c.uringMix());
                wrap(sb, String.format(Locale.ROOT, "  %s %6d B: %s", pad(n, w), payload, d), " ".repeat(w + 13));
            }
        }
    }

    /** The widest row name of t, and at least its row kind's. */
    private static int nameWidth(BenchTable t) {
        int w = t.rowKind().length();
        for (String n : t.names()) w = Math.max(w, n.length());
        return w;
    }

    /**
     * rows (the first the header) in columns as wide as their widest cell, the first left columns
     * left-aligned and the others right-aligned, a rule under the header.
     */
    static void columns(StringBuilder sb, List<String[]> rows, int left) {
        int[] width = new int[rows.get(0).length];
        for (String[] r : rows) for (int i = 0; i < r.length; i++) width[i] = Math.max(width[i], r[i].length());
        boolean header = true;
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < r.length; i++) {
                if (i > 0) line.append("  ");
                line.append(i < left ? pad(r[i], width[i]) : " ".repeat(width[i] - r[i].length()) + r[i]);
            }
            sb.append(line.toString().stripTrailing()).append('\n');
            if (header) sb.append("-".repeat(line.length())).append('\n');
            header = false;
        }
    }

    /**
     * text in lines of at most {@link #WIDTH} columns, every line after the first starting with indent:
     * broken after a "; " when that fills two thirds of the line, else at a space (a word longer than a
     * line is cut).
     */
    static void wrap(StringBuilder sb, String text, String indent) {
        String rest = text;
        String prefix = "";
        while (prefix.length() + rest.length() > WIDTH) {
            int room = WIDTH - prefix.length();
            int cut = rest.lastIndexOf("; ", room - 1) + 1;
            if (cut < room * 2 / 3) cut = rest.lastIndexOf(' ', room);
            if (cut <= 0) cut = room;
            sb.append(prefix).append(rest, 0, cut).append('\n');
            rest = rest.substring(cut).stripLeading();
            prefix = indent;
        }
        sb.append(prefix).append(rest.stripTrailing()).append('\n');
    }

    private static String pad(String s, int width) { return s + " ".repeat(Math.max(0, width - s.length())); }

    private static String f(String format, double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, format, v);
    }

    /** e.g. {@code 1.250 [1.200-1.310]}; {@code -} when not known. */
    private static String ci(Interval i) {
        return i == null || !i.known() ? "-" : String.format(Locale.ROOT, "%5.3f [%5.3f-%5.3f]", i.estimate(), i.lo(),
                i.hi());
    }

    /** A latency in us; {@code -} when not measured (0: no round trip takes no time; a C lean peer reports 0). */
    static String latency(Spread s) {
        double v = s.median();
        return Double.isNaN(v) || v == 0 ? "-" : String.format(Locale.ROOT, "%.1f", v);
    }

    /** The syscalls per call of every kind together; {@code -} when not counted. */
    static String total(Map<SyscallKind, Double> perCall) {
        double sum = 0;
        boolean counted = false;
        for (double v : perCall.values()) {
            if (Double.isNaN(v)) continue;
            sum += v;
            counted = true;
        }
        return counted ? CellSummary.count(sum) : "-";
    }

    /** The syscalls per call by kind ({@link CellSummary#describe}); {@code -} when not counted. */
    private static String kinds(Map<SyscallKind, Double> perCall) {
        return perCall.values().stream().allMatch(v -> Double.isNaN(v)) ? "-" : CellSummary.describe(perCall);
    }

    /** e.g. {@code 64 B}, {@code 37.5 KiB}; {@code -} when not measured. */
    static String bytes(double b) {
        if (Double.isNaN(b)) return "-";
        return Math.abs(b) < 1024 ? String.format(Locale.ROOT, "%.0f B", b)
                : String.format(Locale.ROOT, "%.1f KiB", b / 1024);
    }
}
