package org.sysframe.transport.internal.client;

import java.util.ArrayDeque;
import java.util.concurrent.locks.LockSupport;

/**
 * The in-flight cap of a connection ({@code ClientOptions.maxInFlight}): calls beyond it wait here,
 * oldest first, before they take a request id, so that they wait in the client and not on the wire.
 * When an answer frees a place, the oldest is let through: a future's request (a copy) goes into the
 * send queue at once; a parked caller is woken and sends its own. Under the {@link Conduit}'s lock.
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
final class Gate {
    private final int cap;
    private final ArrayDeque<Call> line = new ArrayDeque<>();
    /** Callers let through that have not taken their id yet (they count as in flight). */
    private int admitted;

    Gate(int cap) {
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
        LockSupport.unpark(c.waiter);
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
    void drain(java.util.function.Consumer<Call> action) {
        Call c;
        while ((c = line.poll()) != null) {
            c.gated = false;
            action.accept(c);
        }
    }
}
