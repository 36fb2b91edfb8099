package org.sysframe.transport.internal.io;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.PageMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A first-in first-out run of bytes in native memory that grows by doubling: bytes are appended at
 * {@link #end()} after {@link #reserve} made room, and taken from {@link #start()}. Its memory is a
 * mapping of its own ({@link PageMemory}), so that once freed it goes back to the kernel at once, not
 * into malloc's lists; with a {@link MemoryBudget}, every byte of capacity is taken from it first and
 * given back when freed (past a first part that is not budgeted, if one is given). The capacity never
 * passes the limit given (with the limit as the first capacity, it is a fixed buffer that
 * {@link #compact} keeps usable). While the kernel reads the bytes held (a SEND in flight,
 * {@link #pin}), they stay where they are: no compaction, and a growth keeps the old mapping until
 * {@link #unpin}. Used for a connection's unsent bytes ({@link UnsentQueue}) and by the io_uring driver
 * for what it received that its connection cannot take yet. With a {@link Pool} of first mappings
 * (buffers of the first capacity), the first mapping is lent by it and given back by {@link #free()},
 * so that an empty FIFO holds no memory at no syscall's cost. One owner thread.
 */
public final class ByteFifo {
    private final long initialCapacity;
    private final long limit;
    private final MemoryBudget budget; // null: not budgeted
    private final long unbudgeted;     // bytes of capacity not taken from the budget
    private Arena arena;
    private MemorySegment bytes;
    private long start;
    private long end;
    private boolean pinned;            // the kernel reads the bytes held: they must not move
    private Arena retired;             // the mapping the kernel reads, kept past a growth until unpin
    private long retiredSize;
    private final Pool<NativeBuffer> firstPool; // lends the first mapping, or null
    private NativeBuffer lent;                  // the first mapping, lent by firstPool, while held
    private NativeBuffer lentRetired;           // it, kept past a growth until unpin

    /** A FIFO whose first mapping has initialCapacity bytes, never more than limit; budget may be null. */
    public ByteFifo(long initialCapacity, long limit, MemoryBudget budget) {
        this(initialCapacity, limit, budget, 0);
    }

    /**
     * As {@link #ByteFifo(long, long, MemoryBudget)}, the first unbudgeted bytes of capacity not taken from the budget.
     */
    public ByteFifo(long initialCapacity, long limit, MemoryBudget budget, long unbudgeted) {
        this(initialCapacity, limit, budget, unbudgeted, null);
    }

    /**
     * As {@link #ByteFifo(long, long, MemoryBudget, long)}, the first mapping lent by firstPool (buffers of
     * initialCapacity bytes, which must not be budgeted: unbudgeted at least initialCapacity).
     */
    public ByteFifo(long initialCapacity, long limit, MemoryBudget budget, long unbudgeted,
            Pool<NativeBuffer> firstPool) {
        if (firstPool != null
                && unbudgeted
                        < initialCapacity) throw new IllegalArgumentException("a pooled first mapping is not budgeted");
        this.firstPool = firstPool;
        if (initialCapacity < 1 || limit < 1 || unbudgeted < 0) {
            throw new IllegalArgumentException("capacity " + initialCapacity + ", limit " + limit + ", unbudgeted "
                    + unbudgeted);
        }
        this.initialCapacity = initialCapacity;
        this.limit = limit;
        this.budget = budget;
        this.unbudgeted = unbudgeted;
    }

    /** The budget's share of a mapping of capacity bytes. */
    private long charge(long capacity) { return Math.max(0, capacity - unbudgeted); }

    public boolean isEmpty() { return end == start; }

    /** Bytes held. */
    public long size() { return end - start; }

    /** The bytes of the mapping now (0 when none is held). */
    public long capacity() { return bytes == null ? 0 : bytes.byteSize(); }

    /** The memory the bytes are in, from {@link #start()} to {@link #end()} (null before the first reserve). */
    public MemorySegment memory() { return bytes; }

    /** Offset of the first byte held. */
    public long start() { return start; }

    /** Offset after the last byte held: where the next bytes go. */
    public long end() { return end; }

    /**
     * Makes room for n more bytes at {@link #end()}: in place (moving the bytes held to the start if
     * need be, see {@link #compact}), or in a mapping twice (or more) as large, capped at the limit,
     * into which the bytes held move. False (nothing changed) when
     * size() + n passes the limit, the budget has no room, or no memory is to be had.
     */
    public boolean reserve(long n) {
        if (bytes != null && end + n <= bytes.byteSize()) return true;
        long used = size();
        if (used + n > limit) return false;
        if (bytes != null && !pinned && used + n <= bytes.byteSize()) {
            compact(); // room enough once the bytes taken are out of the way
            return true;
        }
        long capacity = bytes == null ? initialCapacity : bytes.byteSize();
        while (capacity < used + n) capacity *= 2;
        capacity = Math.min(capacity, limit);
        if (bytes == null && firstPool != null && capacity == initialCapacity) {
            lent = firstPool.take();
            bytes = lent.segment();
            start = end = 0;
            return true;
        }
        if (budget != null && !budget.tryTake(charge(capacity))) return false;
        Arena next = Arena.ofConfined();
        MemorySegment bigger;
        try {
            bigger = PageMemory.map(capacity, next);
        } catch (ErrnoException e) {
            next.close();
            if (budget != null) budget.give(charge(capacity));
            return false;
        }
        if (used > 0) MemorySegment.copy(bytes, start, bigger, 0, used);
        if (lent != null) {
            if (pinned) lentRetired = lent; // the kernel still reads it: unpin gives it back
            else firstPool.give(lent);
            lent = null;
        }
        if (arena != null) {
            if (pinned && retired == null) {
                retired = arena; // the kernel still reads it: unpin gives it back (it stays in the budget until then)
                retiredSize = bytes.byteSize();
            } else {
                release(arena, bytes.byteSize()); // not the memory the kernel reads: a copy made since
            }
        }
        arena = next;
        bytes = bigger;
        start = 0;
        end = used;
        return true;
    }

    /** Appends n bytes of from at off; the caller reserved room for them. */
    public void append(MemorySegment from, long off, long n) {
        MemorySegment.copy(from, off, bytes, end, n);
        end += n;
    }

    /** n bytes were written at {@link #end()} in place (after {@link #reserve}). */
    public void produced(long n) { end += n; }

    /** n bytes from {@link #start()} were taken; once all are, the next bytes go at the start again. */
    public void consumed(long n) {
        start += n;
        if (start == end) start = end = 0;
    }

    /**
     * Moves the bytes held to the start of the mapping, so that the room after them is all the
     * mapping has; only while nobody else (the kernel, a SEND in flight) reads the memory.
     */
    public void compact() {
        if (start == 0 || pinned) return;
        if (start < end) MemorySegment.copy(bytes, start, bytes, 0, end - start);
        end -= start;
        start = 0;
    }

    /** Keeps the first n bytes held and drops the rest. */
    public void truncate(long n) {
        if (n < size()) end = start + Math.max(0, n);
        if (start == end && !pinned) start = end = 0;
    }

    /**
     * The kernel reads the bytes held from their place now (a SEND in flight): until {@link #unpin}
     * they do not move, and a growth leaves the mapping they are in mapped.
     */
    public void pin() { pinned = true; }

    /** The kernel is done with the memory: a mapping left by a growth meanwhile is given back. */
    public void unpin() {
        pinned = false;
        if (lentRetired != null) {
            firstPool.give(lentRetired);
            lentRetired = null;
        }
        if (retired == null) return;
        release(retired, retiredSize);
        retired = null;
    }

    private void release(Arena mapping, long size) {
        if (budget != null) budget.give(charge(size));
        mapping.close();
    }

    public boolean pinned() { return pinned; }

    /**
     * Drops the bytes held and gives the memory back (to the kernel and the budget); reserve maps anew.
     * Not while pinned (the kernel reads the memory).
     */
    public void free() {
        if (pinned) throw new IllegalStateException("freeing memory the kernel reads");
        start = end = 0;
        if (lent != null) {
            firstPool.give(lent);
            lent = null;
            bytes = null;
            return;
        }
        if (arena == null) return;
        release(arena, bytes.byteSize());
        arena = null;
        bytes = null;
    }
}
