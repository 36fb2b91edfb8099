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
     * Waits until thread tid is blocked in its loop's wait call (polling every millisecond), or fails
     * after timeout: {@code epoll_wait}/{@code epoll_pwait} with a timeout other than 0, or
     * {@code io_uring_enter} waiting for at least one completion. A spinning loop's zero-timeout polls
     * and its submit-only enters are not parked: a count read then could miss the call under way.
     */
    public static void awaitParked(int tid, Duration timeout) throws IOException {
        awaitParked("self", tid, timeout);
    }

    /** As {@link #awaitParked(int, Duration)}, for thread tid of process pid (another process's). */
    public static void awaitParked(long pid, int tid, Duration timeout) throws IOException {
        awaitParked(Long.toString(pid), tid, timeout);
    }

    private static void awaitParked(String pid, int tid, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String now;
        do {
            now = Files.readString(Path.of("/proc/" + pid + "/task/" + tid + "/syscall")).trim();
            if (isBlockingWait(now)) return;
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        } while (System.nanoTime() < deadline);
        String who = pid.equals("self") ? "thread " + tid : "thread " + tid + " of process " + pid;
        throw new IOException(who + " not parked in epoll_wait or io_uring_enter after " + timeout
                + " (/proc syscall: " + now + ")");
    }

    /**
     * Whether a {@code /proc/PID/task/TID/syscall} line ({@code NR ARG1..ARG6 SP PC}, arguments in hex, or
     * {@code running}) shows a wait that sleeps: epoll_wait or epoll_pwait whose timeout (argument 4) is
     * not 0, or io_uring_enter with IORING_ENTER_GETEVENTS and min_complete (argument 3) above 0.
     */
    static boolean isBlockingWait(String line) {
        String[] f = line.trim().split(" ");
        if (f.length < 7 || f[0].equals("running") || f[0].startsWith("-")) return false;
        int nr = Integer.parseInt(f[0]);
        return switch (nr) {
            case NR_EPOLL_WAIT, NR_EPOLL_PWAIT -> (int) hex(f[4]) != 0;
            case NR_IO_URING_ENTER -> (int) hex(f[3]) > 0 && (hex(f[4]) & IORING_ENTER_GETEVENTS) != 0;
            default -> false;
        };
    }

    private static final long IORING_ENTER_GETEVENTS = 1;

    private static long hex(String arg) {
        return Long.parseUnsignedLong(arg.startsWith("0x") ? arg.substring(2) : arg, 16);
    }
}
