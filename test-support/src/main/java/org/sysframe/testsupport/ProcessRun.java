package org.sysframe.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A child process run to its end: its exit code and its stdout and stderr merged. One that runs past
 * its timeout is killed with its descendants and reported as an AssertionError holding what it printed.
 *
 * @param exit   the exit code
 * @param output everything it printed, stdout and stderr merged
 */
public record ProcessRun(int exit, String output) {
    /** Starts pb (its stderr merged into stdout, no stdin) and waits for it, at most timeout. */
    public static ProcessRun of(ProcessBuilder pb, Duration timeout) throws IOException, InterruptedException {
        Process p = pb.redirectErrorStream(true).start();
        p.getOutputStream().close();
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "(reading the child's output failed: " + e + ")";
            }
        });
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly().waitFor();
            throw new AssertionError(pb.command() + " did not end within " + timeout.toSeconds() + " s:\n"
                    + outputOf(output));
        }
        return new ProcessRun(p.exitValue(), outputOf(output));
    }

    private static String outputOf(CompletableFuture<String> output) throws InterruptedException {
        try {
            return output.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            return "(the child's output was not read: " + e + ")";
        }
    }
}
