package org.sysframe.transport.internal.client;

import org.sysframe.transport.internal.io.MessagePump;
import org.sysframe.transport.wire.MessageSpecs;
import org.sysframe.transport.wire.ResponseHeader;

import java.lang.foreign.MemorySegment;

/**
 * Hands each message the I/O role's holder reads to whom it is for: an answer to the call waiting
 * for its id (copied into the call, its caller unparked or its future completed), a stream's item to
 * the stream, an event to the {@link Events}. An answer nobody waits for is counted and dropped:
 * unmatched (no call had its id) or late (its call gave up). Runs on the holder's thread.
 */
public final class Router implements MessagePump.Sink {
    /** Completes a future's call: its answer is in the call, or its error (called outside the lock). */
    public interface Completion {
        void complete(Call c);
    }

    private final Conduit conduit;
    private final MessageSpecs specs;
    private Completion completion;
    long unmatched, late; // under the conduit's lock
    /** Whether a caller was unparked since the holder last asked ({@link #tookWoken}); the holder's. */
    private boolean woken;

    Router(Conduit conduit, MessageSpecs specs) {
        this.conduit = conduit;
        this.specs = specs;
    }

    /** Who completes futures (the client, which knows how to make their answers). */
    public void completion(Completion c) { this.completion = c; }

    String typeName(int type) { return specs.name(type); }

    @Override
    public void response(int forId, int status, MemorySegment buffer, long offset, long length) {
        Call c;
        var lock = conduit.lock;
        lock.lock();
        try {
            conduit.bytesReceived += ResponseHeader.SIZE + length;
            c = conduit.table.get(forId);
            if (c == null) {
                unmatched++;
                return;
            }
            conduit.stall.answered(conduit.table.inFlight());
            if (c.kind == Call.Kind.STREAM) {
                boolean end = status != 0 || length == 0;
                if (end) conduit.removed(c);
                if (c.state == Call.ABANDONED) {
                    late++;
                    return;
                }
                c.addItem(status, buffer, offset, length);
                if (end) c.state = Call.DONE;
                Thread w = c.waiter;
                conduit.waiting.remove(c);
                if (w != Thread.currentThread()) wake(w);
                return;
            }
            conduit.removed(c);
            conduit.waiting.remove(c);
            if (c.state == Call.ABANDONED) {
                late++;
                conduit.table.recycle(c);
                return;
            }
        } finally {
            lock.unlock();
        }
        c.store(status, buffer, offset, length);
        Thread w = c.waiter;
        if (c.cas(Call.WAITING, Call.DONE)) {
            if (c.kind == Call.Kind.FUTURE) complete(c);
            else if (w != Thread.currentThread()) wake(w); // the holder's own answer: it is awake
            return;
        }
        lock.lock();
        try {
            late++;
            conduit.table.recycle(c);
        } finally {
            lock.unlock();
        }
    }

    /** Unparks w: once the lock is let go when this thread holds it, else at once. */
    private void wake(Thread w) {
        conduit.lock.unparkAfterUnlock(w);
        woken = true;
    }

    /** Whether the holder made callers runnable since it last asked (and forgets them). */
    boolean tookWoken() {
        boolean any = woken;
        woken = false;
        return any;
    }

    /**
     * A future's call is done or failed: its future completes (a future's call is its own, not pooled: nothing to give
     * back).
     */
    void complete(Call c) {
        completion.complete(c);
    }

    @Override
    public void event(int evType, MemorySegment buffer, long offset, long length) {
        conduit.events.arrived(evType, buffer, offset, length);
    }
}
