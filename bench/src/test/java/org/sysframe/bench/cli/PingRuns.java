package org.sysframe.bench.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Runs {@code ping} in this JVM as the command line would (arguments parsed by picocli), capturing what it prints. */
final class PingRuns {
    private PingRuns() {}

    /** A run: the command (for its hooks), its one error line (null when it succeeded), and the lines it printed. */
    record Outcome(PingCommand command, String error, List<String> out) {}

    /**
     * Runs ping with args; an IOException becomes the outcome's error line, a refused argument
     * (IllegalArgumentException) is thrown.
     */
    static Outcome run(String... args) throws Exception {
        PingCommand cmd = new PingCommand();
        new picocli.CommandLine(cmd).parseArgs(args);
        PrintStream was = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        String error = null;
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            cmd.call();
        } catch (IOException e) {
            error = e.getMessage();
        } finally {
            System.setOut(was);
        }
        return new Outcome(cmd, error, buf.toString(StandardCharsets.UTF_8).lines().toList());
    }

    /** As {@link #run}, with {@code -s path} first. */
    static Outcome run(String path, List<String> args) throws Exception {
        List<String> all = new ArrayList<>(List.of("-s", path));
        all.addAll(args);
        return run(all.toArray(String[]::new));
    }
}
