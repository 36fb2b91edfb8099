package org.sysframe.transport.internal.io;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.IovArray;

import java.lang.foreign.MemorySegment;

/**
 * Bytes a connection's socket would not take yet, in order, up to a limit. While it holds any, the
 * connection watches for room to write instead of reading (it owns switching that interest on and off
 * through its {@link Outlet}), so a client that does not read cannot make the server buffer more than
 * one batch. Its memory is a {@link ByteFifo} (grows by doubling, its own mapping, taken from the
 * server's {@link MemoryBudget}), given back (to the kernel and the budget) once it drains.
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
public final class UnsentQueue {
    private final Outlet outlet;
    private final long limit;
    private final ByteFifo fifo;
    private boolean watching;

    public UnsentQueue(Outlet outlet, long limit, MemoryBudget budget) {
        this.outlet = outlet;
        this.limit = limit;
        this.fifo = new ByteFifo(Math.min(64 * 1024, limit), limit, budget);
    }

    public boolean isEmpty() { return fifo.isEmpty(); }

    /** Bytes queued now. */
    public long size() { return fifo.size(); }

    /** Whether n more bytes stay within the limit. */
    public boolean fits(long n) { return size() + n <= limit; }

    public long limit() { return limit; }

    /**
     * Queues header[skip..hlen) then payload (less what skip covers past the header): a message of
     * which skip bytes were written already. The caller checked {@link #fits}. False (nothing queued)
     * when the memory for it is not in the server's budget (or not to be had).
     */
    public boolean append(MemorySegment header, int hlen, MemorySegment payload, long off, long len, long skip) throws ErrnoException {
        if (!fifo.reserve(hlen + len - skip)) return false;
        if (skip < hlen) {
            fifo.append(header, skip, hlen - skip);
            skip = 0;
        } else {
            skip -= hlen;
        }
        if (len - skip > 0) fifo.append(payload, off + skip, len - skip);
        watch(true);
        return true;
    }

    /** Queues what a partial gathering write left in iov. The caller checked {@link #fits}. False as {@link #append}. */
    public boolean appendRemaining(IovArray iov) throws ErrnoException {
        long rest = iov.remaining();
        if (!fifo.reserve(rest)) return false;
        iov.copyRemainingTo(fifo.memory(), fifo.end());
        fifo.produced(rest);
        watch(true);
        return true;
    }

    /** Sends what is queued; true once all is out (the memory is given back and reading resumes). */
    public boolean drain() throws ErrnoException {
        if (!fifo.isEmpty()) {
            fifo.consumed(outlet.send(fifo.memory(), fifo.start(), fifo.size()));
            if (!fifo.isEmpty()) return false;
        }
        fifo.free();
        watch(false);
        return true;
    }

    private void watch(boolean on) throws ErrnoException {
        if (watching == on) return;
        watching = on;
        outlet.wantWritable(on);
    }

    public void close() { fifo.free(); }
}
