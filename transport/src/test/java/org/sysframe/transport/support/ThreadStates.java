package org.sysframe.transport.support;

import org.sysframe.transport.Backend;

import org.sysframe.unix.ThreadSyscall;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

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

    /** Waits up to 8 s until thread tid is in syscall nr ({@link ThreadSyscall#current}), else fails. */
    public static void awaitBlockedIn(int tid, int nr) throws Exception {
        for (int i = 0; i < 4_000 && ThreadSyscall.current(tid) != nr; i++) Thread.sleep(2);
        assertEquals(nr, ThreadSyscall.current(tid), "thread " + tid + " is not blocked in syscall " + nr);
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
