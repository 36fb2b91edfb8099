package org.sysframe.transport.internal.client;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/**
 * The parked callers' one timer, instead of a timed park each (a timed park sets and cancels a timer
 * of the JVM's per call): armed for the earliest deadline of the callers listed, it runs the
 * client's sweep, which unparks every caller whose deadline passed (each then gives up with ETIMEDOUT
 * on its own thread) and arms it again for the earliest deadline still ahead. An earlier deadline
 * arms an earlier sweep; the later one, superseded, then does nothing. All clients share one daemon
 * thread, {@code sysframe-deadlines}, gone after a second with nothing due.
 */
final class DeadlineSweep {
    private static final ScheduledThreadPoolExecutor TIMER = timer();

    private static ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1,
                r -> Thread.ofPlatform().daemon().name("sysframe-deadlines").unstarted(r));
        e.setKeepAliveTime(1, TimeUnit.SECONDS);
        e.allowCoreThreadTimeOut(true);
        e.setRemoveOnCancelPolicy(true);
        return e;
    }

    /** What a sweep does: unparks the callers past due; returns the earliest deadline still ahead, or 0. */
    interface Target {
        long sweep(long now);
    }

    private final Lock lock;
    private final Target target;
    private long armedFor; // under lock: the deadline the armed sweep runs at (0: none)

    DeadlineSweep(Lock lock, Target target) {
        this.lock = lock;
        this.target = target;
    }

    /** Under the conduit's lock: makes sure a sweep runs by deadline. */
    void cover(long deadline) {
        if (armedFor != 0 && armedFor - deadline <= 0) return;
        armedFor = deadline;
        long at = deadline;
        TIMER.schedule(() -> run(at), Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    private void run(long due) {
        lock.lock();
        try {
            if (armedFor != due) return; // superseded by an earlier one, which armed the next
            armedFor = 0;
            long next = target.sweep(System.nanoTime());
            if (next != 0) cover(next);
        } finally {
            lock.unlock();
        }
    }
}
