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
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The C client (bench/src/main/c/sysframe_ping.c, built by make with gcc -O2) as a peer: one process
 * per run, started with {@code -w} so that the kernel counters are attached to it (a single-threaded
 * process: its tid is its pid) after its hello and before its timed loop.
 */
final class CPeer {
    private final String name;
    private final String framing;

    CPeer(String name, String framing) {
        this.name = name;
        this.framing = framing;
    }

    String name() { return name; }

    String describe() { return "C, gcc -O2, " + (framing.equals("split") ? "two send()" : "one sendmsg()") + ", read-ahead 8192"; }

    static Path binary() {
        Path p = Path.of(System.getProperty("sysframe.cpeer", "bench/target/sysframe_ping"));
        if (!Files.isExecutable(p)) throw new IllegalStateException(p + " is missing: build it with make (gcc)");
        return p;
    }

    /** A probe that starts this peer against socket for each run; the server side read from server. */
    Cell.Probe probe(String socket, ServerSample.Source server) {
        return (cell, calls, round) -> measure(socket, cell, calls, round, server);
    }

    private Measurement measure(String socket, Cell cell, long n, int round, ServerSample.Source server) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(binary().toString(), "-s", socket, "-n", Long.toString(n),
                "-l", Integer.toString(cell.payload()), "-f", framing, "-r", "readahead", "-w", "-j"));
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
                String total = out.readLine();
                String json = out.readLine();
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
                        ClientThreadsProbe.cpus(new java.util.TreeSet<>(), sd == null ? null : sd.cpus()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            p.destroyForcibly();
        }
    }

    private static double num(String json, String key) throws IOException {
        Matcher m = Pattern.compile("\"" + key + "\":([-0-9.eE+]+)").matcher(json);
        if (!m.find()) throw new IOException("no " + key + " in " + json);
        return Double.parseDouble(m.group(1));
    }
}
