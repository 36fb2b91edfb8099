package org.sysframe.transport.internal.io;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The one budget, shared by every loop of a server, for the memory that a peer can make the server
 * hold beyond each connection's fixed buffers: large-request input buffers and unsent output. A take
 * that would pass the limit is refused (nothing is taken); what was taken is given back when the
 * memory is freed. Any thread.
 */
public final class MemoryBudget {
    private final long limit;
    private final AtomicLong used = new AtomicLong();

    public MemoryBudget(long limit) { this.limit = limit; }

    /** Takes n bytes if they fit under the limit; false (and nothing taken) if not. */
    public boolean tryTake(long n) {
        while (true) {
            long u = used.get();
            if (u + n > limit) return false;
            if (used.compareAndSet(u, u + n)) return true;
        }
    }

    /** Gives back n bytes taken earlier. */
    public void give(long n) {
        if (used.addAndGet(-n) < 0) throw new IllegalStateException("memory budget given back more than was taken");
    }

    /** Whether n bytes would fit now. */
    public boolean fits(long n) { return used.get() + n <= limit; }

    public long used() { return used.get(); }

    public long limit() { return limit; }
}
