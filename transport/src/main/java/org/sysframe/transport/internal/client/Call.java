package org.sysframe.transport.internal.client;

import org.sysframe.unix.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;

/**
 * One request's place while it waits for its answer: its id and type, who waits (a parked thread, a
 * future's completion, a stream's cursor, a pipeline), and the answer once it came, copied into the
 * call's own buffer. A blocking caller's call is its thread's own and is reused call after call; the
 * others come from the {@link CallTable}'s pool.
 */
public final class Call {
    /** What waits for the answer. */
    public enum Kind { BLOCKING, FUTURE, STREAM, PIPELINE }

    static final int IDLE = 0, WAITING = 1, DONE = 2, FAILED = 3, ABANDONED = 4;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Call.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Kind kind;
    int id;
    int type;
    volatile int state;
    Thread waiter;
    /** The request not sent yet (too big for the send queue): the caller sends it once it holds the I/O role. */
    MemorySegment unsentPayload;
    long unsentOffset, unsentLength;
    boolean unsent;
    /**
     * A caller that never does the I/O (a virtual thread on the shared-memory channel, or on a connection with an
     * in-flight cap): the client's own thread does it for it.
     */
    boolean passenger;
    /** Waiting in the {@link Gate} for room under the in-flight cap (a future's request: the unsent copy). */
    boolean gated;
    /** Let through the gate, its id not taken yet. */
    boolean admitted;
    // The waiting list (under the conduit's lock).
    Call prev, next;
    boolean listed;
    long deadline;
    long startNanos; // when it started (System.nanoTime()): its receive timeout counts from then (Conduit.send)
    // The answer.
    int status;
    int length;
    private byte[] data = new byte[64];
    private MemorySegment held;
    private MemorySegment dataSegment = MemorySegment.ofArray(data);
    ErrnoException error;
    /** STREAM: the items that came and were not taken yet, with their statuses. */
    ArrayDeque<byte[]> items;
    ArrayDeque<Integer> itemStatus;
    volatile int itemCount;

    private Object attachment;

    /** What the call's owner needs at completion (a future's). */
    public void attach(Object o) { this.attachment = o; }

    public Object attachment() { return attachment; }

    Call(Kind kind) {
        this.kind = kind;
    }

    /** A new call for a caller of this kind (a blocking caller keeps it; a future's goes back to the pool). */
    public static Call of(Kind kind) { return new Call(kind); }

    public Kind kind() { return kind; }

    public int id() { return id; }

    public int type() { return type; }

    /** The answer's status (0: success). */
    public int status() { return status; }

    /** The answer's payload length. */
    public int length() { return length; }

    /** The answer's payload: the first {@link #length()} bytes of this segment. */
    public MemorySegment answer() { return dataSegment; }

    /** The failure that ended the call, when it failed without an answer. */
    public ErrnoException error() { return error; }

    public boolean failed() { return state == FAILED; }

    boolean cas(int from, int to) { return STATE.compareAndSet(this, from, to); }

    /**
     * Sets a pipeline placeholder's state under the conduit's lock, without a fence of its own: only threads that hold
     * the lock read it, and the lock's release publishes it to them. (A pipelined request costs two such stores.)
     */
    void setUnderLock(int s) { STATE.setRelease(this, s); }

    /** Copies an answer in (the receiving thread, before the state says DONE). */
    void store(int status, MemorySegment buffer, long offset, long len) {
        if (data.length < len) {
            data = new byte[Integer.highestOneBit((int) len - 1) << 1];
            dataSegment = MemorySegment.ofArray(data);
        }
        MemorySegment.copy(buffer, offset, dataSegment, 0, len);
        this.status = status;
        this.length = (int) len;
    }

    /** STREAM: one more item (a copy) for the cursor. */
    void addItem(int status, MemorySegment buffer, long offset, long len) {
        if (items == null) {
            items = new ArrayDeque<>();
            itemStatus = new ArrayDeque<>();
        }
        items.add(buffer.asSlice(offset, len).toArray(ValueLayout.JAVA_BYTE));
        itemStatus.add(status);
        itemCount++;
    }

    /** STREAM, under the conduit's lock: the oldest item into this call's answer; false when none came. */
    boolean takeItem() {
        if (itemCount == 0) return false;
        byte[] b = items.poll();
        int st = itemStatus.poll();
        itemCount--;
        store(st, MemorySegment.ofArray(b), 0, b.length);
        return true;
    }

    /**
     * A copy of the request into the call's own native buffer, kept for the next call (grown when a
     * request does not fit): a passenger's request held under the in-flight cap, that the thread doing
     * the I/O sends when room comes, while its caller stays parked.
     */
    MemorySegment hold(MemorySegment payload, long offset, long len) {
        if (held == null || held.byteSize() < len) {
            held = Arena.ofAuto().allocate(Math.max(256, Long.highestOneBit(Math.max(1, len) - 1) << 1), 8);
        }
        MemorySegment.copy(payload, offset, held, 0, len);
        return held;
    }

    /** Whether the caller may stop waiting: the answer (or an item) came, or the call failed. */
    boolean ready() {
        int s = state;
        if (s == FAILED || s == DONE) return true;
        return kind == Kind.STREAM && itemCount > 0;
    }
}
