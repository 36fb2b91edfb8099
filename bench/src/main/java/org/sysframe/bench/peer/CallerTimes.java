package org.sysframe.bench.peer;

import org.HdrHistogram.Histogram;

/**
 * The timing of one round's callers together: their latencies merged, and the wall time from the
 * first caller's start to the last one's finish (what both probes of many callers report).
 */
final class CallerTimes {
    final Histogram latency = new Histogram(10_000_000_000L, 3);
    private long first = Long.MAX_VALUE, last = Long.MIN_VALUE;

    /** One caller: its latencies, and when it started and finished (System.nanoTime()). */
    void add(Histogram callerLatency, long startNanos, long endNanos) {
        latency.add(callerLatency);
        first = Math.min(first, startNanos);
        last = Math.max(last, endNanos);
    }

    /** Seconds from the first start to the last finish. */
    double seconds() { return (last - first) / 1e9; }
}
