package org.sysframe.transport.internal.client;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * How a client's calls end together: a failure that puts the byte stream out of step fails every call
 * in flight with it (each caller gets its own copy of the error) and breaks the client; close does the
 * same with ENOTCONN, shuts the socket down (which ends the holder's receive) and frees the memory and the
 * descriptor once no thread does the I/O any more.
 */
final class CloseProtocol {
    private final Conduit conduit;

    CloseProtocol(Conduit conduit) {
        this.conduit = conduit;
    }

    /** Breaks the connection with e: every call in flight fails with it. */
    void failAll(ErrnoException e) {
        List<Call> futures = null;
        conduit.lock.lock();
        try {
            if (conduit.broken == null) conduit.broken = conduit.closed ? closedError() : e;
            ErrnoException cause = conduit.broken;
            List<Call> ended = new ArrayList<>();
            conduit.table.forEach(ended::add);
            conduit.gate.drain(ended::add); // calls waiting for room under the cap (never sent) end the same way
            for (Call c : ended) {
                conduit.table.remove(c);
                conduit.waiting.remove(c);
                c.error = cause;
                Thread w = c.waiter;
                if (c.cas(Call.WAITING, Call.FAILED)) {
                    conduit.failed++;
                    if (c.kind == Call.Kind.FUTURE) {
                        if (futures == null) futures = new ArrayList<>();
                        futures.add(c);
                    } else if (w != Thread.currentThread()) {
                        LockSupport.unpark(w);
                    }
                } else if (c.state == Call.ABANDONED) {
                    conduit.table.recycle(c);
                }
            }
            conduit.queue.clear();
            conduit.outbox.unsent.clear();
            conduit.events.wakeAll();
            conduit.standby.offer();
        } finally {
            conduit.lock.unlock();
        }
        if (futures != null) for (Call c : futures) conduit.router.complete(c);
    }

    static ErrnoException copyOf(ErrnoException e) {
        String prefix = e.call() + ": " + e.errnoName() + " (" + e.errno() + ") " + e.strerror();
        String m = e.getMessage();
        if (m.length() > prefix.length() + 2 && m.startsWith(prefix + ": ")) {
            return new ErrnoException(e.call(), e.errno(), m.substring(prefix.length() + 2));
        }
        return new ErrnoException(e.call(), e.errno());
    }

    ErrnoException closedError() {
        return new ErrnoException("client(" + conduit.name + ")", Errno.ENOTCONN,
                "the client was closed while the call waited");
    }

    /**
     * Fails every waiting call, runs shutdown (which ends a holder's receive) and waits, at most 2 s, for
     * the holder to leave; the memory and the descriptor go then (onLastExit), or when the holder leaves.
     * True when this call closed it (false: closed already).
     */
    boolean close(Runnable shutdown) {
        conduit.lock.lock();
        try {
            if (conduit.closed) return false;
            conduit.closed = true;
        } finally {
            conduit.lock.unlock();
        }
        failAll(closedError());
        // A syscall: outside the lock (its waiters would spin and yield meanwhile). The descriptor stays open until
        // the memory goes, so no other thread's call reaches another file under its number.
        shutdown.run();
        boolean free;
        conduit.lock.lock();
        try {
            if (conduit.holder != null) conduit.nudge();
            conduit.standby.offer();
            Thread me = Thread.currentThread();
            long until = System.nanoTime() + 2_000_000_000L;
            while (conduit.holder != null && conduit.holder != me && System.nanoTime() - until < 0) {
                conduit.lock.unlock();
                try {
                    LockSupport.parkNanos(this, 1_000_000L);
                } finally {
                    conduit.lock.lock();
                }
            }
            free = conduit.holder == null; // a holder (this thread, in a completion, say) frees it as it leaves
            conduit.memoryMayGo = true;
        } finally {
            conduit.lock.unlock();
        }
        if (free) conduit.onLastExit.run();
        return true;
    }
}
