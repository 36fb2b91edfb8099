package org.sysframe.transport.internal.io;

import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.PageMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A server connection's input: bytes received and not yet consumed, in a small buffer of the
 * configured size, or a large one ({@value #LARGE} bytes: a header and GR_API_MAX_MSG_LEN) while large
 * requests come. The large buffer is its own mapping ({@link PageMemory}), taken from the server's
 * {@link MemoryBudget}: when the budget has no room, {@link #compact} says so and the connection waits
 * for it. It is given back (to the kernel and to the budget) once the client has stopped sending large
 * requests for {@value #RELEASE_AFTER} batches, or when the loop's timer finds it unused since its last
 * check ({@link #releaseIfUnused()}), or at close: allocating (and zeroing) 128 KiB per request would
 * cost more than the request. One thread only; freed by {@link #close()}.
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
public final class InputBuffer {
    /** Batches without need before the large buffer is given back. */
    static final int RELEASE_AFTER = 256;
    /** Bytes of the large buffer (what it takes from the budget). */
    public static final int LARGE = RequestHeader.SIZE + GroutApi.MAX_MSG_LEN;

    private final MemorySegment small;
    private final MemoryBudget budget;
    private MemorySegment in;
    private Arena largeArena;
    private boolean lastLarge;
    private boolean usedSinceCheck;
    private int largeIdle;
    private int start;
    private int end;

    public InputBuffer(Arena arena, int size, MemoryBudget budget) {
        this.small = arena.allocate(size, 8);
        this.in = small;
        this.budget = budget;
    }

    /** The memory to receive into, at {@link #end()}, at most {@link #free()} bytes. */
    public MemorySegment segment() { return in; }

    public int start() { return start; }

    public int end() { return end; }

    public long free() { return in.byteSize() - end; }

    /** Bytes received and not consumed. */
    public int available() { return end - start; }

    /** Whether the large buffer is in use now. */
    public boolean isLarge() { return in != small; }

    /** n bytes were received at {@link #end()}. */
    public void produced(long n) { end += (int) n; }

    /** One whole message of total bytes at {@link #start()} was handled. */
    public void consume(int total) {
        start += total;
        lastLarge = total > small.byteSize();
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
        in = small;
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
        in = small;
    }
}
