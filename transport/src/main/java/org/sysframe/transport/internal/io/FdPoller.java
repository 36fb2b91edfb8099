package org.sysframe.transport.internal.io;

import org.sysframe.unix.Epoll;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.SyscallCounts;

import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * Where a virtual thread waits for a socket to become readable or writable without blocking its
 * carrier in a foreign call (JEP 425: a thread is pinned while it runs one): the socket is registered
 * one-shot in this JVM-wide epoll instance, the virtual thread parks (its carrier is free meanwhile),
 * and one platform daemon thread, blocked in {@code epoll_wait}, unparks it when the kernel reports the
 * socket ready. The JDK's own socket channels wait the same way (the internal Poller).
 *
 * <p>A wait is an {@code epoll_ctl} ADD, a park bounded by the caller's deadline and an
 * {@code epoll_ctl} DEL; registrations are reused, so a steady wait allocates nothing. The poller's
 * {@code epoll_wait} calls are counted in {@link #counters()} (its own thread), not in the socket's.
 * One waiter per descriptor at a time (a client's receive, or a shared client's one sender).
 */
public final class FdPoller {
    public static final int READABLE = Epoll.EPOLLIN;
    public static final int WRITABLE = Epoll.EPOLLOUT;
    private static final int ONESHOT = 1 << 30;

    private static volatile FdPoller instance;

    private final Epoll epoll;
    private final ReentrantLock lock = new ReentrantLock(); // the registrations and Epoll's ctl scratch
    private final SyscallCounters counters = new SyscallCounters("sysframe poller");
    private Registration[] regs = new Registration[64];
    private int[] free = new int[64];
    private int freeCount;
    private int used;

    /**
     * One waiter's place: its thread, whether the kernel reported the descriptor ready, a generation against stale
     * reports.
     */
    private static final class Registration {
        final int index;
        volatile Thread thread;
        volatile boolean ready;
        volatile int generation;

        Registration(int index) { this.index = index; }
    }

    private FdPoller() throws ErrnoException {
        this.epoll = new Epoll(128, counters);
        Thread t = new Thread(this::run, "sysframe-poller");
        t.setDaemon(true);
        t.start();
    }

    /** The JVM's poller, started on first use. */
    public static FdPoller get() throws ErrnoException {
        FdPoller p = instance;
        if (p != null) return p;
        synchronized (FdPoller.class) {
            if (instance == null) instance = new FdPoller();
            return instance;
        }
    }

    /** The poller's epoll_wait calls so far, zero when it has not started (nothing started by asking). */
    public static SyscallCounts countsIfStarted() {
        FdPoller p = instance;
        return p == null ? SyscallCounts.ZERO : p.counters.snapshot();
    }

    /** The poller thread's epoll_wait calls. */
    public SyscallCounters counters() { return counters; }

    /**
     * Parks the calling thread until fd is ready for events ({@link #READABLE}, {@link #WRITABLE}),
     * hung up or in error, or until deadline (a System.nanoTime() instant) passed, or the thread is
     * interrupted. True when the kernel reported it ready; false on the deadline or an interrupt (the
     * caller checks {@link Thread#isInterrupted()}). It may return true spuriously: the caller retries
     * its non-blocking call and waits again.
     */
    public boolean await(int fd, int events, long deadline) throws ErrnoException {
        return await(fd, events, deadline, null);
    }

    /**
     * As {@link #await(int, int, long)}, ending early too when stop (looked at each time the thread is
     * unparked; null: never) says so: whoever sets what it reads unparks the thread.
     */
    public boolean await(int fd, int events, long deadline, BooleanSupplier stop) throws ErrnoException {
        Registration r = take();
        int gen = r.generation;
        try {
            lock.lock();
            try {
                epoll.add(fd, events | ONESHOT | Epoll.EPOLLRDHUP, ((long) gen << 32) | r.index);
            } finally {
                lock.unlock();
            }
            while (!r.ready) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || Thread.currentThread().isInterrupted() || stop != null && stop.getAsBoolean()) break;
                LockSupport.parkNanos(this, left);
            }
            return r.ready;
        } finally {
            lock.lock();
            try {
                try {
                    epoll.remove(fd);
                } catch (ErrnoException gone) {
                    // already closed (and so removed by the kernel), or the report is on its way: either way no longer
                    // watched
                }
                r.generation = gen + 1;
                r.thread = null;
                r.ready = false;
                free[freeCount++] = r.index;
            } finally {
                lock.unlock();
            }
        }
    }

    private Registration take() {
        lock.lock();
        try {
            Registration r;
            if (freeCount > 0) {
                r = regs[free[--freeCount]];
            } else {
                if (used == regs.length) {
                    regs = Arrays.copyOf(regs, used * 2);
                    free = Arrays.copyOf(free, used * 2);
                }
                r = new Registration(used);
                regs[used++] = r;
            }
            r.thread = Thread.currentThread();
            return r;
        } finally {
            lock.unlock();
        }
    }

    private void run() {
        while (true) {
            int n;
            try {
                n = epoll.await(-1);
            } catch (ErrnoException e) {
                System.getLogger("org.sysframe.client").log(System.Logger.Level.ERROR, "the poller stopped: "
                        + e.getMessage());
                return;
            }
            for (int i = 0; i < n; i++) {
                long tag = epoll.readyTag(i);
                int index = (int) tag;
                int gen = (int) (tag >>> 32);
                Registration r;
                lock.lock();
                try {
                    r = index >= 0 && index < used ? regs[index] : null;
                } finally {
                    lock.unlock();
                }
                if (r == null || r.generation != gen) continue;
                Thread t = r.thread;
                r.ready = true;
                if (t != null) LockSupport.unpark(t);
            }
        }
    }
}
