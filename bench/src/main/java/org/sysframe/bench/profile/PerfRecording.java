package org.sysframe.bench.profile;

import org.sysframe.unix.Self;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
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
    private OutputStream control;
    private BufferedReader acks;

    private PerfRecording(Process perf, Path file, Path log) {
        this.perf = perf;
        this.file = file;
        this.log = log;
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
        Files.deleteIfExists(file);
        Path log = file.resolveSibling(file.getFileName() + ".log");
        Path ctl = file.resolveSibling(file.getFileName() + ".ctl");
        Path ack = file.resolveSibling(file.getFileName() + ".ack");
        for (Path fifo : List.of(ctl, ack)) {
            Files.deleteIfExists(fifo);
            run(List.of("mkfifo", "-m", "600", fifo.toString()));
        }
        Process p = new ProcessBuilder("perf", "record", "-e", "cpu-clock", "-F", Integer.toString(FREQUENCY), "-C",
                cpus, "-D", "-1", "--control=fifo:" + ctl + "," + ack, "-o", file.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        PerfRecording r = new PerfRecording(p, file, log);
        try {
            // Each open waits for perf to open the other end: bounded, perf may fail before.
            r.control = bounded(() -> Files.newOutputStream(ctl), "perf record opened no control FIFO", r);
            r.acks = bounded(() -> new BufferedReader(new InputStreamReader(Files.newInputStream(ack))),
                    "perf record opened no acknowledgement FIFO", r);
        } catch (IOException e) {
            r.close();
            throw e;
        }
        return r;
    }

    /** Starts recording: returns once perf says its events are enabled. */
    public void enable() throws IOException { command("enable"); }

    /** Stops recording: returns once perf says its events are disabled. */
    public void disable() throws IOException { command("disable"); }

    private void command(String what) throws IOException {
        control.write((what + "\n").getBytes());
        control.flush();
        String got = bounded(acks::readLine, "perf record did not acknowledge '" + what + "'", this);
        // perf writes "ack\n" with its C string's NUL: the next line begins with it
        if (got != null) got = got.replace("\0", "").strip();
        if (!"ack".equals(got)) throw new IOException("perf record answered '" + got + "' to '" + what + "': "
                + logText());
    }

    /** What open gives, waiting for it at most {@value #START_WAIT_MILLIS} ms (perf's end says why it fails). */
    private static <T> T bounded(Callable<T> open, String failure, PerfRecording r) throws IOException {
        CompletableFuture<T> f = CompletableFuture.supplyAsync(() -> {
            try {
                return open.call();
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        });
        try {
            return f.get(START_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            r.close();
            throw new IOException(failure + " within " + START_WAIT_MILLIS + " ms: " + r.logText(), e);
        } catch (ExecutionException e) {
            throw new IOException(failure + ": " + e.getCause().getMessage() + "; " + r.logText(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private static void run(List<String> cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        try {
            if (p.waitFor() != 0) throw new IOException(String.join(" ", cmd) + " failed: " + out);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
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

    private void closeFifos() {
        try {
            if (control != null) control.close();
            if (acks != null) acks.close();
        } catch (IOException e) {
            // perf is ending anyway
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
        List<String> cmd = new ArrayList<>(List.of("perf", "report", "-i", file.toString(), "--stdio", "--no-children",
                "-F", "period,dso,sym", "-t", "|", filter));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        List<String> lines = new String(p.getInputStream().readAllBytes()).lines().toList();
        try {
            int rc = p.waitFor();
            if (rc != 0) throw new IOException("perf report ended with exit " + rc + ": " + String.join(" ", cmd));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        return lines;
    }
}
