package org.sysframe.bench;

import org.sysframe.unix.SyscallKind;

import java.util.EnumMap;
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
        int n = runs.size();
        double[] cps = new double[n], ratio = new double[n], cpuRatio = new double[n], p50 = new double[n], p99 = new double[n];
        double[] ccpu = new double[n], scpu = new double[n];
        boolean agrees = true, measured = true;
        Map<SyscallKind, double[]> cs = new EnumMap<>(SyscallKind.class), ss = new EnumMap<>(SyscallKind.class);
        for (SyscallKind k : SyscallKind.values()) {
            cs.put(k, new double[n]);
            ss.put(k, new double[n]);
        }
        for (int i = 0; i < n; i++) {
            PingResult r = runs.get(i);
            PingResult b = baseline.get(i);
            cps[i] = r.callsPerSecond();
            ratio[i] = r.callsPerSecond() / b.callsPerSecond();
            cpuRatio[i] = totalCpu(r) / totalCpu(b);
            p50[i] = r.p50Nanos() / 1e3;
            p99[i] = r.p99Nanos() / 1e3;
            ccpu[i] = r.cpuMicrosPerCall(r.clientCpu());
            scpu[i] = r.serverCpu() == null ? Double.NaN : r.cpuMicrosPerCall(r.serverCpu());
            for (SyscallKind k : SyscallKind.values()) {
                cs.get(k)[i] = r.clientLibrary().perCall(k, r.calls());
                ss.get(k)[i] = r.serverLibrary() == null ? 0 : r.serverLibrary().perCall(k, r.calls());
            }
            if (r.clientKernel() == null || (r.serverLibrary() != null && r.serverKernel() == null)) {
                measured = false;
            } else {
                agrees &= r.clientKernel().equals(r.clientLibrary())
                        && (r.serverLibrary() == null || r.serverKernel().equals(r.serverLibrary()));
            }
        }
        Map<SyscallKind, Double> cm = new EnumMap<>(SyscallKind.class), sm = new EnumMap<>(SyscallKind.class);
        for (SyscallKind k : SyscallKind.values()) {
            cm.put(k, Spread.of(cs.get(k)).median());
            sm.put(k, Spread.of(ss.get(k)).median());
        }
        return new CellSummary(pairing, payload, n, Spread.of(cps), Spread.of(ratio), Spread.of(cpuRatio),
                Spread.of(p50), Spread.of(p99), Spread.of(ccpu), Spread.of(scpu), cm, sm, measured && agrees, measured);
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
