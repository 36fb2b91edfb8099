package org.sysframe.transport.internal.server;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * A server's requests, the answers it gave with an error status, and the bytes of the frames it read
 * and wrote (headers included). Each loop thread (a channel's too) counts into a {@link Cell} of its
 * own, which only it writes: each count is a load and a store, not an atomic instruction. Any thread
 * reads the sums: the cells' last values, plus those of the loops that ended.
 */
public final class ServerCounts {
    private final List<Cell> live = new ArrayList<>(); // under this
    private long retiredRequests, retiredErrors, retiredReceived, retiredSent; // under this

    /** A cell for the calling loop thread's counts, counted in the sums until {@link #retire} (its thread ended). */
    synchronized Cell cell() {
        Cell c = new Cell();
        live.add(c);
        return c;
    }

    /** The cell's thread ended (it counts no more): its counts stay in the sums, the cell goes. */
    synchronized void retire(Cell c) {
        if (!live.remove(c)) return;
        retiredRequests += c.requests();
        retiredErrors += c.errors();
        retiredReceived += c.bytesReceived();
        retiredSent += c.bytesSent();
    }

    public synchronized long requests() {
        long n = retiredRequests;
        for (Cell c : live) n += c.requests();
        return n;
    }

    public synchronized long errors() {
        long n = retiredErrors;
        for (Cell c : live) n += c.errors();
        return n;
    }

    public synchronized long bytesReceived() {
        long n = retiredReceived;
        for (Cell c : live) n += c.bytesReceived();
        return n;
    }

    public synchronized long bytesSent() {
        long n = retiredSent;
        for (Cell c : live) n += c.bytesSent();
        return n;
    }

    /**
     * One loop thread's counts: written by that thread only (its own last values read plainly, stored
     * opaquely, so that a reader never sees half a long), read by any.
     */
    static final class Cell {
        private static final VarHandle REQUESTS, ERRORS, RECEIVED, SENT;

        static {
            try {
                MethodHandles.Lookup l = MethodHandles.lookup();
                REQUESTS = l.findVarHandle(Cell.class, "requests", long.class);
                ERRORS = l.findVarHandle(Cell.class, "errors", long.class);
                RECEIVED = l.findVarHandle(Cell.class, "bytesReceived", long.class);
                SENT = l.findVarHandle(Cell.class, "bytesSent", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private long requests, errors, bytesReceived, bytesSent;

        /** A request of frameBytes (header and payload) was read and handed to its handler. */
        void request(long frameBytes) {
            REQUESTS.setOpaque(this, requests + 1);
            RECEIVED.setOpaque(this, bytesReceived + frameBytes);
        }

        /** An answer of frameBytes went to the output, with status (not 0: an error answer). */
        void answer(int status, long frameBytes) {
            if (status != 0) ERRORS.setOpaque(this, errors + 1);
            SENT.setOpaque(this, bytesSent + frameBytes);
        }

        /** An event of frameBytes went to the output. */
        void event(long frameBytes) { SENT.setOpaque(this, bytesSent + frameBytes); }

        long requests() { return (long) REQUESTS.getOpaque(this); }

        long errors() { return (long) ERRORS.getOpaque(this); }

        long bytesReceived() { return (long) RECEIVED.getOpaque(this); }

        long bytesSent() { return (long) SENT.getOpaque(this); }
    }
}
