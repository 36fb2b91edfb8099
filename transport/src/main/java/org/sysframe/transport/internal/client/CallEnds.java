package org.sysframe.transport.internal.client;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;

/**
 * How a call of one {@link Conduit} ends without its answer: abandoned by its caller (a timeout, an
 * interrupt), and the error the caller then throws, ETIMEDOUT or EINTR, counted among the connection's
 * failed calls. Every entry point (blocking, async, under the in-flight cap) ends a call through here, so
 * each ending has one text and one count.
 */
public final class CallEnds {
    private final Conduit conduit;

    CallEnds(Conduit conduit) {
        this.conduit = conduit;
    }

    /**
     * Marks a waiting call abandoned (its id stays taken until its answer comes, then dropped); false if it was
     * answered or failed first.
     */
    public boolean abandon(Call c) {
        Conduit cd = conduit;
        cd.lock.lock();
        try {
            cd.waiting.remove(c);
            if (!c.cas(Call.WAITING, Call.ABANDONED)) return false;
            if (cd.gate.remove(c)) { // a future's request still in the gate: never registered, never sent
                c.unsentPayload = null;
                return true;
            }
            cd.table.abandoned(c);
            if (c.unsent) { // never sent: no answer will come
                c.unsent = false;
                c.unsentPayload = null;
                cd.outbox.unsent.remove(c);
                cd.removed(c);
            }
            if (cd.holder == null) cd.offerRole();
            return true;
        } finally {
            cd.lock.unlock();
        }
    }

    /**
     * A call's ETIMEDOUT: not sent (it waited for room under the in-flight cap), or unanswered, then saying
     * so when the server looks like one that answers one request per read ({@link StallWatch}).
     */
    public ErrnoException timedOut(Call c) {
        Conduit cd = conduit;
        String hint;
        cd.lock.lock();
        try {
            cd.failed++;
            cd.timedOutCalls++;
            hint = c.id == 0 ? "" : cd.stall.hint(c, cd.name, cd.gate.cap());
        } finally {
            cd.lock.unlock();
        }
        String within = " within the receive timeout of " + cd.receiveTimeoutMillis() + " ms";
        if (c.id == 0) {
            return new ErrnoException(cd.router.typeName(c.type), Errno.ETIMEDOUT, "no room under maxInFlight "
                    + cd.gate.cap() + within + ": the calls in flight were not answered (the request was not sent)");
        }
        return new ErrnoException(cd.router.typeName(c.type), Errno.ETIMEDOUT, "no answer to request " + c.id
                + within + " (the client stays usable; a late answer is dropped)" + hint);
    }

    /** A call interrupted while it waited: EINTR, counted among the failed calls. */
    ErrnoException interrupted(Call c, String why) {
        Conduit cd = conduit;
        cd.lock.lock();
        try {
            cd.failed++;
        } finally {
            cd.lock.unlock();
        }
        return new ErrnoException(cd.router.typeName(c.type), Errno.EINTR, why);
    }
}
