package org.sysframe.unix;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Which syscall a thread of this process is in now, as {@code /proc/self/task/TID/syscall} shows it.
 *
 * <p>For measurements: the library counts a call when it returns and the kernel counter when it
 * enters, so the two agree over a window that starts and ends while the measured thread is parked in
 * its wait call (an event loop in {@code epoll_wait}, or in {@code io_uring_enter} with the io_uring
 * backend). {@link #awaitParked} finds such a point.
 */
public final class ThreadSyscall {
    private ThreadSyscall() {}

    // x86-64 syscall numbers; glibc may enter epoll_wait as epoll_pwait.
    private static final int NR_EPOLL_WAIT = 232;
    private static final int NR_EPOLL_PWAIT = 281;
    private static final int NR_IO_URING_ENTER = 426;

    /** The number of the syscall thread tid is in, or -1 when it runs in user space. */
    public static int current(int tid) throws IOException {
        String now = Files.readString(Path.of("/proc/self/task/" + tid + "/syscall")).trim();
        int space = now.indexOf(' ');
        String nr = space < 0 ? now : now.substring(0, space);
        return nr.equals("running") || nr.startsWith("-") ? -1 : Integer.parseInt(nr);
    }

    /**
     * Waits until thread tid is blocked in its loop's wait call, epoll_wait or io_uring_enter (polling
     * every millisecond), or fails after timeout.
     */
    public static void awaitParked(int tid, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int nr;
        do {
            nr = current(tid);
            if (nr == NR_EPOLL_WAIT || nr == NR_EPOLL_PWAIT || nr == NR_IO_URING_ENTER) return;
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        } while (System.nanoTime() < deadline);
        throw new IOException("thread " + tid + " not parked in epoll_wait or io_uring_enter after " + timeout + " (in syscall " + nr + ")");
    }
}
