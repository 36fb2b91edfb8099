package org.sysframe.bench.cli;

import org.sysframe.bench.measure.KernelCounters;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.ThreadCpu;
import org.sysframe.bench.report.Json;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;

import java.util.Locale;
import java.util.Map;

/** What {@code ping} prints of a run: the text report, or its {@code --json} line. */
final class PingReport {
    private PingReport() {}

    /**
     * e.g. {@code first connect: 182.4 ms, first call: 0.9 ms (in a fresh JVM)}: the connect (GR_HELLO
     * included, from the start of the peer's thread) and the first ping (the warm-up's first, else the
     * run's), as a short-lived client pays them; {@code this JVM connected before} when another ping of
     * this JVM did; the first call is left out with --depth (not timed alone).
     */
    static String coldStart(long connectNanos, long firstCallNanos, boolean firstInJvm) {
        return String.format(Locale.ROOT, "first connect: %.1f ms%s (%s)", connectNanos / 1e6,
                firstCallNanos < 0 ? "" : String.format(Locale.ROOT, ", first call: %.1f ms", firstCallNanos / 1e6),
                firstInJvm ? "in a fresh JVM" : "this JVM connected before");
    }

    /**
     * The --json line: m, and why the kernel's counts are missing when they are (kernelVoid: why this run's are void
     * although the counters work, or null).
     */
    static void printJson(Map<String, Object> m, Measurement r, String kernelVoid) {
        if (r.clientKernel() == null) m.put("kernel_counts_unavailable", kernelMissing(kernelVoid));
        System.out.println(Json.write(m));
    }

    /** Why the kernel's counts are missing: the counters are off or cannot be opened, else kernelVoid. */
    private static String kernelMissing(String kernelVoid) {
        String why = KernelCounters.unavailable();
        return why != null ? why : kernelVoid;
    }

    /**
     * The text report of a run: time and calls/s, latency, CPU, the CPUs, and the syscalls per call by kind
     * (kernelVoid as for {@link #printJson}).
     */
    static void print(Measurement r, String kernelVoid) {
        System.out.printf(Locale.ROOT, "total time: %.3f s (%.1f calls/s)%n", r.seconds(), r.callsPerSecond());
        System.out.printf(Locale.ROOT, "latency us: p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f%n",
                r.p50Nanos() / 1e3, r.p90Nanos() / 1e3, r.p99Nanos() / 1e3, r.p999Nanos() / 1e3, r.maxNanos() / 1e3);
        ThreadCpu c = r.clientCpu();
        System.out.printf(Locale.ROOT,
                "client cpu: %.2f us/call on-CPU (user %.2f, sys %.2f from 10 ms ticks), busy %.0f %% of the run,"
                        + " %.3f voluntary + %.3f involuntary ctx switches/call%n",
                c.cpuNanos() / 1e3 / r.calls(), (double) c.userMicros() / r.calls(),
                        (double) c.systemMicros() / r.calls(),
                100.0 * c.cpuNanos() / (r.seconds() * 1e9), (double) c.voluntarySwitches() / r.calls(),
                        (double) c.involuntarySwitches() / r.calls());
        ThreadCpu sc = r.serverCpu();
        if (sc != null) {
            System.out.printf(Locale.ROOT,
                    "server cpu: %.2f us/call on-CPU, whole server process (user %.2f, sys %.2f from 10 ms ticks)%n",
                    sc.cpuNanos() / 1e3 / r.calls(), (double) sc.userMicros() / r.calls(),
                            (double) sc.systemMicros() / r.calls());
        }
        if (r.cpus() != null) System.out.println("ran on: " + r.cpus());
        System.out.println("client syscalls per call:   library    kernel   of them empty (EAGAIN)");
        for (SyscallKind k : SyscallKind.values()) {
            double lib = r.clientLibrary().perCall(k, r.calls());
            SyscallCounts kc = r.clientKernel();
            double ker = kc == null ? Double.NaN : kc.perCall(k, r.calls());
            if (lib == 0 && (kc == null || ker == 0)) continue;
            double empty = r.clientEmpty() == null ? 0 : r.clientEmpty().perCall(k, r.calls());
            System.out.printf(Locale.ROOT, "  %-24s %9.3f %9s %9s%n", k.kernelName(), lib,
                    kc == null ? "n/a" : String.format(Locale.ROOT, "%.3f", ker), empty == 0 ? ""
                    : String.format(Locale.ROOT, "%.3f", empty));
        }
        if (r.clientUring() != null) {
            System.out.printf(Locale.ROOT, "client io_uring per call:   %s SQEs, %.3f CQEs%n",
                    r.clientUring().describe(r.calls()), (double) r.clientUring().cqes() / r.calls());
        }
        if (r.clientKernel() == null) System.out.println("kernel counts unavailable: " + kernelMissing(kernelVoid));
    }
}
