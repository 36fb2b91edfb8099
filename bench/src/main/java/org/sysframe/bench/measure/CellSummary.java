package org.sysframe.bench.measure;

import org.sysframe.unix.SyscallKind;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleBiFunction;

/**
 * One cell of a table summarised over its rounds: medians with min-max spreads, ratios against the
 * table's reference cell of the same payload taken round by round over the rounds both ran (both
 * directions), with the 95 % interval of each ({@link Interval}), syscalls per call by kind, and
 * whether the library's counts equalled the kernel's in every round.
 *
 * @param ratioCi          the 95 % interval of the per-round calls/s ratio row/reference
 * @param referenceRatioCi the same of reference/row (the peers table shows this one)
 * @param clientSyscallsFromKernel true when the client keeps no count of its own (a peer): the kernel's
 * @param serverRssPerConnection the server's resident memory per connection in bytes (the scale table; NaN elsewhere)
 */
public record CellSummary(String name, int payload, int rounds, int clients,
                          Spread callsPerSec, Spread ratio, Spread referenceRatio, Spread cpuRatio,
                          Spread clientCpuReferenceRatio, Spread p50Micros, Spread p99Micros,
                          Spread clientCpuMicros, Spread serverCpuMicros,
                          Map<SyscallKind, Double> clientSyscalls, boolean clientSyscallsFromKernel,
                          Map<SyscallKind, Double> serverSyscalls,
                          boolean kernelAgrees, boolean kernelMeasured, String cpus,
                          Map<SyscallKind, Double> clientEmpty, Map<SyscallKind, Double> serverEmpty,
                          Spread clientBusyPercent, Spread serverBusyPercent, Spread clientSwitches,
                                  Spread serverSwitches,
                          String uringMix, Interval ratioCi, Interval referenceRatioCi, Spread serverRssPerConnection) {

    /** Summarises the rounds of one cell against the reference cell's rounds of the same payload. */
    public static CellSummary of(String name, int payload, List<Measurement> runs, List<Measurement> reference) {
        // Pair the rounds both cells ran (a cell given added rounds has more than the others).
        Map<Integer, Measurement> byRound = new HashMap<>();
        for (Measurement m : reference) byRound.put(m.round(), m);
        List<Measurement> own = new ArrayList<>(), ref = new ArrayList<>();
        for (Measurement m : runs) {
            Measurement b = byRound.get(m.round());
            if (b == null) continue;
            own.add(m);
            ref.add(b);
        }
        Spread ratio = Spread.perRound(own, ref, (r, b) -> r.callsPerSecond() / b.callsPerSecond());
        Spread referenceRatio = Spread.perRound(own, ref, (r, b) -> b.callsPerSecond() / r.callsPerSecond());
        Interval ratioCi = Interval.ofRatiosInBatches(perRound(own, ref, (r, b) ->
                r.callsPerSecond() / b.callsPerSecond()));
        Interval referenceRatioCi = Interval.ofRatiosInBatches(perRound(own, ref, (r, b) ->
                b.callsPerSecond() / r.callsPerSecond()));
        boolean measured = runs.stream().allMatch(Measurement::kernelMeasured);
        boolean fromKernel = runs.stream().anyMatch(r -> r.clientLibrary() == null);
        return new CellSummary(name, payload, runs.size(), runs.isEmpty() ? 0 : runs.get(0).clients(),
                Spread.over(runs, Measurement::callsPerSecond),
                ratio, referenceRatio,
                Spread.perRound(own, ref, (r, b) -> r.totalCpuMicrosPerCall() / b.totalCpuMicrosPerCall()),
                Spread.perRound(own, ref, (r, b) -> b.clientCpuMicrosPerCall() / r.clientCpuMicrosPerCall()),
                Spread.over(runs, r -> r.p50Nanos() / 1e3), Spread.over(runs, r -> r.p99Nanos() / 1e3),
                Spread.over(runs, Measurement::clientCpuMicrosPerCall),
                Spread.over(runs, Measurement::serverCpuMicrosPerCall),
                Spread.medianPerCall(runs, fromKernel ? Measurement::clientKernel : Measurement::clientLibrary,
                        Measurement::calls),
                fromKernel,
                Spread.medianPerCall(runs, Measurement::serverLibrary, Measurement::calls),
                measured && runs.stream().allMatch(Measurement::kernelAgrees), measured,
                placement(runs),
                runs.stream().allMatch(r -> r.clientEmpty() != null)
                        ? Spread.medianPerCall(runs, Measurement::clientEmpty, Measurement::calls) : Map.of(),
                runs.stream().allMatch(r -> r.serverEmpty() != null)
                        ? Spread.medianPerCall(runs, Measurement::serverEmpty, Measurement::calls) : Map.of(),
                Spread.over(runs, r -> busy(r.clientCpu(), r)), Spread.over(runs, r -> busy(r.serverCpu(), r)),
                Spread.over(runs, r -> switches(r.clientCpu(), r)), Spread.over(runs, r -> switches(r.serverCpu(), r)),
                uringMix(runs), ratioCi, referenceRatioCi, Spread.over(runs, Measurement::serverRssPerConnection));
    }

    private static double[] perRound(List<Measurement> own, List<Measurement> ref,
                                     ToDoubleBiFunction<Measurement, Measurement> f) {
        double[] v = new double[own.size()];
        for (int i = 0; i < v.length; i++) v[i] = f.applyAsDouble(own.get(i), ref.get(i));
        return v;
    }

    /**
     * What the io_uring sides submitted per call in the last round, e.g. {@code client 1 SEND + 1 RECV;
     * server 1 SEND + 0.998 RECV}; empty when neither side runs on io_uring.
     */
    static String uringMix(List<Measurement> runs) {
        if (runs.isEmpty()) return "";
        Measurement r = runs.get(runs.size() - 1);
        List<String> parts = new ArrayList<>();
        if (r.clientUring() != null) parts.add("client " + r.clientUring().describe(r.calls()));
        if (r.serverUring() != null) parts.add("server " + r.serverUring().describe(r.calls()));
        return String.join("; ", parts);
    }

    /** On-CPU time over the run's wall time, in percent per thread kind (100 % is one whole core). */
    private static double busy(ThreadCpu cpu, Measurement r) {
        return cpu == null ? Double.NaN : 100.0 * cpu.cpuNanos() / (r.seconds() * 1e9);
    }

    /** Voluntary + involuntary context switches per call. */
    private static double switches(ThreadCpu cpu, Measurement r) {
        return cpu == null ? Double.NaN : (double) (cpu.voluntarySwitches() + cpu.involuntarySwitches()) / r.calls();
    }

    /**
     * The trade of a wait mode in one line: the empty calls per call apart from the ones that moved
     * data, each side's CPU busy share and its context switches per call, e.g. {@code empty calls/call:
     * client 5.82 recvfrom, server 12.26 epoll_wait; busy: client 99 %, server 98 %; switches/call: ...}.
     */
    public String tradeLine() {
        return String.format(Locale.ROOT,
                "empty calls/call: client %s, server %s; busy: client %.0f %%, server %.0f %%;"
                        + " context switches/call: client %.2f, server %.2f",
                orNone(describe(clientEmpty)), orNone(describe(serverEmpty)), clientBusyPercent.median(),
                        serverBusyPercent.median(),
                clientSwitches.median(), serverSwitches.median());
    }

    private static String orNone(String s) { return s.isEmpty() ? "none" : s; }

    /** The CPUs the threads were seen on in most rounds, e.g. {@code client cpu 0; server cpu 1 (5/7)}. */
    static String placement(List<Measurement> runs) {
        Map<String, Integer> count = new TreeMap<>();
        for (Measurement r : runs) if (r.cpus() != null) count.merge(r.cpus(), 1, Integer::sum);
        if (count.isEmpty()) return "?";
        Map.Entry<String, Integer> most = null;
        for (Map.Entry<String, Integer> e : count.entrySet()) if (most == null
                || e.getValue() > most.getValue()) most = e;
        return most.getValue() == runs.size() ? most.getKey() : most.getKey() + " (" + most.getValue() + "/"
                + runs.size() + ")";
    }

    /** Client + server on-CPU microseconds per call (median of each). */
    public double cpuMicrosPerCall() {
        return clientCpuMicros.median() + (Double.isNaN(serverCpuMicros.median()) ? 0 : serverCpuMicros.median());
    }

    /** The k=l column: yes when the kernel's counts equalled the library's in every round, else NO; n/a without. */
    public String kernelColumn() {
        return !kernelMeasured ? "n/a" : kernelAgrees ? "yes" : "NO";
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
            sb.append(count(v)).append(' ').append(e.getKey().kernelName());
        }
        return sb.isEmpty() ? "0" : sb.toString();
    }

    /** A count per call as {@link #describe} writes it: {@code 1}, {@code 0.25}, {@code 1.0003}. */
    public static String count(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v)
                : Math.abs(v - Math.rint(v)) < 0.005 ? String.format(Locale.ROOT, "%.4f", v)
                : String.format(Locale.ROOT, "%.2f", v);
    }

    /** Every figure by name; rowKind names the first column ({@code pairing}, {@code peer}...). */
    public Map<String, Object> toMap(String rowKind, String reference) {
        Map<String, Object> m = new LinkedHashMap<>();
        reference = reference.replaceAll("[^A-Za-z0-9_-]", "_");
        m.put(rowKind, name);
        m.put("payload", payload);
        m.put("rounds", rounds);
        spread(m, "calls_per_sec", callsPerSec);
        spread(m, "ratio_vs_" + reference, ratio);
        interval(m, "ratio_vs_" + reference, ratioCi);
        spread(m, "cpu_ratio_vs_" + reference, cpuRatio);
        spread(m, reference + "_over_" + rowKind + "_calls", referenceRatio);
        interval(m, reference + "_over_" + rowKind + "_calls", referenceRatioCi);
        spread(m, reference + "_over_" + rowKind + "_client_cpu", clientCpuReferenceRatio);
        spread(m, "p50_us", p50Micros);
        spread(m, "p99_us", p99Micros);
        spread(m, "client_cpu_us_per_call", clientCpuMicros);
        spread(m, "server_cpu_us_per_call", serverCpuMicros);
        String client = clientSyscallsFromKernel ? "client_kernel_" : "client_";
        for (SyscallKind k : SyscallKind.values()) m.put(client + k.kernelName() + "_per_call", clientSyscalls.get(k));
        for (SyscallKind k : SyscallKind.values()) m.put("server_" + k.kernelName() + "_per_call",
                serverSyscalls.get(k));
        if (!uringMix.isEmpty()) m.put("io_uring_sqes_per_call", uringMix);
        m.put("kernel_counts_measured", kernelMeasured);
        m.put("library_equals_kernel", kernelAgrees);
        if (!Double.isNaN(serverRssPerConnection.median())) spread(m, "server_rss_bytes_per_connection",
                serverRssPerConnection);
        m.put("clients", clients);
        m.put("cpus", cpus);
        return m;
    }

    /** Puts NAME_estimate, NAME_ci_lo and NAME_ci_hi (the 95 % interval) of ci into m. */
    static void interval(Map<String, Object> m, String name, Interval ci) {
        m.put(name + "_estimate", ci.estimate());
        m.put(name + "_ci_lo", ci.lo());
        m.put(name + "_ci_hi", ci.hi());
    }

    /** Puts NAME_median, NAME_min and NAME_max of s into m. */
    public static void spread(Map<String, Object> m, String name, Spread s) {
        m.put(name + "_median", s.median());
        m.put(name + "_min", s.min());
        m.put(name + "_max", s.max());
    }
}
