package org.sysframe.transport.internal.client;

import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.SyscallKind;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * The client's one lock, held for a few field updates and at most one request's copy. No I/O of the
 * client's runs under it, but two kinds of wake-up do: a pool's sleeping I/O thread's (an eventfd
 * write, {@code Multiplexer.wake}) and the unparks of the threads an answer, a free role or a close
 * concerns ({@link java.util.concurrent.locks.LockSupport#unpark}: a parked platform thread's is a
 * futex wake in the JVM). A thread that finds it taken spins a little, then yields its CPU (a virtual
 * thread its carrier) until it is free. Unlike {@link java.util.concurrent.locks.ReentrantLock}, whose
 * waiters allocate a queue node each, it allocates nothing when callers contend. Not reentrant: the owner
 * is remembered so that a reentry fails instead of spinning forever. No conditions.
 *
 * <p>A platform thread's yield is a {@code sched_yield} syscall (a virtual thread's is not: it unmounts),
 * counted as one {@link SyscallKind#SCHED_YIELD} in the client's counters, which take increments from
 * any thread ({@link SyscallCounters#summing}).
 */
final class CallLock implements Lock {
    private static final int SPINS = 100;

    private final AtomicInteger state = new AtomicInteger();
    private final SyscallCounters counters;
    /**
     * Written by the holder only, read only to see whether the caller itself holds the lock: a thread always sees its
     * own last write, so a plain field answers that, with no fence when the lock is taken and let go.
     */
    private Thread owner;

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
        if (owner == Thread.currentThread()) throw new IllegalStateException("the client's lock is not reentrant");
        int spins = 0;
        while (!state.compareAndSet(0, 1)) {
            if (++spins < SPINS) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
                if (!Thread.currentThread().isVirtual()) counters.increment(SyscallKind.SCHED_YIELD);
            }
        }
        owner = Thread.currentThread();
    }

    @Override
    public void unlock() {
        owner = null;
        state.setRelease(0); // what the holder wrote is seen by the next one, whose compareAndSet acquires
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
