package org.sysframe.transport.internal.io;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.IovArray;

import java.lang.foreign.MemorySegment;

/**
 * A connection's one queue of unsent bytes, in order, up to a limit, and when the connection waits for
 * room. With a {@link Outlet.Direct} outlet (epoll) it holds what the socket would not take yet; with a
 * {@link Outlet.FromQueue} outlet (io_uring) it holds every byte not sent yet, and the outlet sends
 * from its memory: the first {@link Outlet.FromQueue#area()} bytes are that outlet's output area, the
 * counterpart of the socket's send buffer. Past the area (with a direct outlet: as soon as it holds
 * anything) the queue is <em>backed up</em>: the connection watches for room instead of reading (it
 * owns switching that interest on and off through its {@link Outlet}), so a client that does not read
 * cannot make the server buffer more than one batch past the limit.
 *
 * <p>Its memory is a {@link ByteFifo} (grows by doubling, its own mapping; what is past the area is
 * taken from the server's {@link MemoryBudget}). A direct outlet's queue gives its memory back once it
 * drains; a queue that an outlet sends from keeps its area's mapping for the next answer (the
 * outlet frees it when idle, and when the connection is done).
 */
public final class UnsentQueue {
    private final Outlet.Direct direct;       // null: the outlet sends from this queue
    private final Outlet.FromQueue sender;    // null: the outlet writes to the kernel itself
    private final Outlet outlet;
    private final long area;
    private final long limit;
    private final ByteFifo fifo;
    private boolean watching;

    /** The queue of outlet's connection: limit bytes at most past the outlet's area, the memory past it from budget. */
    public UnsentQueue(Outlet outlet, long limit, MemoryBudget budget) {
        this.outlet = outlet;
        this.direct = outlet instanceof Outlet.Direct d ? d : null;
        this.sender = outlet instanceof Outlet.FromQueue f ? f : null;
        if ((direct == null)
                == (sender == null)) throw new IllegalArgumentException("an outlet is either Direct or FromQueue: "
                        + outlet);
        this.area = sender == null ? 0 : sender.area();
        this.limit = limit;
        this.fifo = new ByteFifo(area > 0 ? area : Math.min(64 * 1024, limit), area + limit, budget, area,
                sender == null || area == 0 ? null : sender.areaMemory());
        if (sender != null) sender.attach(this);
    }

    /** Whether the outlet writes to the kernel itself (else it sends from this queue, and everything is queued). */
    public boolean direct() { return direct != null; }

    /** Nothing waits for room: the queue is empty, or holds no more than the outlet's area. */
    public boolean caughtUp() { return fifo.size() <= area; }

    public boolean isEmpty() { return fifo.isEmpty(); }

    /** Bytes queued now (the area's included). */
    public long size() { return fifo.size(); }

    /** Whether n more bytes stay within the limit (past the area). */
    public boolean fits(long n) { return size() + n <= area + limit; }

    /** Bytes that may wait past the area. */
    public long limit() { return limit; }

    /** The memory of the bytes queued: for the outlet that sends from it. */
    public ByteFifo bytes() { return fifo; }

    /**
     * Queues header[skip..hlen) then payload (less what skip covers past the header): a message of
     * which skip bytes were written already. The caller checked {@link #fits}. False (nothing queued)
     * when the memory for it is not in the server's budget (or not to be had).
     */
    public boolean append(MemorySegment header, int hlen, MemorySegment payload, long off, long len,
            long skip) throws ErrnoException {
        if (!fifo.reserve(hlen + len - skip)) return false;
        if (skip < hlen) {
            fifo.append(header, skip, hlen - skip);
            skip = 0;
        } else {
            skip -= hlen;
        }
        if (len - skip > 0) fifo.append(payload, off + skip, len - skip);
        queued();
        return true;
    }

    /**
     * Queues what a partial gathering write left in iov (all of it when nothing was written). The caller checked
     * {@link #fits}. False as {@link #append}.
     */
    public boolean appendRemaining(IovArray iov) throws ErrnoException {
        long rest = iov.remaining();
        if (!fifo.reserve(rest)) return false;
        iov.copyRemainingTo(fifo.memory(), fifo.end());
        fifo.produced(rest);
        iov.advance(rest);
        queued();
        return true;
    }

    private void queued() throws ErrnoException {
        if (sender != null) sender.queued();
        if (!caughtUp()) watch(true);
    }

    /**
     * The socket has room: a direct outlet sends what is queued. True once nothing waits for room (the
     * queue is empty, or within the area of an outlet that sends from it): reading resumes, and a
     * direct outlet's memory is given back.
     */
    public boolean drain() throws ErrnoException {
        if (direct != null) {
            if (!fifo.isEmpty()) {
                fifo.consumed(direct.send(fifo.memory(), fifo.start(), fifo.size()));
                if (!fifo.isEmpty()) return false;
            }
            fifo.free();
        } else if (!caughtUp()) {
            return false;
        }
        watch(false);
        return true;
    }

    private void watch(boolean on) throws ErrnoException {
        if (watching == on) return;
        watching = on;
        outlet.wantWritable(on);
    }

    /**
     * The connection closed: a direct outlet's queue is dropped and its memory given back (what the
     * kernel took is the kernel's). A queue an outlet sends from keeps its area's bytes, the socket
     * buffer's counterpart, for that outlet to finish sending (it frees the memory when done), and
     * drops the rest.
     */
    public void close() {
        if (direct != null) {
            fifo.free();
        } else {
            fifo.truncate(area);
        }
    }
}
