package org.sysframe.bench.peer;

import org.sysframe.unix.KernelSyscallCounter;

import java.io.BufferedReader;
import java.io.Closeable;
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

    /**
     * Ends a child the bench talks to by lines: its stdin closed (its end-of-input ends it), then waited
     * for at most seconds before it is killed; its kernel counter (may be null) and stdout closed.
     */
    static void end(Process child, Closeable in, BufferedReader out, KernelSyscallCounter kernel, long seconds) {
        try {
            in.close();
            if (!child.waitFor(seconds, TimeUnit.SECONDS)) child.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        } catch (IOException ignored) {
            child.destroyForcibly(); // its stdin is gone already
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            child.destroyForcibly();
        } finally {
            if (kernel != null) kernel.close();
            try {
                out.close();
            } catch (IOException ignored) {
                // the process is gone: nothing left to read
            }
        }
    }
}
