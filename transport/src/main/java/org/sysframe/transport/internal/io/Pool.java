package org.sysframe.transport.internal.io;

import java.util.ArrayDeque;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Things one loop thread lends its connections while they have bytes in hand (an input buffer, an
 * output batch's memory) and takes back when they go idle, so that an idle connection holds none:
 * the last given back is the next lent (warm in the cache), no allocation once the pool holds as many
 * as are in use at once, and at most {@code keep} idle ones are kept (the rest freed at once). One
 * thread; {@link #close()} (any thread, once that thread has ended) frees those kept.
 */
public final class Pool<T> {
    private final ArrayDeque<T> idle;
    private final Supplier<T> make;
    private final Consumer<T> free;
    private final int keep;

    /** A pool that makes what it lends with make, frees with free, and keeps at most keep idle. */
    public Pool(Supplier<T> make, Consumer<T> free, int keep) {
        if (keep < 0) throw new IllegalArgumentException("keep " + keep);
        this.make = make;
        this.free = free;
        this.keep = keep;
        this.idle = new ArrayDeque<>(Math.max(1, keep));
    }

    /** One thing to use until {@link #give}: a kept one, or a new one. */
    public T take() {
        T t = idle.pollLast();
        if (t == null) t = make.get();
        return t;
    }

    /** Takes t back (kept, or freed past keep). */
    public void give(T t) {
        if (idle.size() < keep) idle.addLast(t);
        else free.accept(t);
    }

    /** Frees what is kept past keep. */
    public void trim(int keep) {
        while (idle.size() > keep) free.accept(idle.pollLast());
    }

    /** Frees what is kept. */
    public void close() {
        T t;
        while ((t = idle.pollLast()) != null) free.accept(t);
    }
}
