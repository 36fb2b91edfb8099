package org.sysframe.transport.internal.client;

import org.sysframe.transport.wire.RequestHeader;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The requests of callers that found another caller doing the client's I/O: each is copied in, header
 * and payload, and the caller holding the I/O role sends all of them with one send before its next
 * receive. Two buffers take turns: one fills while the other's bytes are being sent (io_uring reads
 * them until the send completed), so an append never waits for a send. A request that does not fit
 * is not queued: its caller waits for the role and sends it itself. Under the {@link Conduit}'s lock.
 */
final class SendQueue {
    /** Each buffer's size: many small requests, or a few of up to half of it. */
    static final int BYTES = 64 * 1024;

    private final MemorySegment[] buffers = new MemorySegment[2];
    private int filling;
    private int used;
    private int requests;

    SendQueue(Arena arena) {
        buffers[0] = arena.allocate(BYTES, 8);
        buffers[1] = arena.allocate(BYTES, 8);
    }

    /** Copies the request in; false when it does not fit (nothing is copied). */
    boolean append(int id, int type, MemorySegment payload, long offset, long length) {
        long need = RequestHeader.SIZE + length;
        if (used + need > BYTES) return false;
        MemorySegment b = buffers[filling];
        RequestHeader.write(b, used, id, type, (int) length);
        if (length > 0) MemorySegment.copy(payload, offset, b, used + RequestHeader.SIZE, length);
        used += (int) need;
        requests++;
        return true;
    }

    boolean isEmpty() { return used == 0; }

    /** Requests queued since the last {@link #take}. */
    int requests() { return requests; }

    /** The buffer filled so far (its first {@link #takenBytes} bytes); appends go to the other one from now on. */
    MemorySegment take() {
        MemorySegment b = buffers[filling];
        taken = used;
        filling ^= 1;
        used = 0;
        requests = 0;
        return b;
    }

    private int taken;

    int takenBytes() { return taken; }

    /** After a failure: whatever was queued goes. */
    void clear() {
        used = 0;
        requests = 0;
    }
}
