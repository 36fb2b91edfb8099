package org.sysframe.transport.internal.server;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * A server's requests, the answers it gave with an error status, and the bytes of the frames it read
 * and wrote (headers included). Each loop thread (its channels' connections too) counts into a {@link Cell} of its
 * own, which only it writes: each count is a load and a store, not an atomic instruction. Any thread
 * reads the sums: the cells' last values, plus those of the loops that ended.
 */
public final class ServerCounts {
    private final List<Cell> live = new ArrayList<>(); // under this
    private final Cell retired = new Cell(); // the counts of the loops that ended, written under this

    /** A cell for the calling loop thread's counts, counted in the sums until {@link #retire} (its thread ended). */
    synchronized Cell cell() {
        Cell c = new Cell();
        live.add(c);
        return c;
    }

    /** The cell's thread ended (it counts no more): its counts stay in the sums, the cell goes. */
    synchronized void retire(Cell c) {
        if (live.remove(c)) retired.add(c);
    }

    public long requests() { return sum(Cell::requests); }

    public long errors() { return sum(Cell::errors); }

    public long bytesReceived() { return sum(Cell::bytesReceived); }

    public long bytesSent() { return sum(Cell::bytesSent); }

    /** One count of the loops that ended, plus that of every live cell. */
    private synchronized long sum(ToLongFunction<Cell> count) {
        long n = count.applyAsLong(retired);
        for (Cell c : live) n += count.applyAsLong(c);
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

        /** Adds o's counts to this cell's (the retired loops' cell, by the holder of the counts' lock). */
        void add(Cell o) {
            REQUESTS.setOpaque(this, requests + o.requests());
            ERRORS.setOpaque(this, errors + o.errors());
            RECEIVED.setOpaque(this, bytesReceived + o.bytesReceived());
            SENT.setOpaque(this, bytesSent + o.bytesSent());
        }

        long requests() { return (long) REQUESTS.getOpaque(this); }

        long errors() { return (long) ERRORS.getOpaque(this); }

        long bytesReceived() { return (long) RECEIVED.getOpaque(this); }

        long bytesSent() { return (long) SENT.getOpaque(this); }
    }
}
