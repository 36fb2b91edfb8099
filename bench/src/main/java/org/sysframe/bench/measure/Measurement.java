package org.sysframe.bench.measure;

import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.uring.UringCounts;
import org.sysframe.unix.SyscallKind;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One measured run of one cell in one round: the only result record of the bench. Throughput and
 * latency (ns) of the clients, syscalls of the client side (library counts where the client has them,
 * kernel counts) and of the server side (summed over its loops), of those the calls that moved nothing
 * (the empty tries of a spin), the SQEs by opcode and CQEs of io_uring sides, CPU of both sides, and
 * the CPUs the threads were seen on; in the scale table, the server's resident memory per connection
 * (NaN elsewhere). Null fields mean "not measurable here" (no kernel counter, no server in reach).
 */
public record Measurement(String cell, int payload, int round, int clients, long calls, double seconds,
                          long p50Nanos, long p90Nanos, long p99Nanos, long p999Nanos, long maxNanos,
                          SyscallCounts clientLibrary, SyscallCounts clientKernel,
                          SyscallCounts serverLibrary, SyscallCounts serverKernel,
                          ThreadCpu clientCpu, ThreadCpu serverCpu, String cpus,
                          SyscallCounts clientEmpty, SyscallCounts serverEmpty,
                          UringCounts clientUring, UringCounts serverUring, double serverRssPerConnection) {

    /** Without the server's resident memory per connection (every table but the scale table's: NaN). */
    public Measurement(String cell, int payload, int round, int clients, long calls, double seconds,
                       long p50Nanos, long p90Nanos, long p99Nanos, long p999Nanos, long maxNanos,
                       SyscallCounts clientLibrary, SyscallCounts clientKernel,
                       SyscallCounts serverLibrary, SyscallCounts serverKernel,
                       ThreadCpu clientCpu, ThreadCpu serverCpu, String cpus,
                       SyscallCounts clientEmpty, SyscallCounts serverEmpty,
                       UringCounts clientUring, UringCounts serverUring) {
        this(cell, payload, round, clients, calls, seconds, p50Nanos, p90Nanos, p99Nanos, p999Nanos, maxNanos,
                clientLibrary, clientKernel, serverLibrary, serverKernel, clientCpu, serverCpu, cpus, clientEmpty,
                serverEmpty, clientUring, serverUring, Double.NaN);
    }

    /** Without io_uring counts (epoll sides, and peers that keep none). */
    public Measurement(String cell, int payload, int round, int clients, long calls, double seconds,
                       long p50Nanos, long p90Nanos, long p99Nanos, long p999Nanos, long maxNanos,
                       SyscallCounts clientLibrary, SyscallCounts clientKernel,
                       SyscallCounts serverLibrary, SyscallCounts serverKernel,
                       ThreadCpu clientCpu, ThreadCpu serverCpu, String cpus,
                       SyscallCounts clientEmpty, SyscallCounts serverEmpty) {
        this(cell, payload, round, clients, calls, seconds, p50Nanos, p90Nanos, p99Nanos, p999Nanos, maxNanos,
                clientLibrary, clientKernel, serverLibrary, serverKernel, clientCpu, serverCpu, cpus, clientEmpty,
                serverEmpty, null, null);
    }

    /** Without empty-call counts (peers that keep none). */
    public Measurement(String cell, int payload, int round, int clients, long calls, double seconds,
                       long p50Nanos, long p90Nanos, long p99Nanos, long p999Nanos, long maxNanos,
                       SyscallCounts clientLibrary, SyscallCounts clientKernel,
                       SyscallCounts serverLibrary, SyscallCounts serverKernel,
                       ThreadCpu clientCpu, ThreadCpu serverCpu, String cpus) {
        this(cell, payload, round, clients, calls, seconds, p50Nanos, p90Nanos, p99Nanos, p999Nanos, maxNanos,
                clientLibrary, clientKernel, serverLibrary, serverKernel, clientCpu, serverCpu, cpus, null, null);
    }

    /**
     * This run with the server's resident memory per connection (bytes: the growth of the server
     * process's RSS from before its connections were made to after, over their number; see the scale
     * table).
     */
    public Measurement withServerRss(double serverRssPerConnection) {
        return new Measurement(cell, payload, round, clients, calls, seconds, p50Nanos, p90Nanos, p99Nanos, p999Nanos,
                maxNanos,
                clientLibrary, clientKernel, serverLibrary, serverKernel, clientCpu, serverCpu, cpus, clientEmpty,
                        serverEmpty,
                clientUring, serverUring, serverRssPerConnection);
    }

    /** Round number of a warm-up run (not kept). */
    public static final int WARM_UP = 0;

    /** Aggregate round trips per second of all clients together. */
    public double callsPerSecond() { return calls / seconds; }

    /** On-CPU microseconds per call of the client side (every client thread or process together). */
    public double clientCpuMicrosPerCall() { return micros(clientCpu); }

    /** On-CPU microseconds per call of the server side (every loop together); NaN when not measured. */
    public double serverCpuMicrosPerCall() { return micros(serverCpu); }

    /** Client + server on-CPU microseconds per call (client alone when the server is out of reach). */
    public double totalCpuMicrosPerCall() {
        double s = serverCpuMicrosPerCall();
        return clientCpuMicrosPerCall() + (Double.isNaN(s) ? 0 : s);
    }

    /** The client's syscalls: the library's count when it has one, else the kernel's. */
    public SyscallCounts clientSyscalls() { return clientLibrary != null ? clientLibrary : clientKernel; }

    /**
     * The server side's syscalls: library counts where the server keeps them, else the kernel's; null when not
     * measured.
     */
    public SyscallCounts serverSyscalls() { return serverLibrary != null ? serverLibrary : serverKernel; }

    /** Whether every count present has a kernel count beside it. */
    public boolean kernelMeasured() {
        return clientKernel != null && (serverLibrary == null || serverKernel != null);
    }

    /** Whether the kernel's counts equal the library's, on each side that has both. */
    public boolean kernelAgrees() {
        return kernelMeasured() && (clientLibrary == null || clientLibrary.equals(clientKernel))
                && (serverLibrary == null || serverLibrary.equals(serverKernel));
    }

    private double micros(ThreadCpu cpu) { return cpu == null ? Double.NaN : cpu.cpuNanos() / 1000.0 / calls; }

    /** Every figure by name (per call where it is a count), for JSON and CSV. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cell", cell);
        m.put("payload", payload);
        m.put("round", round);
        m.put("clients", clients);
        m.put("calls", calls);
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
        perCall(m, "client_empty_", clientEmpty);
        perCall(m, "server_empty_", serverEmpty);
        cpu(m, "client_", clientCpu);
        cpu(m, "server_", serverCpu);
        if (!Double.isNaN(serverRssPerConnection)) m.put("server_rss_bytes_per_connection", serverRssPerConnection);
        m.put("cpus", cpus);
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
