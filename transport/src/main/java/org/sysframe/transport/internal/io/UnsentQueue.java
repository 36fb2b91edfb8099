package org.sysframe.transport.internal.io;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.IovArray;
import org.sysframe.unix.PageMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Bytes a connection's socket would not take yet, in order, up to a limit. While it holds any, the
 * connection watches for room to write instead of reading (it owns switching that interest on and off
 * through its {@link Outlet}), so a client that does not read cannot make the server buffer more than
 * one batch. Its memory grows by doubling, is its own mapping ({@link PageMemory}) taken from the
 * server's {@link MemoryBudget}, and is given back (to the kernel and the budget) once it drains.
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
public final class UnsentQueue {
    private final Outlet outlet;
    private final long limit;
    private final MemoryBudget budget;
    private Arena arena;
    private MemorySegment bytes;
    private long start;
    private long end;
    private boolean watching;

    public UnsentQueue(Outlet outlet, long limit, MemoryBudget budget) {
        this.outlet = outlet;
        this.limit = limit;
        this.budget = budget;
    }

    public boolean isEmpty() { return end == start; }

    /** Bytes queued now. */
    public long size() { return end - start; }

    /** Whether n more bytes stay within the limit. */
    public boolean fits(long n) { return size() + n <= limit; }

    public long limit() { return limit; }

    /**
     * Queues header[skip..hlen) then payload (less what skip covers past the header): a message of
     * which skip bytes were written already. The caller checked {@link #fits}. False (nothing queued)
     * when the memory for it is not in the server's budget (or not to be had).
     */
    public boolean append(MemorySegment header, int hlen, MemorySegment payload, long off, long len, long skip) throws ErrnoException {
        if (!reserve(hlen + len - skip)) return false;
        if (skip < hlen) {
            MemorySegment.copy(header, skip, bytes, end, hlen - skip);
            end += hlen - skip;
            skip = 0;
        } else {
            skip -= hlen;
        }
        if (len - skip > 0) {
            MemorySegment.copy(payload, off + skip, bytes, end, len - skip);
            end += len - skip;
        }
        watch(true);
        return true;
    }

    /** Queues what a partial gathering write left in iov. The caller checked {@link #fits}. False as {@link #append}. */
    public boolean appendRemaining(IovArray iov) throws ErrnoException {
        long rest = iov.remaining();
        if (!reserve(rest)) return false;
        iov.copyRemainingTo(bytes, end);
        end += rest;
        watch(true);
        return true;
    }

    /** Sends what is queued; true once all is out (the memory is given back and reading resumes). */
    public boolean drain() throws ErrnoException {
        start += outlet.send(bytes, start, end - start);
        if (start < end) return false;
        free();
        start = end = 0;
        watch(false);
        return true;
    }

    private void watch(boolean on) throws ErrnoException {
        if (watching == on) return;
        watching = on;
        outlet.wantWritable(on);
    }

    private boolean reserve(long n) {
        if (bytes != null && end + n <= bytes.byteSize()) return true;
        long used = size();
        long capacity = bytes == null ? 64 * 1024 : bytes.byteSize();
        while (capacity < used + n) capacity *= 2;
        capacity = Math.min(capacity, limit);
        if (!budget.tryTake(capacity)) return false;
        Arena next = Arena.ofConfined();
        MemorySegment bigger;
        try {
            bigger = PageMemory.map(capacity, next);
        } catch (ErrnoException e) {
            next.close();
            budget.give(capacity);
            return false;
        }
        if (used > 0) MemorySegment.copy(bytes, start, bigger, 0, used);
        free();
        arena = next;
        bytes = bigger;
        start = 0;
        end = used;
        return true;
    }

    private void free() {
        if (arena == null) return;
        budget.give(bytes.byteSize());
        arena.close();
        arena = null;
        bytes = null;
    }

    public void close() { free(); }
}
