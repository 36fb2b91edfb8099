package org.sysframe.transport.internal.io;

/**
 * A pipeline's flushes whose requests still wait for an answer, oldest first, for the request timeout:
 * every request of one flush left at one time, so the timeout's bookkeeping is one entry per flush (its
 * time and how many of its requests wait), not one per request. A flush leaves as soon as its last
 * request is answered ({@link #answered}), wherever it is in the order, or when its requests time out
 * together ({@link #remove}); the oldest waiting one is always at the head, in O(1).
 *
 * <p>Each flush waiting holds at least one request in flight, so at most {@code window} of them wait at
 * once: the entries are a fixed pool of that many, linked in send order. Each request id sent keeps its
 * flush's number ({@link #sent}, {@link #of}). Nothing is allocated after the constructor. One thread.
 */
public final class Flushes {
    private static final int NONE = -1;

    private final long[] time;
    private final int[] waiting;
    private final int[] prev;
    private final int[] next;
    private final char[] flushOf; // by request id: the flush it was sent in
    private int head = NONE;
    private int tail = NONE;
    private int free;  // the first unused entry; unused entries are chained through next

    /**
     * Room for window flushes waiting at once (window: the most requests in flight, at most 65,536) of requests with
     * ids below ids.
     */
    public Flushes(int window, int ids) {
        if (window > 0x10000) throw new IllegalArgumentException("a window of " + window + " flushes");
        flushOf = new char[ids];
        time = new long[window];
        waiting = new int[window];
        prev = new int[window];
        next = new int[window];
        clear();
    }

    /** No flush waits. */
    public boolean isEmpty() { return head == NONE; }

    /** The oldest flush still waiting (the caller checked {@link #isEmpty()}). */
    public int oldest() { return head; }

    /** When flush f was sent. */
    public long time(int f) { return time[f]; }

    /** How many of flush f's requests still wait for their answer. */
    public int waiting(int f) { return waiting[f]; }

    /** When the oldest flush still waiting was sent (the caller checked {@link #isEmpty()}). */
    public long oldestTime() { return time[head]; }

    /** Request id went out in flush f (a number {@link #add} gave). */
    public void sent(int id, int f) { flushOf[id] = (char) f; }

    /** The flush request id went out in, last it was {@link #sent}. */
    public int of(int id) { return flushOf[id]; }

    /**
     * A flush of n requests (at least 1) sent at t, the newest: its number, which each of its requests keeps
     * for {@link #answered}. Throws when more flushes wait than the window has requests.
     */
    public int add(long t, int n) {
        if (n < 1) throw new IllegalArgumentException("a flush of " + n + " requests");
        int f = free;
        if (f == NONE) throw new IllegalStateException("more than " + time.length + " flushes waiting");
        free = next[f];
        time[f] = t;
        waiting[f] = n;
        prev[f] = tail;
        next[f] = NONE;
        if (tail == NONE) head = f;
        else next[tail] = f;
        tail = f;
        return f;
    }

    /** Request id, sent and waiting, was answered: its flush leaves with its last. */
    public void answered(int id) {
        int f = flushOf[id];
        if (--waiting[f] == 0) remove(f);
    }

    /** Flush f leaves (its requests timed out): its number may be given to the next {@link #add}. */
    public void remove(int f) {
        int p = prev[f], n = next[f];
        if (p == NONE) head = n;
        else next[p] = n;
        if (n == NONE) tail = p;
        else prev[n] = p;
        waiting[f] = 0;
        next[f] = free;
        free = f;
    }

    /** Every flush leaves (the pipeline failed all its requests). */
    public void clear() {
        head = tail = NONE;
        for (int i = 0; i < next.length; i++) {
            next[i] = i + 1 < next.length ? i + 1 : NONE;
            waiting[i] = 0;
        }
        free = 0;
    }
}
