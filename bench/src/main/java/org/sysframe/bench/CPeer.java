package org.sysframe.bench;

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
 * per run, started with {@code -w} so that the kernel counters are attached to it (a single-threaded
 * process: its tid is its pid) after its hello and before its timed loop.
 */
final class CPeer {
    /**
     * How the C client waits for a response ({@code -W}: block, spin, spin:N, yield), the CPU it is
     * pinned to ({@code -c}, -1: not pinned), and pipelining ({@code -d} requests in flight, sent
     * {@code -b} at a time). {@link #DEFAULT} is one blocking call at a time, unpinned.
     */
    record Options(String waitMode, int cpu, int depth, int batch) {
        static final Options DEFAULT = new Options("block", -1, 1, 1);

        Options {
            if (waitMode == null || !waitMode.matches("block|spin|spin:[0-9]+|yield")) throw new IllegalArgumentException("wait mode " + waitMode);
            if (cpu < -1) throw new IllegalArgumentException("cpu " + cpu);
            if (depth < 1 || batch < 1 || batch > depth) throw new IllegalArgumentException("depth " + depth + ", batch " + batch);
        }

        List<String> args() {
            List<String> a = new ArrayList<>(List.of("-W", waitMode, "-d", Integer.toString(depth), "-b", Integer.toString(batch)));
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

    CPeer(String name, String framing, Options options) {
        if (options.depth() > 1 && framing.equals("split")) throw new IllegalArgumentException("split framing is for depth 1 only");
        this.name = name;
        this.framing = framing;
        this.options = options;
    }

    String name() { return name; }

    String describe() {
        String send = options.depth() > 1 ? "depth " + options.depth() + ", batches of " + options.batch() + " in one send"
                : framing.equals("split") ? "two send()" : "one sendmsg()";
        return "C, gcc -O2, " + send + ", read-ahead 8192"
                + (options.waitMode().equals("block") ? "" : ", wait " + options.waitMode())
                + (options.cpu() < 0 ? "" : ", pinned to cpu " + options.cpu());
    }

    /** Whether the C client is built (make builds it; a bare Maven build does not). */
    static boolean available() {
        return Files.isExecutable(Path.of(System.getProperty("sysframe.cpeer", "bench/target/sysframe_ping")));
    }

    static Path binary() {
        Path p = Path.of(System.getProperty("sysframe.cpeer", "bench/target/sysframe_ping"));
        if (!Files.isExecutable(p)) throw new IllegalStateException(p + " is missing: build it with make (gcc)");
        return p;
    }

    /** A probe that starts this peer against socket for each run; the server side read from server. */
    Cell.Probe probe(String socket, ServerSample.Source server) {
        return (cell, calls, round) -> measure(socket, cell, calls, round, server);
    }

    /** The command line of one run of this peer. */
    List<String> command(String socket, long n, int payload) {
        List<String> cmd = new ArrayList<>(List.of(binary().toString(), "-s", socket, "-n", Long.toString(n),
                "-l", Integer.toString(payload), "-f", framing, "-r", "readahead", "-w", "-j"));
        cmd.addAll(options.args());
        return cmd;
    }

    private Measurement measure(String socket, Cell cell, long n, int round, ServerSample.Source server) throws IOException {
        List<String> cmd = command(socket, n, cell.payload());
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream()));
             OutputStream in = p.getOutputStream()) {
            String ready = out.readLine();
            if (!"ready".equals(ready)) throw new IOException(name + " did not get ready: " + ready);
            int pid = (int) p.pid();
            try (KernelSyscallCounter k = KernelCounters.openOnce(pid, PeerThread.ALL_KINDS)) {
                ServerSample s0 = server.sample();
                SyscallCounts k0 = k == null ? null : k.read();
                in.write('\n');
                in.flush();
                // Text summary lines, then the JSON line.
                String total = out.readLine(), json = null;
                for (String line; (line = out.readLine()) != null; ) if (line.startsWith("{")) json = line;
                if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0 || json == null) {
                    throw new IOException(name + " failed (exit " + (p.isAlive() ? "timeout" : p.exitValue()) + "): " + total);
                }
                SyscallCounts k1 = k == null ? null : k.read(); // the counts of an exited task stay readable
                ServerSample s1 = server.sample();
                ServerSample sd = s0 == null || s1 == null ? null : s1.minus(s0);
                long user = (long) num(json, "cpu_user_us"), sys = (long) num(json, "cpu_sys_us");
                ThreadCpu cpu = new ThreadCpu((user + sys) * 1000, user, sys, (long) num(json, "nvcsw"), (long) num(json, "nivcsw"));
                return new Measurement(cell.name(), cell.payload(), round, 1, n, num(json, "seconds"),
                        (long) num(json, "p50_ns"), (long) num(json, "p90_ns"), (long) num(json, "p99_ns"),
                        (long) num(json, "p999_ns"), (long) num(json, "max_ns"),
                        null, k == null ? null : k1.minus(k0),
                        sd == null ? null : sd.library(), sd == null ? null : sd.kernel(),
                        cpu, sd == null ? null : sd.cpu(),
                        ClientThreadsProbe.cpus(cpuSet(str(json, "cpus")), sd == null ? null : sd.cpus()),
                        SyscallCounts.builder().recvfrom((long) num(json, "recv_empty")).build(), sd == null ? null : sd.empty(),
                        null, sd == null ? null : sd.uring());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            p.destroyForcibly();
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
