package org.sysframe.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A server connection's input: bytes received and not yet consumed, in a small buffer of the
 * configured size, or a 128 KiB one while large requests come. The large buffer is given back once
 * the client has stopped sending large requests for {@value #RELEASE_AFTER} batches: allocating (and
 * zeroing) 128 KiB per request would cost more than the request. One thread only; freed by {@link #close()}.
 */
final class InputBuffer {
    /** Batches without need before the large buffer is given back. */
    static final int RELEASE_AFTER = 256;

    private final MemorySegment small;
    private MemorySegment in;
    private Arena largeArena;
    private boolean lastLarge;
    private int largeIdle;
    private int start;
    private int end;

    InputBuffer(Arena arena, int size) {
        this.small = arena.allocate(size, 8);
        this.in = small;
    }

    /** The memory to receive into, at {@link #end()}, at most {@link #free()} bytes. */
    MemorySegment segment() { return in; }

    int start() { return start; }

    int end() { return end; }

    long free() { return in.byteSize() - end; }

    /** Bytes received and not consumed. */
    int available() { return end - start; }

    /** Whether the large buffer is in use now. */
    boolean isLarge() { return in != small; }

    /** n bytes were received at {@link #end()}. */
    void produced(long n) { end += (int) n; }

    /** One whole message of total bytes at {@link #start()} was handled. */
    void consume(int total) {
        start += total;
        lastLarge = total > small.byteSize();
        if (lastLarge) largeIdle = 0;
    }

    /**
     * At the end of a batch: makes room for the rest of a partial message of need bytes (0 when even
     * its header is incomplete), moving it to the buffer's start or into the large buffer.
     */
    void compact(int need, int headerSize) {
        if (start == end) {
            start = end = 0;
            if (largeArena != null && isLarge() && !lastLarge && ++largeIdle >= RELEASE_AFTER) {
                in = small;
                largeArena.close();
                largeArena = null;
            }
            return;
        }
        if (need == 0) need = headerSize;
        if (need > in.byteSize()) {
            largeArena = Arena.ofConfined();
            MemorySegment bigger = largeArena.allocate(headerSize + GroutApi.MAX_MSG_LEN, 8);
            MemorySegment.copy(in, start, bigger, 0, end - start);
            in = bigger;
        } else if (start + need > in.byteSize()) {
            MemorySegment.copy(in, start, in, 0, end - start);
        } else {
            return;
        }
        end -= start;
        start = 0;
    }

    void close() {
        if (largeArena != null) largeArena.close();
        largeArena = null;
    }
}
