package org.sysframe.bench;

import org.sysframe.unix.SyscallKind;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One pairing at one payload size, summarised over the rounds: medians with min-max spread, the
 * per-round ratio against the baseline pairing, syscalls per call by kind, and whether the library's
 * counts equalled the kernel's in every round.
 */
public record CellSummary(String pairing, int payload, int rounds,
                          Spread callsPerSec, Spread ratio, Spread cpuRatio, Spread p50Micros, Spread p99Micros,
                          Spread clientCpuMicros, Spread serverCpuMicros,
                          Map<SyscallKind, Double> clientSyscalls, Map<SyscallKind, Double> serverSyscalls,
                          boolean kernelAgrees, boolean kernelMeasured) {

    /**
     * Summarises the rounds of one cell; baseline holds the baseline pairing's results of the same
     * payload, round by round (ratios are taken per round, then summarised).
     */
    public static CellSummary of(String pairing, int payload, List<PingResult> runs, List<PingResult> baseline) {
        boolean measured = runs.stream().allMatch(r -> r.clientKernel() != null && (r.serverLibrary() == null || r.serverKernel() != null));
        boolean agrees = measured && runs.stream().allMatch(r -> r.clientKernel().equals(r.clientLibrary())
                && (r.serverLibrary() == null || r.serverKernel().equals(r.serverLibrary())));
        return new CellSummary(pairing, payload, runs.size(),
                Spread.over(runs, PingResult::callsPerSecond),
                Spread.perRound(runs, baseline, (r, b) -> r.callsPerSecond() / b.callsPerSecond()),
                Spread.perRound(runs, baseline, (r, b) -> totalCpu(r) / totalCpu(b)),
                Spread.over(runs, r -> r.p50Nanos() / 1e3), Spread.over(runs, r -> r.p99Nanos() / 1e3),
                Spread.over(runs, r -> r.cpuMicrosPerCall(r.clientCpu())),
                Spread.over(runs, r -> r.serverCpu() == null ? Double.NaN : r.cpuMicrosPerCall(r.serverCpu())),
                Spread.medianPerCall(runs, PingResult::clientLibrary, PingResult::calls),
                Spread.medianPerCall(runs, PingResult::serverLibrary, PingResult::calls),
                agrees, measured);
    }

    private static double totalCpu(PingResult r) {
        double c = r.cpuMicrosPerCall(r.clientCpu());
        return r.serverCpu() == null ? c : c + r.cpuMicrosPerCall(r.serverCpu());
    }

    /** Client + server on-CPU microseconds per call (median of each). */
    public double cpuMicrosPerCall() {
        return clientCpuMicros.median() + (Double.isNaN(serverCpuMicros.median()) ? 0 : serverCpuMicros.median());
    }

    /**
     * e.g. {@code 1 sendmsg + 1 recvfrom}; a fraction is shown with two decimals, or four when it is
     * within 0.005 of a whole number (so 1.0003 never reads as an exact 1).
     */
    public static String describe(Map<SyscallKind, Double> perCall) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<SyscallKind, Double> e : perCall.entrySet()) {
            double v = e.getValue();
            if (v == 0 || Double.isNaN(v)) continue;
            if (!sb.isEmpty()) sb.append(" + ");
            String n = v == Math.rint(v) ? String.valueOf((long) v)
                    : Math.abs(v - Math.rint(v)) < 0.005 ? String.format(Locale.ROOT, "%.4f", v)
                    : String.format(Locale.ROOT, "%.2f", v);
            sb.append(n).append(' ').append(e.getKey().kernelName());
        }
        return sb.isEmpty() ? "0" : sb.toString();
    }

    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pairing", pairing);
        m.put("payload", payload);
        m.put("rounds", rounds);
        spread(m, "calls_per_sec", callsPerSec);
        spread(m, "ratio_vs_baseline", ratio);
        spread(m, "cpu_ratio_vs_baseline", cpuRatio);
        spread(m, "p50_us", p50Micros);
        spread(m, "p99_us", p99Micros);
        spread(m, "client_cpu_us_per_call", clientCpuMicros);
        spread(m, "server_cpu_us_per_call", serverCpuMicros);
        for (SyscallKind k : SyscallKind.values()) m.put("client_" + k.kernelName() + "_per_call", clientSyscalls.get(k));
        for (SyscallKind k : SyscallKind.values()) m.put("server_" + k.kernelName() + "_per_call", serverSyscalls.get(k));
        m.put("kernel_counts_measured", kernelMeasured);
        m.put("library_equals_kernel", kernelAgrees);
        return m;
    }

    private static void spread(Map<String, Object> m, String name, Spread s) {
        m.put(name + "_median", s.median());
        m.put(name + "_min", s.min());
        m.put(name + "_max", s.max());
    }
}
