package org.sysframe.transport.support;

import org.sysframe.transport.Backend;

import org.sysframe.unix.ThreadSyscall;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A thread of this process seen from /proc: the syscall it is blocked in, its blocked signals; and a way to keep it
 * alive.
 */
public final class ThreadStates {
    private ThreadStates() {}

    /**
     * The syscall a client of this run's default backend blocks in while it waits for an answer:
     * 45 (recvfrom) with epoll, 426 (io_uring_enter) with io_uring (the default backend: {@link EachBackend}'s
     * invocation, or {@code -Dsysframe.backend}).
     */
    public static int clientReceiveSyscall() {
        return Backend.configuredDefault() == Backend.EPOLL ? 45 : 426;
    }

    /**
     * Waits up to 30 s until thread tid is in syscall nr ({@link ThreadSyscall#current}), else fails with what the
     * thread is doing (its /proc syscall line, state, kernel wait channel and stack, Java stack).
     */
    public static void awaitBlockedIn(int tid, int nr) throws Exception {
        long until = System.nanoTime() + 30_000_000_000L;
        while (ThreadSyscall.current(tid) != nr) {
            if (System.nanoTime() - until > 0) {
                throw new AssertionError("thread " + tid + " is not blocked in syscall " + nr + " after 30 s: "
                        + describe(tid));
            }
            Thread.sleep(2);
        }
    }

    /** What thread tid of this process is doing, as /proc and the JVM show it (for a failure's message). */
    static String describe(int tid) {
        Path task = Path.of("/proc/self/task/" + tid);
        StringBuilder b = new StringBuilder();
        for (String f : new String[] {"syscall", "stat", "wchan", "stack"}) {
            try {
                b.append('\n').append(f).append(": ").append(Files.readString(task.resolve(f)).trim());
            } catch (IOException e) {
                b.append('\n').append(f).append(": ").append(e);
            }
        }
        String name;
        try {
            name = Files.readString(task.resolve("comm")).trim();
        } catch (IOException e) {
            return b.toString();
        }
        Thread.getAllStackTraces().forEach((t, stack) -> {
            if (!t.getName().startsWith(name)) return;
            b.append("\nJava thread ").append(t.getName()).append(' ').append(t.getState());
            for (StackTraceElement e : stack) b.append("\n    at ").append(e);
        });
        return b.toString();
    }

    /** A signalled thread's last step: says it is done, then lives on until the signals have stopped. */
    public static void stayUntilReleased(CountDownLatch done, CountDownLatch release) {
        done.countDown();
        try {
            release.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static int sigBlockedBit(int tid, int sig) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/task/" + tid + "/status"))) {
            if (line.startsWith("SigBlk:")) {
                long mask = Long.parseUnsignedLong(line.substring(7).trim(), 16);
                return (int) ((mask >>> (sig - 1)) & 1);
            }
        }
        throw new IllegalStateException("no SigBlk in the status of thread " + tid);
    }
}
