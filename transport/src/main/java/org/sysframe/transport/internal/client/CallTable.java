package org.sysframe.transport.internal.client;

import org.sysframe.transport.internal.io.MessageReader;

import java.util.Arrays;
import java.util.function.Consumer;

/**
 * The calls in flight by request id, and a pool of calls for futures and streams. Ids are handed out
 * first-freed-last from a table that starts at {@value #INITIAL} ids and doubles, up to 1..0xffff,
 * when all are in use (its memory follows the calls a client has in flight at once, not the id
 * space; growing allocates, a warm client does not). A registered id is never handed out again before
 * its answer came, so a late answer never meets a new call. Not thread-safe: the {@link Conduit}'s
 * lock guards it.
 */
final class CallTable {
    static final int MAX_ID = MessageReader.MAX_ID;
    static final int INITIAL = 64;

    private Call[] byId = new Call[INITIAL + 1];
    private int[] freeIds = new int[INITIAL];   // a FIFO ring of the ids 1..capacity not in use
    private int capacity = INITIAL;
    private int idHead, idCount;
    private Call[] pool = new Call[16];
    private int pooled;
    private int inFlight;
    private int futures;       // futures registered and not abandoned: someone must receive for them

    CallTable() {
        for (int i = 0; i < INITIAL; i++) freeIds[i] = i + 1;
        idCount = INITIAL;
    }

    boolean full() { return idCount == 0 && capacity == MAX_ID; }

    /**
     * Ids a pipeline holds for its next requests ({@link PipelineRole#held}): registered, not calls on the wire. The
     * one field not under the lock: written by the pipeline's thread alone, read by others in {@link #calls()}.
     */
    int held;

    /** Calls waiting for an answer (abandoned ones whose id is still taken included). */
    int inFlight() { return inFlight; }

    /**
     * {@link #inFlight()} less the ids a pipeline holds, for the stats and a connection's load: never less than none
     * (read by another thread, the pipeline's count may be a moment old).
     */
    int calls() { return Math.max(0, inFlight - held); }

    /** Futures waiting for their answer and not given up: someone must receive for them. */
    int futures() { return futures; }

    /** Gives c the next free id and registers it as waiting. The caller checked {@link #full()}. */
    void register(Call c, int type) {
        enter(c, type);
        c.state = Call.WAITING;
        if (c.kind == Call.Kind.FUTURE) futures++;
    }

    /**
     * Gives a pipeline's placeholder c the next free id, abandoned: outside the pipeline its answer is late (its type
     * is the pipeline's to know). The caller checked {@link #full()}.
     */
    void registerPlaceholder(Call c) {
        enter(c, 0);
        c.setUnderLock(Call.ABANDONED);
    }

    private void enter(Call c, int type) {
        if (idCount == 0) grow();
        int id = freeIds[idHead];
        idHead = idHead + 1 == capacity ? 0 : idHead + 1;
        idCount--;
        c.id = id;
        c.type = type;
        c.error = null;
        c.status = 0;
        c.length = 0;
        byId[id] = c;
        inFlight++;
    }

    /** Every id in use: twice the ids (the new ones free, in order). */
    private void grow() {
        int next = Math.min(MAX_ID, capacity * 2);
        byId = Arrays.copyOf(byId, next + 1);
        freeIds = new int[next];
        for (int i = 0; i < next - capacity; i++) freeIds[i] = capacity + 1 + i;
        idHead = 0;
        idCount = next - capacity;
        capacity = next;
    }

    /** The call waiting for id, or null. */
    Call get(int id) { return id > 0 && id < byId.length ? byId[id] : null; }

    /** A future gave up (its id stays taken until its late answer): nobody need receive for it any more. */
    void abandoned(Call c) {
        if (c.kind == Call.Kind.FUTURE && get(c.id) == c) futures--;
    }

    /** The call is answered (or failed): its id is free again. */
    void remove(Call c) {
        int id = c.id;
        if (id <= 0 || id >= byId.length || byId[id] != c) return;
        byId[id] = null;
        int at = idHead + idCount;
        freeIds[at >= capacity ? at - capacity : at] = id;
        idCount++;
        inFlight--;
        if (c.kind == Call.Kind.FUTURE && c.state != Call.ABANDONED) futures--;
    }

    /** A pooled call of kind (a pipeline's placeholders). */
    Call take(Call.Kind kind) {
        for (int i = pooled - 1; i >= 0; i--) {
            Call c = pool[i];
            if (c.kind == kind) {
                pool[i] = pool[--pooled];
                pool[pooled] = null;
                return c;
            }
        }
        return new Call(kind);
    }

    /**
     * A pipeline's placeholder back to the pool (the others: a thread's own call, a future's or a stream's, are not
     * pooled).
     */
    void recycle(Call c) {
        if (c.kind != Call.Kind.PIPELINE) return; // (nor has a placeholder items: only a stream's call has)
        c.waiter = null;
        c.attach(null);
        c.setUnderLock(Call.IDLE);
        if (pooled == pool.length) pool = Arrays.copyOf(pool, pooled * 2);
        pool[pooled++] = c;
    }

    /** Every call in flight, for a failure that ends them all. */
    void forEach(Consumer<Call> action) {
        for (int id = 1; id <= capacity && inFlight > 0; id++) {
            Call c = byId[id];
            if (c != null) action.accept(c);
        }
    }
}
