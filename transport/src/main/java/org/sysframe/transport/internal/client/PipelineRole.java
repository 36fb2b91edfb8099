package org.sysframe.transport.internal.client;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;

import java.util.concurrent.locks.LockSupport;

/**
 * A pipeline's hold on its client: it takes the I/O role for as long as it is open (its thread then
 * sends and receives for every caller), and takes its requests' ids from the client's call table,
 * so that no call of another thread gets one of them; an answer the pipeline no longer waits for is
 * dropped by the client's router as late.
 */
public final class PipelineRole {
    private final Conduit conduit;

    public PipelineRole(Conduit conduit) {
        this.conduit = conduit;
    }

    /** Takes the role for a pipeline, waiting within the receive timeout for the holder to leave. */
    public void acquire() throws ErrnoException {
        Thread me = Thread.currentThread();
        long deadline = conduit.deadline(System.nanoTime());
        while (true) {
            conduit.lock.lock();
            try {
                conduit.usable();
                if (conduit.holder == me) throw new IllegalStateException("GroutClient(" + conduit.name
                        + "): one pipeline at a time");
                if (conduit.holder == null) {
                    conduit.take(me, Conduit.EXCLUSIVE);
                    return;
                }
                if (conduit.holderMode == Conduit.IDLE) conduit.nudge();
            } finally {
                conduit.lock.unlock();
            }
            if (deadline != 0 && deadline - System.nanoTime() <= 0) {
                throw new ErrnoException("client(" + conduit.name + ")", Errno.ETIMEDOUT,
                        "the connection stayed busy for the receive timeout of "
                        + conduit.receiveTimeoutMillis() + " ms: no pipeline could start");
            }
            LockSupport.parkNanos(this, 50_000);
        }
    }

    /**
     * A pipeline reserves ids for its coming requests (their answers go to the pipeline's poll): up to want of them
     * into ids, in the order the client's call table hands them out, under one lock; returns how many, 0 when the
     * client's in-flight cap has no room (ClientOptions.maxInFlight). Under a cap, one at a time: a caller waiting for
     * room is let in before the pipeline's next request.
     */
    public int reserve(int[] ids, int want) throws ErrnoException {
        conduit.lock.lock();
        try {
            conduit.usable();
            if (conduit.gate.capped()) want = Math.min(want, 1);
            int n = 0;
            while (n < want && conduit.gate.room(conduit.table) && conduit.gate.waiting() == 0) {
                if (conduit.table.full()) {
                    if (n > 0) break;
                    throw new ErrnoException("pipeline", Errno.ENOBUFS,
                            "no free request id: every id is in flight or abandoned");
                }
                Call c = conduit.table.take(Call.Kind.PIPELINE); // a placeholder holding the id
                conduit.table.registerPlaceholder(c);
                ids[n++] = c.id;
            }
            return n;
        } finally {
            conduit.lock.unlock();
        }
    }

    /** The pipeline sends n requests of bytes in all (headers included): the client's counts. */
    public void sent(int n, long bytes) {
        conduit.lock.lock();
        try {
            conduit.calls += n;
            conduit.bytesSent += bytes;
        } finally {
            conduit.lock.unlock();
        }
    }

    /**
     * The pipeline got the answers of ids[from..to), gave their requests up and their late answers came, or never sent
     * them: the ids are free again, given back under one lock. (An id the pipeline closes with while its request is
     * unanswered is left reserved: the client drops its late answer.)
     */
    public void unreserve(int[] ids, int from, int to) {
        conduit.lock.lock();
        try {
            for (int i = from; i < to; i++) {
                Call c = conduit.table.get(ids[i]);
                // (Not another thread's call: a lying server's second answer to the id may have freed it meanwhile.)
                if (c == null || c.kind != Call.Kind.PIPELINE) continue;
                conduit.removed(c);
                conduit.table.recycle(c);
            }
        } finally {
            conduit.lock.unlock();
        }
    }

    /** An answer came for an id the pipeline holds and has not sent: no call had it (the client's count). */
    public void unmatched() {
        conduit.lock.lock();
        try {
            conduit.router.unmatched++;
        } finally {
            conduit.lock.unlock();
        }
    }

    /**
     * The pipeline holds n ids in the call table for requests it has not queued yet: they are not calls in flight
     * ({@link org.sysframe.transport.ClientStats#inFlight}, a connection's load).
     */
    public void held(int n) { conduit.table.held = n; }

    /** The pipeline closed: the role goes to whoever waits. */
    public void release() { conduit.release(); }
}
