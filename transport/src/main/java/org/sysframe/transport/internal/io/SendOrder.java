package org.sysframe.transport.internal.io;

/**
 * A pipeline's request ids in the order they were sent, with their send times, for the request
 * timeout: the oldest is at the head. Entries whose request was answered go when they reach the head,
 * or all at once when the ring is full (at most the window is live: half the ring).
 */
public final class SendOrder {
    /** Whether the request sent as id at time is still waiting for its answer. */
    @FunctionalInterface
    public interface Liveness {
        boolean waiting(int id, long time);
    }

    private final int[] ids = new int[0x10000];
    private final long[] times = new long[0x10000];
    private final Liveness liveness;
    private int head;
    private int size;

    public SendOrder(Liveness liveness) {
        this.liveness = liveness;
    }

    public boolean isEmpty() { return size == 0; }

    public int headId() { return ids[head]; }

    public long headTime() { return times[head]; }

    public void pop() {
        head = (head + 1) & 0xffff;
        size--;
    }

    public void add(int id, long time) {
        while (size > 0 && !live(head)) pop();
        if (size == ids.length) compact();
        int at = (head + size) & 0xffff;
        ids[at] = id;
        times[at] = time;
        size++;
    }

    private boolean live(int at) { return liveness.waiting(ids[at], times[at]); }

    private void compact() {
        int kept = 0;
        for (int i = 0; i < size; i++) {
            int from = (head + i) & 0xffff;
            if (!live(from)) continue;
            int to = (head + kept++) & 0xffff;
            ids[to] = ids[from];
            times[to] = times[from];
        }
        size = kept;
    }
}
