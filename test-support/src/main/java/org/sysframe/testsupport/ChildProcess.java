package org.sysframe.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** A child process with its merged stdout and stderr read line by line on a daemon thread, and a stdin for commands. */
public final class ChildProcess implements AutoCloseable {
    public final Process process;
    /** Every line the child printed so far. */
    public final List<String> output = new CopyOnWriteArrayList<>();
    private final LinkedBlockingQueue<String> fresh = new LinkedBlockingQueue<>();
    private final Thread reader;
    private final OutputStream stdin;

    public ChildProcess(List<String> command) throws IOException {
        process = new ProcessBuilder(command).redirectErrorStream(true).start();
        stdin = process.getOutputStream();
        reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    output.add(line);
                    fresh.add(line);
                }
            } catch (IOException e) {
                output.add("(reading the child's output failed: " + e + ")");
            }
        }, "child-output-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /** The command line of a child JVM running mainClass on this JVM's class path, with args. */
    public static List<String> javaCommand(Class<?> mainClass, String... args) {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Xmx64m", "-cp", System.getProperty("java.class.path"), mainClass.getName()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    public int pid() { return (int) process.pid(); }

    /**
     * What a child JVM that hangs is doing, for a failure's message: {@code jcmd}'s heap summary and thread dump
     * (carriers show the virtual thread they carry), or why they could not be taken. Waits at most 20 s.
     */
    public String diagnose() {
        StringBuilder out = new StringBuilder();
        for (String command : new String[] {"GC.heap_info", "Thread.print"}) {
            out.append("\n--- jcmd ").append(pid()).append(' ').append(command).append('\n');
            try {
                // Into a file, read once jcmd ended or was stopped: a jcmd that cannot attach does not hold the test.
                Path file = Files.createTempFile("jcmd-", ".txt");
                try {
                    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                            String.valueOf(pid()), command).redirectErrorStream(true)
                            .redirectOutput(file.toFile()).start();
                    if (!p.waitFor(20, TimeUnit.SECONDS)) {
                        p.destroyForcibly();
                        out.append("(jcmd took over 20 s: stopped)\n");
                    }
                    out.append(Files.readString(file));
                } finally {
                    Files.deleteIfExists(file);
                }
            } catch (IOException | InterruptedException e) {
                out.append("(jcmd failed: ").append(e).append(')');
            }
        }
        return out.toString();
    }

    /** The next output line that matches (earlier lines are skipped); fails if the child ends first. */
    public String awaitLine(Predicate<String> what) throws InterruptedException {
        while (true) {
            String line = fresh.poll(100, TimeUnit.MILLISECONDS);
            if (line != null) {
                if (what.test(line)) return line;
            } else if (!process.isAlive() && !reader.isAlive() && fresh.isEmpty()) {
                throw new AssertionError("child " + pid() + " ended (exit " + process.exitValue()
                        + ") before the expected line:\n" + String.join("\n", output));
            }
        }
    }

    /** How many lines printed so far match. */
    public long count(Predicate<String> what) {
        return output.stream().filter(what).count();
    }

    /** Writes one line to the child's stdin. */
    public void command(String line) throws IOException {
        stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        stdin.flush();
    }

    /** Kills the process (if alive), reaps it and closes the three pipes. */
    @Override
    public void close() throws Exception {
        process.destroyForcibly();
        process.waitFor();
        reader.join(10_000);
        stdin.close();
        process.getInputStream().close();
        process.getErrorStream().close();
    }
}
