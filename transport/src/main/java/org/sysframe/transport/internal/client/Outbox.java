package org.sysframe.transport.internal.client;

import org.sysframe.transport.internal.io.MessageWriter;
import org.sysframe.transport.wire.RequestHeader;

import org.sysframe.unix.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * What the I/O role's holder writes: a caller's own request, with the client's send framing; the
 * requests other callers queued ({@link SendQueue}), in one send; and those too big for the queue,
 * of futures (copied) and of passengers (parked while they wait), a queue's worth per turn.
 */
final class Outbox {
    private final Conduit conduit;
    private final MessageWriter writer;
    private final MemorySegment header;
    /** At most this many requests from the unsent list per turn. */
    static final int UNSENT_PER_TURN = 16;

    /** Requests of futures and passengers the queue could not take, oldest first (under the conduit's lock). */
    final ArrayDeque<Call> unsent = new ArrayDeque<>();

    Outbox(Conduit conduit, MessageWriter writer, Arena arena) {
        this.conduit = conduit;
        this.writer = writer;
        this.header = arena.allocate(RequestHeader.SIZE, 8);
    }

    void write(int id, int type, MemorySegment payload, long offset, long length) throws ErrnoException {
        RequestHeader.write(header, 0, id, type, (int) length);
        writer.write(header, 0, RequestHeader.SIZE, payload, offset, length);
    }

    /**
     * The holder sends what callers queued, in one send (the buffer's last send is done first: io_uring
     * reads it until then), and the requests of parked passengers that the queue could not take.
     */
    void flush() throws ErrnoException {
        sendUnsent();
        // A racy look first, as the receive's slice takes one: a request queued as it is taken goes with the next
        // flush, as one queued just after it would.
        if (conduit.queue.isEmpty()) return;
        int n;
        MemorySegment b;
        conduit.lock.lock();
        try {
            if (conduit.queue.isEmpty()) return;
            n = conduit.queue.requests();
            conduit.batches++;
            conduit.lastBatch = n;
            if (n > conduit.largestBatch) conduit.largestBatch = n;
        } finally {
            conduit.lock.unlock();
        }
        conduit.link.flush();
        conduit.lock.lock();
        try {
            b = conduit.queue.take();
        } finally {
            conduit.lock.unlock();
        }
        conduit.link.sendUntilFull(b, 0, conduit.queue.takenBytes());
    }

    /**
     * The holder writes the requests too big for the queue of futures (copies) and of parked passengers
     * (their payloads stay theirs while they wait), oldest first: at most a queue's worth of bytes and
     * {@value #UNSENT_PER_TURN} requests per turn (at least one), then it receives. A holder that wrote
     * everything before reading would wait in a full socket while the server, its answers unread,
     * stops reading too (and each of these requests is a send of its own: a socket buffer fills with
     * many small ones sooner than with their bytes).
     */
    private void sendUnsent() throws ErrnoException {
        long written = 0;
        for (int count = 0; written < SendQueue.BYTES && count < UNSENT_PER_TURN; count++) {
            Call c;
            if (written == 0 && unsent.isEmpty()) return; // (a racy look: the poll below decides)
            conduit.lock.lock();
            try {
                c = unsent.poll();
                if (c == null) return;
                if (!c.unsent) continue; // abandoned meanwhile
                c.unsent = false;
                written += RequestHeader.SIZE + c.unsentLength;
            } finally {
                conduit.lock.unlock();
            }
            // io_uring: the writer's iovec and copy buffer, and the payload's copy, must stay as they are until the
            // SEND went out: what is queued goes first, and this one before the next write (epoll: no-ops).
            if (written == RequestHeader.SIZE + c.unsentLength) conduit.link.flush();
            write(c.id, c.type, c.unsentPayload, c.unsentOffset, c.unsentLength);
            conduit.link.flush();
            c.unsentPayload = null;
        }
    }

    /**
     * A request's payload copied off the caller (a future's, which goes on at once). Allocates: a future allocates
     * anyway.
     */
    static MemorySegment copyOf(MemorySegment payload, long offset, long length) {
        MemorySegment copy = Arena.ofAuto().allocate(Math.max(1, length), 8);
        MemorySegment.copy(payload, offset, copy, 0, length);
        return copy;
    }
}
