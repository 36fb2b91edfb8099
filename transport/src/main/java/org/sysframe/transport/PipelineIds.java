package org.sysframe.transport;

import org.sysframe.transport.internal.client.PipelineRole;

import org.sysframe.unix.ErrnoException;

/**
 * A pipeline's request ids from its client's call table, taken for the window's room together under one lock (one at
 * a time under the client's in-flight cap), handed out in the order they came. While an id waits here for a request,
 * the pipeline's state of it is {@link Pipeline#RESERVED}: an answer for it was made up.
 *
 * <p>Without an in-flight cap the pipeline keeps the ids it took for as long as it is open: an answered id waits here
 * for the next request, and the window's requests cost the call table nothing and take its lock not at all. A
 * client's call table holds 65,535 ids, a window at most {@link PipelineOptions#MAX_WINDOW}: keeping them leaves the
 * client's other callers the rest. (Given back after each poll, then taken again for the next window, a depth-64
 * window of 32-byte pings spent about 1 us of its client's turnaround on them, the call table's work for each id,
 * on this project's 2-core guest.) Under a cap, the calls on the wire are what the cap counts: an answered id goes
 * back to the table with its poll's others, so that a caller waiting for room gets it.
 */
final class PipelineIds {
    private final PipelineRole role;
    private final byte[] state;
    /** Ids held for requests, in the order they are handed out: a ring of ready[head..head + count). */
    private final int[] ready;
    private int head, count;
    /** How many answered ids wait here for the next requests (the window's; 0 under a cap). */
    private final int keep;
    /** Ids answered whose place in the call table is still taken, to be given back. */
    private final int[] freed;
    private int freedCount;

    /** Ids for a window of window requests through role, marked in the pipeline's state; kept when keep. */
    PipelineIds(PipelineRole role, byte[] state, int window, boolean keep) {
        this.role = role;
        this.state = state;
        this.ready = new int[window];
        this.freed = new int[window];
        this.keep = keep ? window : 0;
    }

    /**
     * An id for the next request, the ids answered given back first when they are not kept (a request queued from an
     * answer's handler: their room under the cap is its); -1 when the client's in-flight cap has no room. room: the
     * window's.
     */
    int take(int room) throws ErrnoException {
        if (count == 0) {
            if (freedCount > 0) release();
            head = 0;
            count = role.reserve(ready, room);
            if (count == 0) return -1;
            for (int i = 0; i < count; i++) state[ready[i]] = Pipeline.RESERVED;
        }
        int id = ready[head];
        head = head + 1 == ready.length ? 0 : head + 1;
        role.held(--count);
        return id;
    }

    /**
     * id was answered (or its late answer came): it waits here for the next request when kept and there is room,
     * else its place in the call table is given back with the poll's others.
     */
    void free(int id) {
        if (count < keep) {
            state[id] = Pipeline.RESERVED;
            ready[slot(count)] = id;
            role.held(++count);
            return;
        }
        if (freedCount == freed.length) release();
        freed[freedCount++] = id;
    }

    /** Gives the ids answered and not kept back to the client's call table, under one lock. */
    void release() {
        if (freedCount == 0) return;
        role.unreserve(freed, 0, freedCount);
        freedCount = 0;
    }

    /** The pipeline closes: the ids held here go back (never sent, no answer can come for them). */
    void close() {
        release();
        role.held(0); // before they go: a count read meanwhile has them in flight, never below nothing
        for (int i = 0; i < count; i++) {
            int id = ready[slot(i)];
            state[id] = Pipeline.FREE;
            freed[freedCount++] = id;
            if (freedCount == freed.length) release();
        }
        release();
        head = count = 0;
    }

    /** Where the i-th id held, counted from the next one handed out, lies in the ring. */
    private int slot(int i) {
        int at = head + i;
        return at >= ready.length ? at - ready.length : at;
    }
}
