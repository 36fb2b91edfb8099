package org.sysframe.bench.peer;

import org.sysframe.bench.measure.KernelCounters;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.measure.ThreadCpu;
import org.sysframe.transport.Backend;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.ThreadSyscall;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * A server in a process of its own, driven by lines on its stdin: the lean C server
 * (bench/src/main/c/sysframe_serve.c, {@link #c}) or sysframe's server in a child JVM ({@link ServerFork},
 * {@link #java}). Each says {@code ready PID} once listening and answers {@code stats} with one JSON line;
 * {@link #stats()} makes of it what the bench reads of a server: a {@link ServerSample} (library counts,
 * kernel counts, CPU, the CPUs it ran on) and the process's resident memory.
 *
 * <p>How each is read: the C server counts its serving syscalls itself (recv as {@code recvfrom}, writev,
 * epoll_wait; its accept4 calls are counted apart and come before any run here), and the parent reads
 * the kernel's count of its one thread once it is parked in epoll_wait again after answering, with its
 * CPU ({@code /proc/PID/task}, every thread: it has one). Its loop is what reads the command, so every
 * {@code stats} costs it one epoll_wait: that wake is taken out of both counts, so that a run's counts are
 * its requests' alone. The child JVM samples itself ({@code ServerSample} over its loops, waiting until
 * each is parked, as for an embedded server), its command read by its main thread, not by a loop. The
 * resident memory of both is read by the parent, {@code VmRSS} of {@code /proc/PID/status}.
 */
public final class ServerProcess implements AutoCloseable {
    /** How long a line of the server may take (its start included). */
    static final long ANSWER_SECONDS = 120;

    private final Process process;
    private final BufferedReader out;
    private final Writer in;
    private final long pid;
    private final String describe;
    private final boolean c;
    private final KernelSyscallCounter kernel;
    private long statsCommands;

    private ServerProcess(List<String> command, String describe, boolean c) throws IOException {
        this.process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        this.describe = describe;
        this.c = c;
        long found;
        try {
            String ready = line();
            if (!ready.matches("ready [1-9][0-9]*")) throw new IOException(describe + " did not start: " + ready);
            found = Long.parseLong(ready.substring("ready ".length()));
        } catch (IOException | RuntimeException e) {
            process.destroyForcibly();
            throw e;
        }
        this.pid = found;
        this.kernel = c ? KernelCounters.openOnce((int) pid, SyscallKind.LIBRARY) : null;
    }

    /** Whether the C server is built (make builds it beside the C client). */
    public static boolean cAvailable() { return Files.isExecutable(cBinary()); }

    /** bench/target/sysframe_serve, or -Dsysframe.cserve; by default beside the C client's binary. */
    static Path cBinary() {
        String p = System.getProperty("sysframe.cserve");
        if (p != null && !p.isEmpty()) return Path.of(p);
        Path client = Path.of(System.getProperty("sysframe.cpeer", "bench/target/sysframe_ping"));
        return client.resolveSibling("sysframe_serve");
    }

    /** The C server on socket: one thread, one level-triggered epoll loop. */
    public static ServerProcess c(String socket) throws IOException {
        Path bin = cBinary();
        if (!Files.isExecutable(bin)) throw new IllegalStateException(bin + " is missing: build it with make (gcc)");
        return new ServerProcess(List.of(bin.toString(), "-s", socket), C_DESCRIPTION, true);
    }

    /** What a C server row says of its server. */
    public static final String C_DESCRIPTION =
            "the C server (sysframe_serve, gcc -O2: one thread, one level-triggered epoll loop,"
            + " one recv per readiness, a connection's answers of a turn in one writev, no buffer while idle)";

    /**
     * sysframe's server with the library's defaults, on backend with loops event loops, in a child JVM
     * started as {@code ./sysframe serve} starts one: serial GC, a heap of {@code SYSFRAME_SERVE_HEAP}
     * (default 256m).
     */
    public static ServerProcess java(String socket, Backend backend, int loops) throws IOException {
        String heap = System.getenv().getOrDefault("SYSFRAME_SERVE_HEAP", "256m");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC",
                "-Xmx" + heap,
                "-Djava.awt.headless=true", "-cp", System.getProperty("java.class.path"), ServerFork.class.getName(),
                socket, backend.toString(), Integer.toString(loops)));
        return new ServerProcess(cmd, "sysframe's server in a child JVM (" + backend + ", " + loops
                + (loops == 1 ? " loop" : " loops")
                + ", the library's defaults; -XX:+UseSerialGC -Xmx" + heap + ", as ./sysframe serve)", false);
    }

    public long pid() { return pid; }

    public String describe() { return describe; }

    /** One {@code stats}: the server's sample, its open connections and its resident memory. */
    public record Stats(long open, long rssKb, ServerSample sample) {}

    /** The server now; for the C server, once its loop is parked again after answering. */
    public synchronized Stats stats() throws IOException {
        String json = command("stats");
        long open = (long) CPeer.num(json, "open");
        if (c) {
            statsCommands++;
            // Its count and the kernel's agree once it sleeps in epoll_wait again: the kernel counts a
            // call as it enters, the server before it enters.
            ThreadSyscall.awaitParked(pid, (int) pid, Duration.ofSeconds(10));
            long waits = (long) CPeer.num(json, "epoll_waits") - statsCommands;
            SyscallCounts library = SyscallCounts.builder().recvfrom((long) CPeer.num(json, "reads"))
                    .writev((long) CPeer.num(json, "writes")).epollWait(waits).build();
            SyscallCounts k = null;
            if (kernel != null) {
                SyscallCounts raw = kernel.read();
                k = raw.minus(SyscallCounts.builder().epollWait(statsCommands).build());
            }
            SortedSet<Integer> cpus = new TreeSet<>();
            int last = lastCpu(pid);
            if (last >= 0) cpus.add(last);
            return new Stats(open, rssKb(pid), new ServerSample(library, k, ThreadCpu.ofProcess(pid), cpus, null,
                    null));
        }
        SortedSet<Integer> cpus = CPeer.cpuSet(CPeer.str(json, "cpus"));
        ThreadCpu cpu = new ThreadCpu((long) CPeer.num(json, "cpu_ns"), (long) CPeer.num(json, "cpu_user_us"),
                (long) CPeer.num(json, "cpu_sys_us"), (long) CPeer.num(json, "nvcsw"),
                (long) CPeer.num(json, "nivcsw"));
        return new Stats(open, rssKb(pid), new ServerSample(counts(CPeer.str(json, "library")),
                counts(CPeer.str(json, "kernel")), cpu, cpus, counts(CPeer.str(json, "empty")), null));
    }

    /** A source of samples for the probes (every sample is a {@code stats} command). */
    public ServerSample.Source source() { return () -> stats().sample(); }

    /**
     * The requests the server answered since it started, on every connection it had: the C server's own
     * count; for the child JVM, read on its loops (this wakes them: not inside a measured run).
     */
    public synchronized long requests() throws IOException {
        if (c) {
            String json = command("stats");
            statsCommands++;
            return (long) CPeer.num(json, "requests");
        }
        return (long) CPeer.num(command("requests"), "requests");
    }

    /** Waits until the server has n connections open, at most timeout; the count it saw last. */
    public long awaitOpen(long n, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long open;
        while ((open = stats().open()) != n) {
            if (System.nanoTime() > deadline) {
                throw new IOException(describe + ": " + open + " connections open after " + timeout + ", not " + n);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
        return open;
    }

    private String command(String c) throws IOException {
        try {
            in.write(c + "\n");
            in.flush();
        } catch (IOException e) {
            throw new IOException(describe + " (pid " + pid + ") took no command: " + ChildLines.exitOf(process), e);
        }
        String line = line();
        if (line.startsWith("error")) throw new IOException(describe + ": " + c + ": " + line);
        return line;
    }

    private String line() throws IOException {
        String line = ChildLines.next(out, process, ANSWER_SECONDS, describe);
        if (line == null) throw new IOException(describe + " ended: " + ChildLines.exitOf(process));
        return line;
    }

    /** Counts in {@link SyscallKind} order, comma-separated ({@code -}: none), as {@link ServerFork} writes them. */
    static SyscallCounts counts(String field) throws IOException {
        if (field.equals("-")) return null;
        String[] v = field.split(",");
        if (v.length != SyscallKind.values().length) throw new IOException("counts of " + v.length + " kinds, not "
                + SyscallKind.values().length + ": " + field);
        SyscallCounts.Builder b = SyscallCounts.builder();
        for (SyscallKind k : SyscallKind.values()) b.count(k, Long.parseLong(v[k.ordinal()]));
        return b.build();
    }

    /** The resident memory of process pid in KiB ({@code VmRSS}). */
    public static long rssKb(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) return Long.parseLong(line.substring(6).trim().split("\\s+")[0]);
        }
        throw new IOException("no VmRSS in /proc/" + pid + "/status");
    }

    /** The CPU process pid's main thread last ran on (field 39 of its stat), -1 when unreadable. */
    static int lastCpu(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            return Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[36]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }


    /** quit (stdin closed), waiting a few seconds before killing it; its kernel counter closed. */
    @Override
    public void close() {
        try {
            in.write("quit\n");
            in.flush();
        } catch (IOException ignored) {
            // gone already
        }
        ChildLines.end(process, in, out, kernel, 10);
    }

    @Override
    public String toString() { return describe + " (pid " + pid + ")"; }
}
