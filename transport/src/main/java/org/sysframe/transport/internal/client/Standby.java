package org.sysframe.transport.internal.client;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.Self;

import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The client's own thread, {@code sysframe-client(<socket>)}, a platform daemon started by the first
 * future, event listener, or virtual thread on the shared-memory channel or on a connection with an
 * in-flight cap: it holds the I/O role while futures or such virtual threads (passengers: on the channel
 * a virtual thread would spin or nap on its carrier; under a cap, the thread that reads an answer sends
 * the next held request at once, so no caller's wake-up stands between them) wait and no caller that
 * may do the I/O holds it, and, with an event listener, waits idly for events and hands each to the listener, in
 * arrival order, on this thread. It leaves the role as soon as a blocking caller waits (which then receives for all).
 */
public final class Standby {
    private static final long IDLE_SLICE_NANOS = 1_000_000_000L;

    private final Conduit conduit;
    private Thread thread;                 // under the conduit's lock
    private volatile int tid;
    private volatile Consumer<Events.Kept> listener;
    /**
     * A pool's I/O thread, which takes this connection's role for its futures and passengers (null: this thread does).
     */
    volatile Multiplexer mux;

    Standby(Conduit conduit) {
        this.conduit = conduit;
    }

    /** Starts the thread that does the I/O for futures and passengers (once): the pool's, or this one. */
    public void start() {
        Multiplexer m = mux;
        if (m != null) m.start();
        else startOwn();
    }

    /**
     * Starts this connection's own thread (once). Made under the lock, started after it: a start is a clone(2) and a
     * wait for the new thread, whose first step takes the lock (held meanwhile, it would make the new thread spin and
     * yield). A wake-up offered before it runs is not lost: its first step looks at the work under the lock.
     */
    private void startOwn() {
        Thread t;
        conduit.lock.lock();
        try {
            if (thread != null || conduit.closed) return;
            t = Thread.ofPlatform().daemon().name("sysframe-client(" + conduit.name + ")").unstarted(this::run);
            thread = t;
        } finally {
            conduit.lock.unlock();
        }
        try {
            t.start();
        } catch (RuntimeException | Error e) {
            conduit.lock.lock();
            try {
                if (thread == t) thread = null; // the next future tries again
            } finally {
                conduit.lock.unlock();
            }
            throw e;
        }
    }

    /** Hands every event to l on this thread from now on (they are no longer kept for nextEvent). */
    public void listen(Consumer<Events.Kept> l) {
        listener = l;
        startOwn();
        conduit.lock.lock();
        try {
            conduit.lock.unparkAfterUnlock(thread);
            if (conduit.holderMode == Conduit.IDLE) conduit.nudge();
        } finally {
            conduit.lock.unlock();
        }
    }

    public boolean hasListener() { return listener != null; }

    /** The thread's Linux thread id (0 before it started): this connection's own, else the pool's I/O thread's. */
    public int tid() {
        Multiplexer m = mux;
        return tid != 0 || m == null ? tid : m.tid();
    }

    /** Under the conduit's lock: the role is free and may be the standby's to take. */
    void offer() {
        conduit.lock.unparkAfterUnlock(thread);
        Multiplexer m = mux;
        if (m != null) m.wake(conduit.lock);
    }

    /** Under the conduit's lock: an event came (the listener's thread may be parked). */
    void eventArrived() {
        if (listener != null) conduit.lock.unparkAfterUnlock(thread);
    }

    private void run() {
        tid = Self.tid();
        Thread me = Thread.currentThread();
        while (true) {
            int mode = Conduit.NONE;
            conduit.lock.lock();
            try {
                if (conduit.closed || conduit.broken != null) {
                    if (listener == null || conduit.events.keptUnlocked() == 0) return;
                } else if (mux == null && conduit.holder == null && hasWork()
                        && conduit.waiting.firstDriver() == null) {
                    // (A caller that may do the I/O waits: it was offered the role and takes it. Taking it back here
                    // would leave it to a receive that breaks off at once for it, round after round, while it waits.)
                    conduit.holder = me;
                    conduit.holderMode = mode = Conduit.STANDBY;
                } else if (conduit.holder == null && listener != null && conduit.events.keptUnlocked() == 0
                        && !conduit.roleWanted()) {
                    conduit.holder = me;
                    conduit.holderMode = mode = Conduit.IDLE;
                    conduit.events.nudged = false;
                }
            } finally {
                conduit.lock.unlock();
            }
            deliver();
            if (mode == Conduit.STANDBY) receive();
            else if (mode == Conduit.IDLE) conduit.events.idleWait(System.nanoTime() + IDLE_SLICE_NANOS);
            else LockSupport.park(this);
        }
    }

    /** Hands the events kept to the listener. */
    private void deliver() {
        Consumer<Events.Kept> l = listener;
        if (l == null) return;
        Events.Kept k;
        while ((k = conduit.events.poll()) != null) {
            try {
                l.accept(k);
            } catch (RuntimeException e) {
                // the listener's own failure: the next event still goes to it
                Thread.currentThread().getUncaughtExceptionHandler().uncaughtException(Thread.currentThread(), e);
            }
        }
    }

    /** Under the conduit's lock: futures wait, or passengers, or requests queued that nobody else will send. */
    boolean hasWork() {
        return conduit.table.futures() > 0 || conduit.waiting.passengers() > 0 || !conduit.queue.isEmpty()
                || !conduit.outbox.unsent.isEmpty();
    }

    /** Receives for the futures and passengers while they wait and no caller that may do the I/O waits. */
    private void receive() {
        long timeout = conduit.receiveTimeoutNanos();
        try {
            while (true) {
                conduit.lock.lock();
                try {
                    if (!hasWork() || conduit.closed || conduit.broken != null
                            || conduit.waiting.firstDriver() != null) break;
                } finally {
                    conduit.lock.unlock();
                }
                conduit.flushQueue();
                // Always sliced: this thread receives for others (futures, passengers), and a caller that comes
                // meanwhile, whose request it does not send before its next turn, takes the role from it between two
                // receives.
                conduit.pump.pumpBy(conduit.router, Driver.sliced(timeout > 0 ? System.nanoTime() + timeout : 0),
                        timeout);
                conduit.pump.drainAvailable(conduit.router); // all there is, before it writes more
                if (listener != null) deliver();
            }
        } catch (ErrnoException e) {
            conduit.receiveFailed(e);
        } catch (RuntimeException | Error e) {
            conduit.receiveCrashed(e);
            throw e;
        } finally {
            conduit.release();
        }
    }
}
