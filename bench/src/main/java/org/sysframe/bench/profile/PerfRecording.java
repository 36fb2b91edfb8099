package org.sysframe.bench.profile;

import org.sysframe.unix.Self;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import javax.management.JMException;
import javax.management.ObjectName;

/**
 * One {@code perf record} of a CPU, sampled on the CPU clock ({@code -e cpu-clock}: a sample's period is
 * nanoseconds, on a machine with hardware counters or without), between {@link #enable} and {@link #disable}.
 *
 * <p>Why a CPU and not a thread: on this project's guests a per-task sampling event ({@code -t TID},
 * {@code -p PID}) records no sample at all, while a CPU-wide one does; the client measured is pinned to
 * that CPU, and {@link PerfProfile#read} keeps its samples only (by thread or process id).
 */
public final class PerfRecording implements AutoCloseable {
    /** Samples per second: a sample every 200 us of the CPU's time. */
    static final int FREQUENCY = 4999;
    private static final long START_WAIT_MILLIS = 10_000;
    private static final long STOP_WAIT_SECONDS = 60;

    private final Process perf;
    private final Path file;
    private final Path log;
    private RandomAccessFile control; // perf's control FIFO: "enable", "disable"
    private RandomAccessFile acks;    // perf's acknowledgement FIFO: "ack" to each

    private PerfRecording(Process perf, Path file, Path log, RandomAccessFile control, RandomAccessFile acks) {
        this.perf = perf;
        this.file = file;
        this.log = log;
        this.control = control;
        this.acks = acks;
    }

    /**
     * Why perf cannot record here, or null when it can: it is not on the PATH, or this process may not
     * record a whole CPU (not root, and {@code kernel.perf_event_paranoid} above 0).
     */
    public static String unavailable() {
        try {
            Process p = new ProcessBuilder("perf", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            if (p.waitFor() != 0) return "perf --version failed (exit " + p.exitValue() + ")";
        } catch (IOException e) {
            return "perf is not on the PATH (the linux perf tools)";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
        if (Self.uid() == 0) return null;
        try {
            int paranoid = Integer.parseInt(Files.readString(Path.of("/proc/sys/kernel/perf_event_paranoid")).trim());
            return paranoid <= 0 ? null : "kernel.perf_event_paranoid is " + paranoid
                    + ": recording a whole CPU takes root or a setting of 0";
        } catch (IOException | NumberFormatException e) {
            return "cannot read /proc/sys/kernel/perf_event_paranoid: " + e.getMessage();
        }
    }

    /**
     * Starts perf on cpus (e.g. {@code 1}, {@code 0,1}) into file, its events disabled until {@link #enable}:
     * perf is told by a control FIFO ({@code --control}) and says it did on an acknowledgement FIFO, so that what
     * it records is known to begin after enable returns and end before disable returns (perf takes a while to open
     * its events, longer with a JVM's many mappings to read first).
     */
    public static PerfRecording start(String cpus, Path file) throws IOException {
        return start(List.of("-e", "cpu-clock", "-F", Integer.toString(FREQUENCY)), cpus, file);
    }

    /**
     * As {@link #start}, recording syscalls on cpus instead of samples (for {@link Turnaround}): the entries of the
     * socket sends ({@code writev}, {@code sendto}, {@code sendmsg}) and the exits of the receives ({@code readv},
     * {@code recvfrom}, {@code recvmsg}) that brought bytes, x86-64's numbers, filtered in the kernel (a spinning
     * client's empty receives are not written, nor perf's own writes of its file), in buffers of 4 MiB a CPU.
     */
    public static PerfRecording syscalls(String cpus, Path file) throws IOException {
        return start(List.of("-e", "raw_syscalls:sys_enter", "--filter", Turnaround.idIn(Turnaround.SENDS),
                "-e", "raw_syscalls:sys_exit", "--filter", "(" + Turnaround.idIn(Turnaround.RECEIVES) + ") && ret > 0",
                "-m", "1024"), cpus, file);
    }

    private static PerfRecording start(List<String> events, String cpus, Path file) throws IOException {
        Files.deleteIfExists(file);
        Path log = file.resolveSibling(file.getFileName() + ".log");
        Path ctl = file.resolveSibling(file.getFileName() + ".ctl");
        Path ack = file.resolveSibling(file.getFileName() + ".ack");
        // Both FIFOs open read-write here, before perf opens its ends: an open for read-write never waits for the
        // other end, and perf's opens find this one there. A read of an acknowledgement that never comes is let go
        // by close (a line written into that FIFO from here).
        RandomAccessFile[] fifos = new RandomAccessFile[2];
        List<Path> paths = List.of(ctl, ack);
        Process p;
        try {
            for (int i = 0; i < 2; i++) {
                Files.deleteIfExists(paths.get(i));
                output(List.of("mkfifo", "-m", "600", paths.get(i).toString()), true);
                fifos[i] = new RandomAccessFile(paths.get(i).toFile(), "rw");
            }
            List<String> cmd = new ArrayList<>(List.of("perf", "record"));
            cmd.addAll(events);
            cmd.addAll(List.of("-C", cpus, "-D", "-1", "--control=fifo:" + ctl + "," + ack, "-o", file.toString()));
            p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        } catch (IOException e) {
            for (RandomAccessFile f : fifos) if (f != null) f.close();
            throw e;
        }
        return new PerfRecording(p, file, log, fifos[0], fifos[1]);
    }

    /** Starts recording: returns once perf says its events are enabled. */
    public void enable() throws IOException { command("enable"); }

    /** Stops recording: returns once perf says its events are disabled. */
    public void disable() throws IOException { command("disable"); }

    private void command(String what) throws IOException {
        control.write((what + "\n").getBytes());
        String got = bounded(acks::readLine, "perf record did not acknowledge '" + what + "'", this);
        // perf writes "ack\n" with its C string's NUL: the next line begins with it
        if (got != null) got = got.replace("\0", "").strip();
        if (!"ack".equals(got)) throw new IOException("perf record answered '" + got + "' to '" + what + "': "
                + logText());
    }

    /**
     * What read gives, waiting for it at most {@value #START_WAIT_MILLIS} ms, or until perf ended (its output says
     * why); either way perf is stopped and the read let go.
     */
    private static <T> T bounded(Callable<T> read, String failure, PerfRecording r) throws IOException {
        CompletableFuture<T> f = CompletableFuture.supplyAsync(() -> {
            try {
                return read.call();
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        });
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_WAIT_MILLIS);
        try {
            while (true) {
                try {
                    return f.get(50, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    boolean ended = !r.perf.isAlive();
                    if (!ended && System.nanoTime() - end < 0) continue;
                    r.close();
                    throw new IOException(failure + (ended ? ": perf record ended (exit " + r.perf.exitValue() + ")"
                            : " within " + START_WAIT_MILLIS + " ms") + ": " + r.logText(), e);
                }
            }
        } catch (ExecutionException e) {
            r.close();
            throw new IOException(failure + ": " + e.getCause().getMessage() + "; " + r.logText(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            r.close();
            throw new IOException("interrupted", e);
        }
    }

    /** What cmd printed on stdout (its stderr with it, when withErrors); IOException when it exits other than 0. */
    private static String output(List<String> cmd, boolean withErrors) throws IOException {
        ProcessBuilder b = new ProcessBuilder(cmd);
        if (withErrors) b.redirectErrorStream(true);
        else b.redirectError(ProcessBuilder.Redirect.DISCARD);
        Process p = b.start();
        String out = new String(p.getInputStream().readAllBytes());
        try {
            int rc = p.waitFor();
            if (rc != 0) throw new IOException(String.join(" ", cmd) + " ended with exit " + rc
                    + (out.isBlank() ? "" : ": " + out.strip()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        return out;
    }

    /** Stops perf (SIGTERM: it writes its file and ends) and returns the file. */
    public Path stop() throws IOException {
        closeFifos();
        perf.destroy();
        try {
            if (!perf.waitFor(STOP_WAIT_SECONDS, TimeUnit.SECONDS)) {
                perf.destroyForcibly();
                throw new IOException("perf record did not end within " + STOP_WAIT_SECONDS + " s of SIGTERM");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        if (!logText().contains("Captured and wrote")) throw new IOException("perf record wrote no data: " + logText());
        return file;
    }

    /** Closes this side's FIFOs, a line written into the acknowledgement one first (a read waiting on it returns). */
    private void closeFifos() {
        try {
            if (acks != null) acks.write('\n');
        } catch (IOException e) {
            // closed below anyway
        }
        for (RandomAccessFile f : new RandomAccessFile[] {control, acks}) {
            try {
                if (f != null) f.close();
            } catch (IOException e) {
                // nothing left to do with it
            }
        }
        control = null;
        acks = null;
    }

    private String logText() {
        try {
            return Files.exists(log) ? Files.readString(log).strip() : "";
        } catch (IOException e) {
            return "(its output unreadable: " + e.getMessage() + ")";
        }
    }

    /** Ends perf if it still runs, and removes its FIFOs. */
    @Override
    public void close() {
        closeFifos();
        if (perf.isAlive()) perf.destroyForcibly();
        try {
            Files.deleteIfExists(file.resolveSibling(file.getFileName() + ".ctl"));
            Files.deleteIfExists(file.resolveSibling(file.getFileName() + ".ack"));
        } catch (IOException e) {
            // in a temp dir the command removes
        }
    }

    /**
     * Writes this JVM's map of its compiled code ({@code /tmp/perf-PID.map}, the JDK's {@code Compiler.perfmap}),
     * by which {@code perf report} names the Java methods a sample fell in: code compiled and still in place now.
     */
    public static void writeJitMap() throws IOException {
        try {
            ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerPerfmap",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
        } catch (JMException e) {
            throw new IOException("cannot write the JIT's map (Compiler.perfmap): " + e.getMessage(), e);
        }
    }

    /**
     * The lines of {@code perf report} of file, one per symbol, of the samples filter keeps ({@code --tid=T[,T]} or
     * {@code --pid=P[,P]}), each {@code period|dso|symbol} with the period in ns of CPU time.
     */
    static List<String> report(Path file, String filter) throws IOException {
        return output(List.of("perf", "report", "-i", file.toString(), "--stdio", "--no-children", "-F",
                "period,dso,sym", "-t", "|", filter), false).lines().toList();
    }

    /**
     * The lines of {@code perf script} of a {@link #syscalls} recording, of the threads filter keeps: each event's
     * thread, time in ns and syscall, and a line with {@code LOST} where perf lost events.
     */
    static List<String> script(Path file, String filter) throws IOException {
        return output(List.of("perf", "script", "-i", file.toString(), "--ns", "-F", "tid,time,event,trace",
                "--show-lost-events", filter), false).lines().toList();
    }
}
