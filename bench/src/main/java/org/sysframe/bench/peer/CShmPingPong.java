package org.sysframe.bench.peer;

import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.KernelCounters;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.ThreadCpu;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The C shared-memory ping-pong ({@code bench/target/shm_pingpong}, built by the Makefile) as a cell:
 * two processes, each pinned to its CPU, passing the payload through one shared page, both spinning;
 * no syscall per round trip. The physical limit of a call between two processes on this machine.
 * Every run starts the program in its bench mode ({@code -b}): it warms up, says ready, and on a line
 * from stdin times every round trip (a clock read per call, as the bench's own clients) and prints
 * its figures; the kernel's counts of the library's kinds are read on both processes around the run.
 */
public final class CShmPingPong implements Cell.Probe {
    private static final Pattern READY = Pattern.compile("ready client_pid=(\\d+) server_pid=(\\d+)");

    private final Path program;
    private final int clientCpu, serverCpu;
    private Watch watch;

    /** Told of a run's processes once they are ready, and again once their timed calls are done. */
    public interface Watch {
        /** The processes are warm and wait for their go (their pids). */
        void ready(long clientPid, long serverPid) throws IOException;

        /** Their timed calls are done (the summary is in). */
        void done() throws IOException;
    }

    /** From now on, every run tells watch (null: none). */
    public void watch(Watch w) { watch = w; }

    /** The built program ({@link #program()}), its processes pinned to clientCpu and serverCpu. */
    public CShmPingPong(int clientCpu, int serverCpu) { this(program(), clientCpu, serverCpu); }

    /** The program at program, its processes pinned to clientCpu and serverCpu. */
    public CShmPingPong(Path program, int clientCpu, int serverCpu) {
        this.program = program;
        this.clientCpu = clientCpu;
        this.serverCpu = serverCpu;
    }

    /** The program: beside the C client ({@code sysframe.cpeer}), in bench/target. */
    public static Path program() {
        return Path.of(System.getProperty("sysframe.cpeer", "bench/target/sysframe_ping"))
                .resolveSibling("shm_pingpong");
    }

    /** Whether the program is built. */
    public static boolean available() { return Files.isExecutable(program()); }

    /** What the row is, for the settings line. */
    public String describe() {
        return "C shared-memory ping-pong, gcc -O2: two processes, one shared page, both spinning, client on CPU "
                + clientCpu
                + ", server on CPU " + serverCpu + ", a clock read per call";
    }

    @Override
    public Measurement measure(Cell cell, long calls, int round) throws IOException {
        Process p = new ProcessBuilder(program.toString(), "-b", "-n", Long.toString(calls), "-l",
                Integer.toString(cell.payload()), "-c", Integer.toString(clientCpu), "-s", Integer.toString(serverCpu))
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        KernelSyscallCounter ck = null, sk = null;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream())); OutputStream in =
                p.getOutputStream()) {
            String ready = out.readLine();
            Matcher m = ready == null ? null : READY.matcher(ready);
            if (m == null || !m.matches()) throw new IOException("shm_pingpong did not get ready: " + ready);
            ck = KernelCounters.openOnce(Integer.parseInt(m.group(1)), SyscallKind.LIBRARY);
            sk = ck == null ? null : KernelCounters.openOnce(Integer.parseInt(m.group(2)), SyscallKind.LIBRARY);
            SyscallCounts c0 = ck == null ? null : ck.read(), s0 = sk == null ? null : sk.read();
            if (watch != null) watch.ready(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)));
            in.write('\n');
            in.flush();
            String json = out.readLine();
            if (watch != null) watch.done();
            if (json == null || !json.startsWith("{")) throw new IOException("shm_pingpong failed: " + json);
            // Both processes are past their timed calls once the line is out (the server exited before it).
            SyscallCounts client = ck == null ? null : ck.read().minus(c0), server = sk == null ? null
                    : sk.read().minus(s0);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("shm_pingpong failed (exit " + (p.isAlive() ? "timeout" : p.exitValue())
                        + ") after its summary");
            }
            return new Measurement(cell.name(), cell.payload(), round, 1, calls, CPeer.num(json, "seconds"),
                    (long) CPeer.num(json, "p50_ns"), (long) CPeer.num(json, "p90_ns"),
                    (long) CPeer.num(json, "p99_ns"),
                    (long) CPeer.num(json, "p999_ns"), (long) CPeer.num(json, "max_ns"),
                    null, client, null, server, cpu(json, ""), cpu(json, "server_"),
                    "client cpu " + clientCpu + "; server cpu " + serverCpu);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            if (ck != null) ck.close();
            if (sk != null) sk.close();
            p.destroyForcibly();
        }
    }

    private static ThreadCpu cpu(String json, String prefix) throws IOException {
        long user = (long) CPeer.num(json, prefix + "cpu_user_us"), sys = (long) CPeer.num(json, prefix + "cpu_sys_us");
        return new ThreadCpu((user + sys) * 1000, user, sys, (long) CPeer.num(json, prefix + "nvcsw"),
                (long) CPeer.num(json, prefix + "nivcsw"));
    }
}
