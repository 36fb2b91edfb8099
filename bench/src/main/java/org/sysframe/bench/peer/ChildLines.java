package org.sysframe.bench.peer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The bench's one bounded read of a child process's stdout, for the children it talks to by lines. */
final class ChildLines {
    private ChildLines() {}

    /**
     * The next line of out, the stdout of child (called who in errors), waiting at most seconds; null
     * at its end. Past the deadline the child is killed, so that its reader ends with the pipe and no
     * stale reader takes a later line, and an IOException says so.
     */
    static String next(BufferedReader out, Process child, long seconds, String who) throws IOException {
        CompletableFuture<String> f = CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        try {
            return f.get(seconds, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            child.destroyForcibly();
            throw new IOException(who + " did not answer within " + seconds + " s", e);
        } catch (ExecutionException e) {
            throw new IOException(who + ": " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** How child ended, for an error: {@code exit N}, waiting up to 2 s for it, else {@code no exit yet}. */
    static String exitOf(Process child) {
        try {
            return child.waitFor(2, TimeUnit.SECONDS) ? "exit " + child.exitValue() : "no exit yet";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "exit unknown";
        }
    }
}
