package org.sysframe.bench;

import java.util.Locale;

/**
 * One of the project's goals: a figure of one cell against another cell of the same table and payload,
 * taken round by round, that must clear a threshold.
 *
 * @param name    what the goal stands for, e.g. {@code seed patch: +10 % calls/s}
 * @param table   the {@link BenchTable#name()} it is measured in
 * @param subject the cell that must do well (pairing or peer name)
 * @param versus  the cell it is compared with
 * @param atLeast true: the figure must be &gt;= threshold; false: &lt;= threshold
 */
public record Goal(String name, String table, String subject, String versus, int payload, Metric metric,
                   boolean atLeast, double threshold) {

    /** A figure of subject over versus, computed from one round's pair of runs. */
    public enum Metric {
        CALLS_RATIO("calls/s"),
        CPU_RATIO("CPU per call, client + server"),
        CLIENT_CPU_RATIO("client CPU per call"),
        /** The subject's server CPU per request over versus's (every loop of the server together). */
        SERVER_CPU_RATIO("server CPU per request"),
        P99_RATIO("p99 latency"),
        /** The subject's own client syscalls per call (library counts, else kernel); versus is not used. */
        CLIENT_SYSCALLS_PER_CALL("client syscalls per call"),
        /** The subject's own server syscalls per request (library counts, else kernel); versus is not used. */
        SERVER_SYSCALLS_PER_CALL("server syscalls per request");

        private final String label;

        Metric(String label) { this.label = label; }

        public String label() { return label; }

        /** "x" for a ratio of two cells, nothing for a figure of its own. */
        public String unit() { return this == CLIENT_SYSCALLS_PER_CALL || this == SERVER_SYSCALLS_PER_CALL ? "" : "x"; }

        /** The figure for one round: subject's value over versus's. */
        public double of(Measurement subject, Measurement versus) {
            return switch (this) {
                case CALLS_RATIO -> subject.callsPerSecond() / versus.callsPerSecond();
                case CPU_RATIO -> subject.totalCpuMicrosPerCall() / versus.totalCpuMicrosPerCall();
                case CLIENT_CPU_RATIO -> subject.clientCpuMicrosPerCall() / versus.clientCpuMicrosPerCall();
                case SERVER_CPU_RATIO -> subject.serverCpuMicrosPerCall() / versus.serverCpuMicrosPerCall();
                case P99_RATIO -> (double) subject.p99Nanos() / versus.p99Nanos();
                case CLIENT_SYSCALLS_PER_CALL -> (double) subject.clientSyscalls().total() / subject.calls();
                case SERVER_SYSCALLS_PER_CALL -> subject.serverSyscalls() == null ? Double.NaN : (double) subject.serverSyscalls().total() / subject.calls();
            };
        }
    }

    /** The three verdicts: the whole spread clears the threshold, straddles it, or misses it. */
    public enum Status {
        MET("met"), NOT_SETTLED("NOT SETTLED"), MISSED("MISSED");

        private final String label;

        Status(String label) { this.label = label; }

        public String label() { return label; }
    }

    /** Met when the whole min-max spread clears the threshold, missed when none of it does. */
    public Status judge(Spread s) {
        double worst = atLeast ? s.min() : s.max();
        double best = atLeast ? s.max() : s.min();
        if (clears(worst)) return Status.MET;
        if (clears(best)) return Status.NOT_SETTLED;
        return Status.MISSED;
    }

    private boolean clears(double v) { return atLeast ? v >= threshold : v <= threshold; }

    /** e.g. {@code >= 1.10x}. */
    public String want() {
        String t = String.format(Locale.ROOT, "%.4f", threshold).replaceAll("(\\.\\d\\d)0+$", "$1"); // 1.1000 -> 1.10; 0.0413 stays
        return (atLeast ? ">= " : "<= ") + t + metric.unit();
    }
}
