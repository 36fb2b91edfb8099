package org.sysframe.bench;

import org.sysframe.transport.GroutServer;
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

    PeerRun measure(String socket, int len, long n, GroutServer server) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(binary().toString(), "-s", socket, "-n", Long.toString(n),
                "-l", Integer.toString(len), "-f", framing, "-r", "readahead", "-w", "-j"));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream()));
             OutputStream in = p.getOutputStream()) {
            String ready = out.readLine();
            if (!"ready".equals(ready)) throw new IOException(name + " did not get ready: " + ready);
            int pid = (int) p.pid();
            try (KernelSyscallCounter k = KernelCounters.openOnce(pid, PeerThread.ALL_KINDS)) {
                ServerSample s0 = ServerSample.take(server);
                SyscallCounts k0 = k == null ? null : k.read();
                in.write('\n');
                in.flush();
                String total = out.readLine();
                String json = out.readLine();
                if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0 || json == null) {
                    throw new IOException(name + " failed (exit " + (p.isAlive() ? "timeout" : p.exitValue()) + "): " + total);
                }
                SyscallCounts k1 = k == null ? null : k.read(); // the counts of an exited task stay readable
                ServerSample sd = ServerSample.take(server).minus(s0);
                return new PeerRun(name, len, n, num(json, "seconds"), num(json, "p50_ns") / 1e3, num(json, "p99_ns") / 1e3,
                        num(json, "cpu_user_us") + num(json, "cpu_sys_us"), sd.cpu().cpuNanos() / 1e3,
                        k == null ? null : k1.minus(k0), sd.library(), sd.kernel());
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
