package org.sysframe.unix;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A loop thread is parked only in a wait that sleeps; a spinning poll is not a point to read its counts at. */
class ThreadSyscallTest {
    @Test
    void onlyWaitsThatSleepCountAsParked() {
        // epoll_wait(epfd, events, maxevents, timeout): the fourth argument decides.
        assertTrue(
                ThreadSyscall.isBlockingWait("232 0x5 0x7f3a2c001000 0x100 0xffffffff 0x7f3a3bffe8d0 0x7f3a4a8f1d5e"),
                "timeout -1");
        assertTrue(ThreadSyscall.isBlockingWait("281 0x5 0x7f3a2c001000 0x100 0x64 0x0 0x7f3a3bffe8d0 0x7f3a4a8f1d5e"),
                "epoll_pwait, 100 ms");
        assertFalse(ThreadSyscall.isBlockingWait("232 0x5 0x7f3a2c001000 0x100 0x0 0x7f3a3bffe8d0 0x7f3a4a8f1d5e"),
                "a zero-timeout poll");
        // io_uring_enter(fd, to_submit, min_complete, flags, arg, argsz): waits only with GETEVENTS and min_complete >
        // 0.
        assertTrue(ThreadSyscall.isBlockingWait("426 0x0 0x2 0x1 0x11 0x0 0x0 0x7f3a3bffe8d0 0x7f3a4a8f1d5e"),
                "submit and wait for one");
        assertFalse(ThreadSyscall.isBlockingWait("426 0x0 0x2 0x0 0x10 0x0 0x0 0x7f3a3bffe8d0 0x7f3a4a8f1d5e"),
                "submit only");
        assertFalse(ThreadSyscall.isBlockingWait("426 0x0 0x0 0x0 0x11 0x0 0x0 0x7f3a3bffe8d0 0x7f3a4a8f1d5e"),
                "run task work, wait for none");
        assertFalse(
                ThreadSyscall.isBlockingWait("45 0x9 0x7f3a2c001000 0x2000 0x0 0x0 0x0 0x7f3a3bffe8d0 0x7f3a4a8f1d5e"),
                "recvfrom");
        assertFalse(ThreadSyscall.isBlockingWait("running"));
        assertFalse(ThreadSyscall.isBlockingWait("-1 0x7f3a3bffe8d0 0x7f3a4a8f1d5e"), "blocked outside a syscall");
    }

    @Test
    void aThreadBlockedInEpollWaitIsParkedAndOneSpinningOnZeroTimeoutsIsNot() throws Exception {
        try (Epoll blocking = new Epoll(4, new SyscallCounters("blocking"));
             Epoll spinning = new Epoll(4, new SyscallCounters("spinning"))) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger blockedTid = new AtomicInteger(), spinningTid = new AtomicInteger();
            CountDownLatch started = new CountDownLatch(2);
            Thread sleeper = new Thread(() -> {
                blockedTid.set(Self.tid());
                started.countDown();
                while (!stop.get()) await(blocking, 50);
            });
            Thread spinner = new Thread(() -> {
                spinningTid.set(Self.tid());
                started.countDown();
                while (!stop.get()) await(spinning, 0);
            });
            sleeper.start();
            spinner.start();
            try {
                started.await();
                ThreadSyscall.awaitParked(blockedTid.get(), Duration.ofSeconds(10));
                IOException e = assertThrows(IOException.class, () ->
                        ThreadSyscall.awaitParked(spinningTid.get(), Duration.ofMillis(200)));
                assertTrue(e.getMessage().startsWith("thread " + spinningTid.get()
                        + " not parked in epoll_wait or io_uring_enter after PT0.2S"), e.getMessage());
            } finally {
                stop.set(true);
                sleeper.join();
                spinner.join();
            }
        }
    }

    private static void await(Epoll e, int timeoutMs) {
        try {
            e.await(timeoutMs);
        } catch (ErrnoException x) {
            throw new IllegalStateException(x);
        }
    }
}
