package org.sysframe.transport.internal.io;

import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.PageMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A server connection's input: bytes received and not yet consumed, in a small buffer of the
 * configured size lent by its loop's {@link Pool} while it holds bytes (an idle connection holds
 * none: {@link #ready()} takes one before a receive, and it goes back as soon as every byte was
 * consumed), or a large one ({@value #LARGE} bytes: a header and GR_API_MAX_MSG_LEN) while large
 * requests come. The large buffer is its own mapping ({@link PageMemory}), taken from the server's
 * {@link MemoryBudget}: when the budget has no room, {@link #compact} says so and the connection waits
 * for it. It is given back (to the kernel and to the budget) once the client has stopped sending large
 * requests for {@value #RELEASE_AFTER} batches, or when the loop's timer finds it unused since its last
 * check ({@link #releaseIfUnused()}), or at close: allocating (and zeroing) 128 KiB per request would
 * cost more than the request. One thread only; freed by {@link #close()}.
 */
public final class InputBuffer {
    /** Batches without need before the large buffer is given back. */
    static final int RELEASE_AFTER = 256;
    /** Bytes of the large buffer (what it takes from the budget). */
    public static final int LARGE = RequestHeader.SIZE + GroutApi.MAX_MSG_LEN;

    private final Pool<NativeBuffer> pool;
    private final int smallSize;
    private final MemoryBudget budget;
    private NativeBuffer lent;   // the small buffer, while it holds bytes (or a receive is about to fill it)
    private MemorySegment in;    // the small buffer's memory, the large buffer, or null (idle)
    private Arena largeArena;
    private boolean lastLarge;
    private boolean usedSinceCheck;
    private int largeIdle;
    private int start;
    private int end;

    /** An input whose small buffers, of smallSize bytes, come from pool, and whose large one from budget. */
    public InputBuffer(Pool<NativeBuffer> pool, int smallSize, MemoryBudget budget) {
        this.pool = pool;
        this.smallSize = smallSize;
        this.budget = budget;
    }

    /** Before a receive: takes a small buffer from the pool if none is held (an idle connection's). */
    public void ready() {
        if (in != null) return;
        lent = pool.take();
        in = lent.segment();
    }

    /** After a receive that brought nothing (EAGAIN): an input that holds no byte gives its buffer back. */
    public void unused() {
        if (start == end && !isLarge()) giveBack();
    }

    private void giveBack() {
        if (lent == null) return;
        if (!isLarge()) in = null;
        pool.give(lent);
        lent = null;
    }

    /** The memory to receive into, at {@link #end()}, at most {@link #free()} bytes (after {@link #ready()}). */
    public MemorySegment segment() { return in; }

    public int start() { return start; }

    public int end() { return end; }

    public long free() { return in == null ? 0 : in.byteSize() - end; }

    /** Bytes received and not consumed. */
    public int available() { return end - start; }

    /** Whether the large buffer is in use now. */
    public boolean isLarge() { return largeArena != null; }

    /** n bytes were received at {@link #end()}. */
    public void produced(long n) { end += (int) n; }

    /** One whole message of total bytes at {@link #start()} was handled. */
    public void consume(int total) {
        start += total;
        lastLarge = total > smallSize;
        if (lastLarge) {
            largeIdle = 0;
            usedSinceCheck = true;
        }
    }

    /**
     * At the end of a batch: makes room for the rest of a partial message of need bytes (0 when even
     * its header is incomplete), moving it to the buffer's start or into the large buffer. False when
     * the message needs the large buffer and the memory budget has no room for it now (the bytes stay
     * where they are; call again later).
     */
    public boolean compact(int need, int headerSize) {
        if (start == end) {
            start = end = 0;
            if (isLarge() && !lastLarge && ++largeIdle >= RELEASE_AFTER) release();
            if (!isLarge()) giveBack(); // idle: the connection holds no input memory
            return true;
        }
        if (need == 0) need = headerSize;
        if (need > in.byteSize()) {
            if (!budget.tryTake(LARGE)) {
                moveToStart();
                return false;
            }
            Arena a = Arena.ofConfined();
            MemorySegment bigger;
            try {
                bigger = PageMemory.map(LARGE, a);
            } catch (ErrnoException e) {
                a.close();
                budget.give(LARGE);
                moveToStart();
                return false; // out of memory: as good as no budget; the request timeout bounds the wait
            }
            MemorySegment.copy(in, start, bigger, 0, end - start);
            largeArena = a;
            in = bigger;
            usedSinceCheck = true;
            giveBack(); // the large buffer holds the bytes now
        } else if (start + need > in.byteSize()) {
            MemorySegment.copy(in, start, in, 0, end - start);
        } else {
            return true;
        }
        end -= start;
        start = 0;
        return true;
    }

    private void moveToStart() {
        if (start == 0) return;
        MemorySegment.copy(in, start, in, 0, end - start);
        end -= start;
        start = 0;
    }

    /**
     * The loop's timer: gives the large buffer back if it holds nothing and no large message went
     * through it since the previous check; true if it did.
     */
    public boolean releaseIfUnused() {
        boolean used = usedSinceCheck;
        usedSinceCheck = false;
        if (!isLarge() || used || start != end) return false;
        release();
        return true;
    }

    private void release() {
        in = null; // empty: a small buffer is taken again by the next receive
        start = end = 0;
        largeArena.close();
        largeArena = null;
        budget.give(LARGE);
    }

    public void close() {
        if (largeArena != null) {
            largeArena.close();
            budget.give(LARGE);
        }
        largeArena = null;
        giveBack();
        in = null;
        start = end = 0;
    }
}
