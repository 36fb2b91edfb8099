package org.sysframe.transport.internal.client;

import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.SyscallKind;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;

/**
 * The client's one lock, held for a few field updates and at most one request's copy. No I/O of the
 * client's runs under it, and its holder's wake-ups wait for its unlock: the thread it unparks (a parked
 * platform thread's unpark is a futex wake in the JVM) and a pool's sleeping I/O thread it signals (an
 * eventfd write) are woken just after it lets the lock go ({@link #unparkAfterUnlock},
 * {@link #signalAfterUnlock}), one of each per hold; a further one in the same hold, and the many
 * of a close or a deadline sweep, are woken at once. A thread that finds it taken spins a little, then
 * yields its CPU until it is free; a virtual thread yields its carrier a few times, then parks for
 * {@value #VIRTUAL_NAP_NANOS} ns at a time, so that a virtual holder that left its carrier under the
 * lock gets one back (virtual waiters that only yielded kept one from it: a pool of callers hung). Unlike
 * {@link java.util.concurrent.locks.ReentrantLock}, whose waiters allocate a queue node each, it allocates
 * nothing when callers contend. Not reentrant: the owner is remembered so that a reentry fails instead of
 * spinning forever. No conditions.
 *
 * <p>A platform thread's yield is a {@code sched_yield} syscall (a virtual thread's is not: it unmounts),
 * counted as one {@link SyscallKind#SCHED_YIELD} in the client's counters, which take increments from
 * any thread ({@link SyscallCounters#summing}).
 */
final class CallLock implements Lock {
    private static final int SPINS = 100;
    /** A virtual waiter's yields after its spins, before it parks for {@value #VIRTUAL_NAP_NANOS} ns at a time. */
    static final int VIRTUAL_YIELDS = 16;
    /** How long a virtual waiter parks at a time, past its spins and yields. */
    static final long VIRTUAL_NAP_NANOS = 20_000;

    private final AtomicInteger state = new AtomicInteger();
    private final SyscallCounters counters;
    /**
     * Written by the holder only, read only to see whether the caller itself holds the lock: a thread always sees its
     * own last write, so a plain field answers that, with no fence when the lock is taken and let go.
     */
    private Thread owner;
    /** The holder's wake-ups, done once it let the lock go (the holder's fields, as owner). */
    private Thread unparkLater;
    private Signal signalLater;

    /** A wake-up whose syscall waits for the unlock ({@code Multiplexer}: its eventfd write). */
    interface Signal {
        void signal();
    }

    /** A lock whose yields are counted in counters (summing ones: the waiters count at once). */
    CallLock(SyscallCounters counters) {
        this.counters = counters;
    }

    @Override
    public void lock() {
        if (state.compareAndSet(0, 1)) {
            owner = Thread.currentThread();
            return;
        }
        Thread me = Thread.currentThread();
        if (owner == me) throw new IllegalStateException("the client's lock is not reentrant");
        int spins = 0;
        boolean interrupted = false;
        while (!state.compareAndSet(0, 1)) {
            if (spins < SPINS + VIRTUAL_YIELDS) spins++; // counted no further: a long wait does not wrap it around
            if (spins < SPINS) {
                Thread.onSpinWait();
            } else if (!me.isVirtual()) {
                Thread.yield();
                counters.increment(SyscallKind.SCHED_YIELD);
            } else if (spins < SPINS + VIRTUAL_YIELDS) {
                Thread.yield(); // unmounts; back on a carrier at once when nothing else waits for one
            } else {
                // Off the carrier for a while, not only yielded: a holder that left its carrier under the lock (a
                // monitor it waited for) is made runnable from outside the carriers' own queues, and waiters that only
                // yield take turns on every carrier before it would get one. An interrupt would end each park at once:
                // it is kept aside until the lock is taken.
                if (Thread.interrupted()) interrupted = true;
                LockSupport.parkNanos(this, VIRTUAL_NAP_NANOS);
            }
        }
        owner = me;
        if (interrupted) me.interrupt();
    }

    @Override
    public void unlock() {
        Thread t = unparkLater;
        Signal s = signalLater;
        if (t != null || s != null) {
            unparkLater = null;
            signalLater = null;
        }
        owner = null;
        state.setRelease(0); // what the holder wrote is seen by the next one, whose compareAndSet acquires
        // The wakee's first step is often this lock: woken after it is free, it need not spin for it.
        if (t != null) LockSupport.unpark(t);
        if (s != null) s.signal();
    }

    /**
     * Unparks t just after the caller lets the lock go, when it holds it and has no other thread to unpark then;
     * else at once. An unpark that comes late is still safe: every park of the client looks at its condition again.
     */
    void unparkAfterUnlock(Thread t) {
        if (t == null) return;
        if (owner == Thread.currentThread() && (unparkLater == null || unparkLater == t)) unparkLater = t;
        else LockSupport.unpark(t);
    }

    /** Signals s just after the caller lets the lock go, when it holds it and has no other signal then; else now. */
    void signalAfterUnlock(Signal s) {
        if (owner == Thread.currentThread() && (signalLater == null || signalLater == s)) signalLater = s;
        else s.signal();
    }

    @Override
    public boolean tryLock() {
        if (!state.compareAndSet(0, 1)) return false;
        owner = Thread.currentThread();
        return true;
    }

    @Override
    public void lockInterruptibly() {
        lock();
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) {
        throw new UnsupportedOperationException("not used");
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("no conditions");
    }
}
