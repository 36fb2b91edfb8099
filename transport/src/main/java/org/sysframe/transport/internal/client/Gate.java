package org.sysframe.transport.internal.client;

import org.sysframe.transport.wire.RequestHeader;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The in-flight cap of a connection ({@code ClientOptions.maxInFlight}): calls beyond it wait here,
 * oldest first, before they take a request id, so that they wait in the client and not on the wire.
 * When an answer frees a place, the oldest is let through: the request of a future or of a passenger
 * (a copy, held here) goes into the send queue at once, for the thread that read the answer to send;
 * any other parked caller is woken and sends its own. Under the {@link Conduit}'s lock.
 */
final class Gate {
    private final Conduit conduit;
    private final int cap;
    private final ArrayDeque<Call> line = new ArrayDeque<>();
    /** Callers let through that have not taken their id yet (they count as in flight). */
    private int admitted;

    Gate(Conduit conduit, int cap) {
        this.conduit = conduit;
        this.cap = cap;
    }

    int cap() { return cap; }

    /** Whether the cap is below the request ids (with none, nothing ever waits here). */
    boolean capped() { return cap < CallTable.MAX_ID; }

    /** Calls on the wire or about to be, against the cap. */
    int inFlight(CallTable table) { return table.inFlight() + admitted; }

    /** Whether a new call must wait: the cap is reached, or older calls wait already. */
    boolean mustWait(CallTable table) {
        return capped() && (!line.isEmpty() || inFlight(table) >= cap);
    }

    /** Whether a place is free now (a pipeline's request takes one or is refused). */
    boolean room(CallTable table) { return !capped() || inFlight(table) < cap; }

    int waiting() { return line.size(); }

    void add(Call c) {
        c.gated = true;
        line.add(c);
    }

    /** Takes c out of the line (it gave up); false if it was not in it. */
    boolean remove(Call c) {
        if (!c.gated) return false;
        c.gated = false;
        line.remove(c);
        return true;
    }

    /** The oldest call waiting, if a place is free: taken out of the line. */
    Call next(CallTable table) {
        if (line.isEmpty() || inFlight(table) >= cap) return null;
        Call c = line.poll();
        c.gated = false;
        return c;
    }

    /** A parked caller was let through: it counts until it takes its id ({@link #registered}) or gives up. */
    void admit(Call c) {
        keep(c);
        conduit.lock.unparkAfterUnlock(c.waiter);
    }

    /** A place for c, which found room: it counts until c takes its id ({@link #registered}). */
    void keep(Call c) {
        c.admitted = true;
        admitted++;
    }

    /** c took its id (or gave up after it was let through): its place is the id's now (or free). */
    void registered(Call c) {
        if (!c.admitted) return;
        c.admitted = false;
        admitted--;
    }

    /** Every call waiting (a failure ends them all): taken out of the line. */
    void drain(Consumer<Call> action) {
        Call c;
        while ((c = line.poll()) != null) {
            c.gated = false;
            action.accept(c);
        }
    }

    /**
     * Under the in-flight cap: keeps a place for c and returns at once while there is room (nothing waits before c);
     * else the request of a future (a copy) or of a passenger (into its call's own buffer: nothing allocated once it is
     * big enough) is held in the gate (false: it is sent when room comes, and the caller waits as for a sent call), and
     * any other caller parks in the gate until an answer lets it through (true), within the receive timeout
     * (ETIMEDOUT, EINTR, or the failure that broke the client).
     */
    boolean waitForRoom(Call c, int type, MemorySegment payload, long offset, long length) throws ErrnoException {
        Thread me = Thread.currentThread();
        long deadline = conduit.deadline(c.startNanos);
        conduit.lock.lock();
        try {
            conduit.usable();
            if (!mustWait(conduit.table)) {
                keep(c); // its place, until it takes its id: no other caller takes it meanwhile
                return true;
            }
            if (conduit.holder == me && c.kind != Call.Kind.FUTURE) {
                if (conduit.holderMode != Conduit.EXCLUSIVE) return true; // a completion's call: refused below
                throw new ErrnoException("client(" + conduit.name + ")", Errno.EAGAIN, "maxInFlight " + cap()
                        + ": every place is taken"
                        + " and this thread's pipeline does the client's I/O: poll its answers first");
            }
            c.type = type;
            c.id = 0; // no id while it waits here (a thread's own call still holds its last one)
            c.state = Call.WAITING;
            add(c);
            if (c.kind == Call.Kind.FUTURE || c.passenger) {
                c.unsentPayload = c.passenger ? c.hold(payload, offset, length)
                        : Outbox.copyOf(payload, offset, length);
                c.unsentOffset = 0;
                c.unsentLength = length;
                return false;
            }
        } finally {
            conduit.lock.unlock();
        }
        while (true) {
            String why = null;
            boolean timedOut = false;
            conduit.lock.lock();
            try {
                if (c.admitted) return true;
                if (conduit.closed || conduit.broken != null) {
                    remove(c);
                    conduit.usable();
                }
                if (me.isInterrupted()) {
                    why = "interrupted while waiting for room under maxInFlight " + cap();
                } else if (deadline != 0 && deadline - System.nanoTime() <= 0) {
                    timedOut = true;
                }
                if (why != null || timedOut) {
                    remove(c);
                    c.state = Call.IDLE;
                }
            } finally {
                conduit.lock.unlock();
            }
            if (timedOut) throw conduit.ends().timedOut(c);
            if (why != null) throw conduit.ends().interrupted(c, why);
            if (deadline == 0) LockSupport.park(this);
            else LockSupport.parkNanos(this, deadline - System.nanoTime());
        }
    }

    /**
     * Under the conduit's lock, when a call left the table (answered, failed, given up): lets the oldest
     * calls in the gate through while there is room. A future's request goes into the send queue (or the
     * unsent list) for the holder; a parked caller is woken to send its own.
     */
    void admitRoom() {
        Call g;
        while ((g = next(conduit.table)) != null) {
            if (g.kind != Call.Kind.FUTURE && !g.passenger) {
                admit(g);
                continue;
            }
            conduit.table.register(g, g.type);
            conduit.calls++;
            conduit.bytesSent += RequestHeader.SIZE + g.unsentLength;
            if (conduit.queue.append(g.id, g.type, g.unsentPayload, 0, g.unsentLength)) {
                g.unsentPayload = null;
            } else {
                g.unsent = true;
                conduit.outbox.unsent.add(g);
            }
            conduit.wantIo(true);
        }
    }
}
