package org.sysframe.bench;

import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One ping run's figures: throughput, latency percentiles (ns), syscalls (library and kernel; server
 * side when the server runs in this process), and CPU of the client and server threads.
 */
public record PingResult(
        String label, long calls, long payload, double seconds,
        long p50Nanos, long p90Nanos, long p99Nanos, long p999Nanos, long maxNanos,
        SyscallCounts clientLibrary, SyscallCounts clientKernel,
        SyscallCounts serverLibrary, SyscallCounts serverKernel,
        ThreadCpu clientCpu, ThreadCpu serverCpu) {

    public double callsPerSecond() { return calls / seconds; }

    /** On-CPU microseconds per call of a thread's CPU figures. */
    public double cpuMicrosPerCall(ThreadCpu cpu) { return cpu == null ? Double.NaN : cpu.cpuNanos() / 1000.0 / calls; }

    /** Every figure by name, for JSON and CSV. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("label", label);
        m.put("calls", calls);
        m.put("payload", payload);
        m.put("seconds", seconds);
        m.put("calls_per_sec", callsPerSecond());
        m.put("p50_us", p50Nanos / 1000.0);
        m.put("p90_us", p90Nanos / 1000.0);
        m.put("p99_us", p99Nanos / 1000.0);
        m.put("p999_us", p999Nanos / 1000.0);
        m.put("max_us", maxNanos / 1000.0);
        perCall(m, "client_lib_", clientLibrary);
        perCall(m, "client_kernel_", clientKernel);
        perCall(m, "server_lib_", serverLibrary);
        perCall(m, "server_kernel_", serverKernel);
        cpu(m, "client_", clientCpu);
        cpu(m, "server_", serverCpu);
        return m;
    }

    private void perCall(Map<String, Object> m, String prefix, SyscallCounts c) {
        if (c == null) return;
        for (SyscallKind k : SyscallKind.values()) m.put(prefix + k.kernelName() + "_per_call", c.perCall(k, calls));
    }

    private void cpu(Map<String, Object> m, String prefix, ThreadCpu c) {
        if (c == null) return;
        m.put(prefix + "cpu_us_per_call", c.cpuNanos() / 1000.0 / calls);
        m.put(prefix + "user_us_per_call", (double) c.userMicros() / calls);
        m.put(prefix + "sys_us_per_call", (double) c.systemMicros() / calls);
        m.put(prefix + "vcsw_per_call", (double) c.voluntarySwitches() / calls);
        m.put(prefix + "ivcsw_per_call", (double) c.involuntarySwitches() / calls);
    }
}
