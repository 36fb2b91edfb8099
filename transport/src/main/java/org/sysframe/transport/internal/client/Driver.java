package org.sysframe.transport.internal.client;

import org.sysframe.unix.ErrnoException;

import java.util.concurrent.locks.LockSupport;

/**
 * How a caller of a {@link Conduit} waits for its call: while it holds the I/O role it drives it
 * (sends what waits, receives and routes until its own answer came), else it parks in the waiting list
 * until its answer came or the role is offered to it.
 */
final class Driver {
    private final Conduit conduit;

    Driver(Conduit conduit) {
        this.conduit = conduit;
    }

    /**
     * Waits until c is ready: drives the I/O while it holds the role, else parks in the waiting list
     * until its answer came or the role is offered to it.
     */
    void await(Call c, long deadline) throws ErrnoException {
        Thread me = Thread.currentThread();
        // A caller that sent its request itself holds the role: it drives at once, with no lock taken and no clock read
        // before its receive, whose wait keeps to the deadline. The look needs no lock: only this thread gives itself
        // the role and only it leaves it.
        if (conduit.holder == me && !c.ready() && !me.isInterrupted()) drive(c, deadline);
        while (!c.ready()) {
            // Given up (now, or by an earlier wait: a stream's next item), unless its answer came meanwhile.
            if (me.isInterrupted()) {
                leaveRole(me); // a caller that sent its request itself still holds the role
                if (givenUp(c)) throw conduit.ends().interrupted(c,
                        "interrupted while waiting for the answer to request " + c.id);
                continue;
            }
            if (deadline != 0 && deadline - System.nanoTime() <= 0) {
                leaveRole(me);
                if (givenUp(c)) throw conduit.ends().timedOut(c);
                continue;
            }
            boolean role = false;
            conduit.lock.lock();
            try {
                if (c.ready()) break;
                if (conduit.holder == me) {
                    role = true;
                } else if (conduit.holder == null && !conduit.closed && !c.passenger) {
                    conduit.take(me, Conduit.CALLER);
                    conduit.waiting.remove(c);
                    role = true;
                } else if (!c.listed && c.state == Call.WAITING && (c.gated || conduit.table.get(c.id) == c)) {
                    // (Not once its answer is being routed: out of the table, not DONE yet. It is unparked then.)
                    c.deadline = deadline;
                    conduit.waiting.add(c);
                    if (deadline != 0) conduit.sweep.cover(deadline);
                    // a passenger: the client's thread does the I/O; a caller: the role is to be left to it
                    conduit.wantIo(!c.passenger);
                }
            } finally {
                conduit.lock.unlock();
            }
            if (role) {
                drive(c, deadline);
                continue;
            }
            LockSupport.park(conduit);
        }
        if (c.state == Call.FAILED) throw conduit.copyOf(c.error);
    }

    /** Abandons c, or finds it abandoned already: true unless it ended meanwhile (answered, failed). */
    private boolean givenUp(Call c) { return conduit.ends().abandon(c) || c.state == Call.ABANDONED; }

    /**
     * How long the holder's next receive may wait: until deadline (0: none), or, while other callers'
     * requests wait to be sent or other callers wait, at most {@value #SLICE_MILLIS} ms, so that no
     * request waits for long behind a receive that nothing answers (a server that answers one request
     * only once it read the next, or a race with a caller queuing as the receive began). A caller alone
     * never slices its wait: its counts stay one receive per answer.
     */
    long slice(long deadline) {
        // a racy look: a hint
        if (conduit.waiting.head() == null && conduit.queue.isEmpty()
                && conduit.outbox.unsent.isEmpty()) return deadline;
        return sliced(deadline);
    }

    /** deadline (0: none), or {@value #SLICE_MILLIS} ms from now if sooner. */
    static long sliced(long deadline) {
        long s = System.nanoTime() + SLICE_MILLIS * 1_000_000L;
        return deadline == 0 || s - deadline < 0 ? s : deadline;
    }

    static final long SLICE_MILLIS = 20;

    /**
     * Leaves the role if me holds it as a caller (not a pipeline's thread, which keeps it until the pipeline closes).
     */
    private void leaveRole(Thread me) {
        if (conduit.holder == me && conduit.holderMode == Conduit.CALLER) conduit.release();
    }

    /**
     * The holder: sends what waits, receives and routes until c is ready or the deadline passed; then leaves the role
     * (not a pipeline's).
     */
    private void drive(Call c, long deadline) {
        boolean keep = conduit.holderMode == Conduit.EXCLUSIVE;
        try {
            if (c.unsent) {
                c.unsent = false;
                conduit.flushQueue(); // what was queued before it goes first
                conduit.outbox.write(c.id, c.type, c.unsentPayload, c.unsentOffset, c.unsentLength);
                c.unsentPayload = null;
            }
            while (!c.ready() && !conduit.closed) {
                // A virtual holder that made callers runnable lets them queue their next requests first, on its
                // carrier too, so that they leave in its next send rather than in sends of their own.
                if (conduit.router.tookWoken() && Thread.currentThread().isVirtual()) Thread.yield();
                conduit.flushQueue();
                if (Thread.currentThread().isInterrupted()) break;
                long by = slice(deadline);
                boolean got = conduit.pump.pumpBy(conduit.router, by, conduit.receiveTimeoutNanos());
                if (by != deadline && !c.ready()) {
                    conduit.pump.drainBuffered(conduit.router);
                    // others wait: read all there is before writing more
                    if (!c.ready()) conduit.pump.drainAvailable(conduit.router);
                }
                if (!got && by == deadline) break;
            }
            if (c.ready() && !conduit.closed) conduit.pump.drainBuffered(conduit.router);
        } catch (ErrnoException e) {
            // a virtual receiver's interrupt ends its wait in the poller: its own call's business
            conduit.receiveFailed(e);
        } catch (RuntimeException | Error e) {
            conduit.receiveCrashed(e);
            throw e;
        } finally {
            if (!keep) conduit.release();
        }
    }

    /**
     * A pipeline's thread with none of its own requests in flight while other callers' fill the
     * in-flight cap: it receives one message for them (within the receive timeout), so that their
     * answers make room. False when there is nothing to receive for.
     */
    boolean receiveForOthers() throws ErrnoException {
        conduit.lock.lock();
        try {
            if (conduit.table.inFlight() == 0) return false;
        } finally {
            conduit.lock.unlock();
        }
        conduit.flushQueue();
        return conduit.pump.pumpBy(conduit.router, conduit.deadline(System.nanoTime()), conduit.receiveTimeoutNanos());
    }

}
