package org.sysframe.bench.peer;

import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.KernelCounters;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.measure.ThreadCpu;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.SyscallCounts;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The C client (bench/src/main/c/sysframe_ping.c, built by make with gcc -O2) as a peer: one process
 * per run (or several together, one connection each: {@link #probe(String, ServerSample.Source, int)}),
 * started with {@code -w} so that the kernel counters are attached to it (a single-threaded process:
 * its tid is its pid) after its hello and before its timed loop.
 *
 * <p>Two modes: <b>timed</b> reads the clock around every request for latency percentiles (and, when
 * pipelining, refills a whole batch at a time); <b>lean</b> ({@code -L}, {@link Options#lean}) is the
 * least a C client can do for the workload, the anchor the goals compare against: no clock read per
 * request (its latency figures read 0), frames built once, the slots freed by each receive refilled
 * with one send, a 1 MiB read-ahead.
 *
 * <p>Internal to the bench: public for its other packages, not an API.
 */
public final class CPeer {
    /**
     * How the C client waits for a response ({@code -W}: block, spin, spin:N, yield), the CPU it is
     * pinned to ({@code -c}, -1: not pinned), pipelining ({@code -d} requests in flight, sent
     * {@code -b} at a time) and whether it runs lean ({@code -L}: refilled as answers come, so no
     * batch; block, spin or yield). {@link #DEFAULT} is one blocking timed call at a time, unpinned.
     */
    public record Options(String waitMode, int cpu, int depth, int batch, boolean lean) {
        public static final Options DEFAULT = new Options("block", -1, 1, 1);

        /** The timed mode. */
        public Options(String waitMode, int cpu, int depth, int batch) {
            this(waitMode, cpu, depth, batch, false);
        }

        public Options {
            if (waitMode == null || !waitMode.matches("block|spin|spin:[0-9]+|yield")) throw new IllegalArgumentException("wait mode " + waitMode);
            if (cpu < -1) throw new IllegalArgumentException("cpu " + cpu);
            if (depth < 1 || batch < 1 || batch > depth) throw new IllegalArgumentException("depth " + depth + ", batch " + batch);
            if (lean && waitMode.startsWith("spin:")) throw new IllegalArgumentException("lean mode reads no clock per request: wait " + waitMode);
        }

        /** The lean mode: depth in flight (1: one call at a time), waiting as waitMode says (block, spin, yield). */
        public static Options lean(String waitMode, int cpu, int depth) {
            return new Options(waitMode, cpu, depth, depth, true);
        }

        List<String> args() {
            List<String> a = new ArrayList<>(List.of("-W", waitMode, "-d", Integer.toString(depth)));
            if (lean) a.add("-L");
            else a.addAll(List.of("-b", Integer.toString(batch)));
            if (cpu >= 0) a.addAll(List.of("-c", Integer.toString(cpu)));
            return a;
        }
    }

    private final String name;
    private final String framing;
    private final Options options;

    CPeer(String name, String framing) {
        this(name, framing, Options.DEFAULT);
    }

    public CPeer(String name, String framing, Options options) {
        if (options.depth() > 1 && framing.equals("split")) throw new IllegalArgumentException("split framing is for depth 1 only");
        if (options.lean() && framing.equals("split")) throw new IllegalArgumentException("split framing is not lean");
        this.name = name;
        this.framing = framing;
        this.options = options;
    }

    public String name() { return name; }

    Options options() { return options; }

    public String describe() {
        if (options.lean()) {
            return "C lean, gcc -O2, " + (options.depth() > 1 ? "depth " + options.depth() + ", " : "")
                    + "one send() per refill as answers come, read-ahead 1 MiB, no clock per request (latency not measured)"
                    + (options.waitMode().equals("block") ? "" : ", wait " + options.waitMode())
                    + (options.cpu() < 0 ? "" : ", pinned to cpu " + options.cpu());
        }
        String send = options.depth() > 1 ? "depth " + options.depth() + ", batches of " + options.batch() + " in one send"
                : framing.equals("split") ? "two send()" : "one sendmsg()";
        return "C timed (clock per request, for latency), gcc -O2, " + send + ", read-ahead 8192"
                + (options.waitMode().equals("block") ? "" : ", wait " + options.waitMode())
                + (options.cpu() < 0 ? "" : ", pinned to cpu " + options.cpu());
    }

    /** Whether the C client is built (make builds it; a bare Maven build does not). */
    public static boolean available() {
        return Files.isExecutable(Path.of(System.getProperty("sysframe.cpeer", "bench/target/sysframe_ping")));
    }

    static Path binary() {
        Path p = Path.of(System.getProperty("sysframe.cpeer", "bench/target/sysframe_ping"));
        if (!Files.isExecutable(p)) throw new IllegalStateException(p + " is missing: build it with make (gcc)");
        return p;
    }

    /** A probe that starts this peer against socket for each run; the server side read from server. */
    public Cell.Probe probe(String socket, ServerSample.Source server) {
        return probe(socket, server, 1);
    }

    /**
     * A probe that starts processes copies of this peer together for each run, each on a connection of
     * its own, the calls split evenly between them: the figures are their sum, the wall time from the
     * first one's start to the last one's end (CLOCK_MONOTONIC, as {@link System#nanoTime}), and the
     * latency percentiles the highest of theirs (0 for lean peers, which measure none).
     */
    public Cell.Probe probe(String socket, ServerSample.Source server, int processes) {
        if (processes < 1) throw new IllegalArgumentException("processes " + processes);
        return (cell, calls, round) -> measure(socket, cell, calls, round, server, processes);
    }

    /** The command line of one run of this peer. */
    List<String> command(String socket, long n, int payload) {
        List<String> cmd = new ArrayList<>(List.of(binary().toString(), "-s", socket, "-n", Long.toString(n),
                "-l", Integer.toString(payload), "-w", "-j"));
        if (!options.lean()) cmd.addAll(List.of("-f", framing, "-r", "readahead"));
        cmd.addAll(options.args());
        return cmd;
    }

    /** One started process of a run: its pipes, and the kernel counter attached to it (null when unavailable). */
    private record Started(Process process, BufferedReader out, OutputStream in, KernelSyscallCounter kernel) {}

    private Measurement measure(String socket, Cell cell, long n, int round, ServerSample.Source server, int k) throws IOException {
        List<Started> started = new ArrayList<>(k);
        try {
            for (int i = 0; i < k; i++) {
                Process p = new ProcessBuilder(command(socket, ClientThreadsProbe.share(n, k, i), cell.payload()))
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
                started.add(new Started(p, new BufferedReader(new InputStreamReader(p.getInputStream())), p.getOutputStream(), null));
            }
            for (int i = 0; i < k; i++) {
                Started s = started.get(i);
                String ready = s.out.readLine();
                if (!"ready".equals(ready)) throw new IOException(name + " did not get ready: " + ready);
                started.set(i, new Started(s.process, s.out, s.in, KernelCounters.openOnce((int) s.process.pid(), PeerThread.ALL_KINDS)));
            }
            ServerSample s0 = server.sample();
            List<SyscallCounts> k0 = new ArrayList<>(k);
            for (Started s : started) k0.add(s.kernel == null ? null : s.kernel.read());
            for (Started s : started) {
                s.in.write('\n');
                s.in.flush();
            }
            List<String> jsons = new ArrayList<>(k);
            for (Started s : started) {
                // Text summary lines, then the JSON line, its last; the process then stays connected until its stdin closes.
                String total = s.out.readLine(), json = null;
                for (String line; json == null && (line = s.out.readLine()) != null; ) if (line.startsWith("{")) json = line;
                if (json == null) {
                    Process p = s.process;
                    p.waitFor(10, TimeUnit.SECONDS);
                    throw new IOException(name + " failed (exit " + (p.isAlive() ? "none yet" : p.exitValue()) + "): " + total);
                }
                jsons.add(json);
            }
            SyscallCounts kernel = SyscallCounts.ZERO;
            for (int i = 0; i < k; i++) {
                KernelSyscallCounter c = started.get(i).kernel;
                kernel = kernel == null || c == null || k0.get(i) == null ? null : kernel.plus(c.read().minus(k0.get(i)));
            }
            // The server's side of the run, read while every client is still connected: no EOF in it.
            ServerSample s1 = server.sample();
            for (Started s : started) s.in.close();
            for (Started s : started) {
                Process p = s.process;
                if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
                    throw new IOException(name + " failed (exit " + (p.isAlive() ? "timeout" : p.exitValue()) + ") after its summary");
                }
            }
            ServerSample sd = s0 == null || s1 == null ? null : s1.minus(s0);
            long user = 0, sys = 0, nvcsw = 0, nivcsw = 0, empty = 0, first = Long.MAX_VALUE, last = Long.MIN_VALUE;
            long[] lat = new long[5];
            String[] latKeys = {"p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns"};
            SortedSet<Integer> cpus = new TreeSet<>();
            double seconds = 0;
            for (String json : jsons) {
                user += (long) num(json, "cpu_user_us");
                sys += (long) num(json, "cpu_sys_us");
                nvcsw += (long) num(json, "nvcsw");
                nivcsw += (long) num(json, "nivcsw");
                empty += (long) num(json, "recv_empty");
                for (int j = 0; j < lat.length; j++) lat[j] = Math.max(lat[j], (long) num(json, latKeys[j]));
                cpus.addAll(cpuSet(str(json, "cpus")));
                seconds = num(json, "seconds");
                first = Math.min(first, (long) num(json, "start_ns"));
                last = Math.max(last, (long) num(json, "end_ns"));
            }
            if (k > 1) seconds = (last - first) / 1e9;
            ThreadCpu cpu = new ThreadCpu((user + sys) * 1000, user, sys, nvcsw, nivcsw);
            return new Measurement(cell.name(), cell.payload(), round, k, n, seconds,
                    lat[0], lat[1], lat[2], lat[3], lat[4],
                    null, kernel,
                    sd == null ? null : sd.library(), sd == null ? null : sd.kernel(),
                    cpu, sd == null ? null : sd.cpu(),
                    ClientThreadsProbe.cpus(cpus, sd == null ? null : sd.cpus()),
                    SyscallCounts.builder().recvfrom(empty).build(), sd == null ? null : sd.empty(),
                    null, sd == null ? null : sd.uring());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            for (Started s : started) {
                s.process.destroyForcibly();
                if (s.kernel != null) s.kernel.close();
                try {
                    s.in.close();
                    s.out.close();
                } catch (IOException ignored) {
                    // the process is gone: nothing left to flush
                }
            }
        }
    }

    /** A JSON string value (no escapes: the C client writes none). */
    static String str(String json, String key) throws IOException {
        Matcher m = Pattern.compile("\"" + key + "\":\"([^\"]*)\"").matcher(json);
        if (!m.find()) throw new IOException("no " + key + " in " + json);
        return m.group(1);
    }

    /** The C client's "cpus" ("0,1"; "?" when none was seen) as a set. */
    static SortedSet<Integer> cpuSet(String cpus) {
        SortedSet<Integer> set = new TreeSet<>();
        if (!cpus.equals("?")) for (String c : cpus.split(",")) set.add(Integer.parseInt(c));
        return set;
    }

    static double num(String json, String key) throws IOException {
        Matcher m = Pattern.compile("\"" + key + "\":([-0-9.eE+]+)").matcher(json);
        if (!m.find()) throw new IOException("no " + key + " in " + json);
        return Double.parseDouble(m.group(1));
    }
}
