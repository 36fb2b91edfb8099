package org.sysframe.transport;

import org.sysframe.transport.internal.client.PipelineRole;

import org.sysframe.unix.ErrnoException;

/**
 * A pipeline's request ids from its client's call table: taken for the window's room together, under one lock (one
 * at a time under the client's in-flight cap), handed out in the table's order, and given back once answered, a
 * poll's together. While an id waits in stock, the pipeline's state of it is {@link Pipeline#RESERVED}: an answer
 * for it was made up.
 */
final class PipelineIds {
    private final PipelineRole role;
    private final byte[] state;
    /** Ids reserved for requests not queued yet: stock[next..end). */
    private final int[] stock;
    private int next, end;
    /** Ids answered whose place in the call table is still taken. */
    private final int[] freed;
    private int freedCount;

    /** Ids for a window of window requests through role, marked in the pipeline's state. */
    PipelineIds(PipelineRole role, byte[] state, int window) {
        this.role = role;
        this.state = state;
        this.stock = new int[window];
        this.freed = new int[window];
    }

    /**
     * An id for the next request, the ids answered given back first (a request queued from an answer's handler: their
     * room under the cap is its); -1 when the client's in-flight cap has no room. room: the window's.
     */
    int take(int room) throws ErrnoException {
        if (freedCount > 0) release();
        if (next == end) {
            next = 0;
            end = role.reserve(stock, room);
            if (end == 0) return -1;
            for (int i = 0; i < end; i++) state[stock[i]] = Pipeline.RESERVED;
        }
        return stock[next++];
    }

    /** id was answered (or its late answer came): its place in the call table is given back with the poll's others. */
    void free(int id) {
        if (freedCount == freed.length) release();
        freed[freedCount++] = id;
    }

    /** Gives the ids answered since the last time back to the client's call table, under one lock. */
    void release() {
        if (freedCount == 0) return;
        role.unreserve(freed, 0, freedCount);
        freedCount = 0;
    }

    /** The pipeline closes: the ids in stock go back (never sent, no answer can come for them). */
    void close() {
        for (int i = next; i < end; i++) state[stock[i]] = Pipeline.FREE;
        role.unreserve(stock, next, end);
        next = end = 0;
    }
}
