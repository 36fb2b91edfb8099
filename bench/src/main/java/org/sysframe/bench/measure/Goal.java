package org.sysframe.bench.measure;

import java.util.Locale;

/**
 * One of the project's goals: a figure of one cell against another cell of the same table and payload,
 * taken round by round, whose 95 % interval ({@link Interval}) must lie on the good side of a
 * threshold, or for a "level with" goal inside 1 &plusmn; margin.
 *
 * <p>A row of a table's goals ({@link org.sysframe.bench.table.Table#goals()}) is one constructor call:
 * {@code new Goal(name, table, subject, versus, payload, metric, atLeast, threshold)}, or {@link #level} for a "level
 * with" goal.
 *
 * @param name      what the goal stands for, e.g. {@code seed patch: +10 % calls/s}
 * @param table     the {@link BenchTable#name()} it is measured in
 * @param subject   the cell that must do well (pairing or peer name)
 * @param versus    the cell it is compared with
 * @param atLeast   true: the figure must be &gt;= threshold; false: &lt;= threshold
 * @param threshold the figure's bound; for a level goal 1 - margin (at least level)
 * @param margin    0, or for a level goal the half-width of the band around 1 judged level (0.03: &plusmn;3 %)
 */
public record Goal(String name, String table, String subject, String versus, int payload, Metric metric,
                   boolean atLeast, double threshold, double margin) {

    public Goal {
        if (margin < 0 || margin >= 1) throw new IllegalArgumentException("margin " + margin
                + ": expected 0 <= margin < 1");
        if (margin > 0 && (!atLeast || Math.abs(threshold - (1 - margin)) > 1e-12)) {
            throw new IllegalArgumentException("a level goal is at least 1 - margin: use Goal.level");
        }
    }

    /** A goal with a threshold (no level band). */
    public Goal(String name, String table, String subject, String versus, int payload, Metric metric,
                boolean atLeast, double threshold) {
        this(name, table, subject, versus, payload, metric, atLeast, threshold, 0);
    }

    /**
     * A "level with" goal: {@link Status#LEVEL} when the interval lies inside 1 &plusmn; margin,
     * {@link Status#MET} when it lies wholly above 1 + margin (better than level), missed when it
     * lies wholly below 1 - margin; anything else is not settled.
     */
    public static Goal level(String name, String table, String subject, String versus, int payload, Metric metric,
            double margin) {
        return new Goal(name, table, subject, versus, payload, metric, true, 1 - margin, margin);
    }

    /** True for a "level with" goal. */
    public boolean isLevel() { return margin > 0; }

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
        SERVER_SYSCALLS_PER_CALL("server syscalls per request"),
        /**
         * The subject's own median round trip (p50 latency) in microseconds, an absolute figure; versus is not used.
         */
        P50_MICROS("p50 latency"),
        /**
         * The subject's server's resident memory per connection in KiB (the scale table: RSS growth from
         * before its connections to after, over their number), an absolute figure; versus's own figure is
         * shown beside it.
         */
        SERVER_RSS_KIB_PER_CONNECTION("server resident memory per connection");

        private final String label;

        Metric(String label) { this.label = label; }

        public String label() { return label; }

        /** "x" for a ratio of two cells, nothing for a figure of its own. */
        public String unit() {
            return switch (this) {
                case P50_MICROS -> " us";
                case SERVER_RSS_KIB_PER_CONNECTION -> " KiB";
                default -> isRatio() ? "x" : "";
            };
        }

        /** True for a ratio of two cells (judged on its logarithm), false for a cell's own figure. */
        public boolean isRatio() {
            return this != CLIENT_SYSCALLS_PER_CALL && this != SERVER_SYSCALLS_PER_CALL && this != P50_MICROS
                    && this != SERVER_RSS_KIB_PER_CONNECTION;
        }

        /** The figure for one round: subject's value over versus's. */
        public double of(Measurement subject, Measurement versus) {
            return switch (this) {
                case CALLS_RATIO -> subject.callsPerSecond() / versus.callsPerSecond();
                case CPU_RATIO -> subject.totalCpuMicrosPerCall() / versus.totalCpuMicrosPerCall();
                case CLIENT_CPU_RATIO -> subject.clientCpuMicrosPerCall() / versus.clientCpuMicrosPerCall();
                case SERVER_CPU_RATIO -> subject.serverCpuMicrosPerCall() / versus.serverCpuMicrosPerCall();
                case P99_RATIO -> (double) subject.p99Nanos() / versus.p99Nanos();
                case CLIENT_SYSCALLS_PER_CALL -> (double) subject.clientSyscalls().total() / subject.calls();
                case SERVER_SYSCALLS_PER_CALL -> subject.serverSyscalls() == null ? Double.NaN
                        : (double) subject.serverSyscalls().total() / subject.calls();
                case P50_MICROS -> subject.p50Nanos() / 1e3;
                case SERVER_RSS_KIB_PER_CONNECTION -> subject.serverRssPerConnection() / 1024;
            };
        }
    }

    /** The verdicts: on the good side, on the bad side, level, or not known within the budget. */
    public enum Status {
        MET("met"), MISSED("MISSED"), LEVEL("level"), NOT_SETTLED("NOT SETTLED");

        private final String label;

        Status(String label) { this.label = label; }

        public String label() { return label; }
    }

    /**
     * The verdict of an interval: met when all of it clears the threshold, missed when none of it
     * does, level when a level goal's interval lies inside 1 &plusmn; margin, else not settled.
     */
    public Status judge(Interval ci) {
        if (!ci.known()) return Status.NOT_SETTLED;
        if (isLevel()) {
            if (ci.lo() >= 1 - margin && ci.hi() <= 1 + margin) return Status.LEVEL;
            if (ci.lo() > 1 + margin) return Status.MET;
            if (ci.hi() < 1 - margin) return Status.MISSED;
            return Status.NOT_SETTLED;
        }
        double worst = atLeast ? ci.lo() : ci.hi();
        double best = atLeast ? ci.hi() : ci.lo();
        if (clears(worst)) return Status.MET;
        if (!clears(best)) return Status.MISSED;
        return Status.NOT_SETTLED;
    }

    private boolean clears(double v) { return atLeast ? v >= threshold : v <= threshold; }

    /**
     * How many rounds the interval would need to settle, from its width now (which falls with the
     * square root of the rounds) and the distance of its estimate to the nearest bound it straddles;
     * {@link Integer#MAX_VALUE} when the estimate lies on a bound.
     */
    public int roundsNeeded(Interval ci) {
        if (!ci.known()) return Integer.MAX_VALUE;
        double e = ci.scale(ci.estimate());
        double d = Math.abs(e - ci.scale(threshold));
        if (isLevel()) {
            // Inside the band: the nearer edge; outside: the edge it lies beyond.
            double below = e - ci.scale(1 - margin), above = e - ci.scale(1 + margin);
            d = below >= 0 && above <= 0 ? Math.min(below, -above) : Math.min(Math.abs(below), Math.abs(above));
        }
        return ci.needed(d);
    }

    /** e.g. {@code >= 1.10x}, {@code level 0.97-1.03x, above: met}. */
    public String want() {
        if (isLevel()) return "level " + number(1 - margin) + "-" + number(1 + margin) + metric.unit() + ", above: met";
        return (atLeast ? ">= " : "<= ") + number(threshold) + metric.unit();
    }

    static String number(double v) {
        return String.format(Locale.ROOT, "%.4f", v).replaceAll("(\\.\\d\\d)0+$", "$1"); // 1.1000 -> 1.10; 0.0413 stays
    }
}
