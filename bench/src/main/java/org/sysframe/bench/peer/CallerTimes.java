package org.sysframe.bench.peer;

import org.HdrHistogram.Histogram;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.measure.ThreadCpu;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.uring.UringCounts;

import java.util.SortedSet;

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

    /**
     * The round's measurement: these latencies and wall time, the clients' figures over the round
     * (kernel null: not comparable), and the server's (sd null: not read; serverUnknown: why its CPUs
     * are not known, or null).
     */
    Measurement measurement(Cell cell, int round, int clients, long calls, SyscallCounts library, SyscallCounts kernel,
            ThreadCpu cpu,
                            SortedSet<Integer> clientCpus, ServerSample sd, String serverUnknown, SyscallCounts empty,
                            UringCounts uring) {
        return new Measurement(cell.name(), cell.payload(), round, clients, calls, seconds(),
                latency.getValueAtPercentile(50), latency.getValueAtPercentile(90), latency.getValueAtPercentile(99),
                latency.getValueAtPercentile(99.9), latency.getMaxValue(),
                library, kernel, sd == null ? null : sd.library(), sd == null ? null : sd.kernel(),
                cpu, sd == null ? null : sd.cpu(),
                ClientThreadsProbe.cpus(clientCpus, sd == null ? null : sd.cpus(), serverUnknown),
                empty, sd == null ? null : sd.empty(), uring, sd == null ? null : sd.uring());
    }
}
