package org.sysframe.unix;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Live per-kind syscall counters, written by one thread (the owner of the socket or event loop that
 * makes the calls) and readable from any thread.
 *
 * <p>Every call made through the bindings is counted when it returns, whatever it returned: data,
 * a partial count, EOF, EAGAIN or EINTR. A single writer means no atomic read-modify-write: the
 * increment is a plain read and a release store (a plain {@code mov} on x86-64), and readers use
 * acquire loads. A counter may have a parent (e.g. per connection, parent per event-loop thread);
 * each increment then also goes to the parent, which must have the same single writer.
 */
public final class SyscallCounters {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

    private final String name;
    private final SyscallCounters parent;
    private final boolean summing;
    private final long[] counts = new long[SyscallKind.count()];
    private final long[] empty = new long[SyscallKind.count()];

    /** Counters named name (shown by {@link #toString()}), with no parent. */
    public SyscallCounters(String name) {
        this(name, null);
    }

    /** Counters named name, each increment going to parent too (null: no parent). */
    public SyscallCounters(String name, SyscallCounters parent) {
        this(name, parent, false);
    }

    private SyscallCounters(String name, SyscallCounters parent, boolean summing) {
        this.name = name;
        this.parent = parent;
        this.summing = summing;
    }

    /**
     * Counters that sum several others (given as their parent), each counted by its own thread: every
     * increment is an atomic add, so the sum is exact while several threads count at once.
     */
    public static SyscallCounters summing(String name) { return new SyscallCounters(name, null, true); }

    /**
     * As {@link #summing(String)}, each increment going to parent too (null: none; else {@link #summing} as well).
     */
    public static SyscallCounters summing(String name, SyscallCounters parent) {
        return new SyscallCounters(name, parent, true);
    }

    /** The name given at creation, shown by {@link #toString()}. */
    public String name() { return name; }

    /** Counts one call of kind. Only the owning thread calls this (any thread, on {@link #summing} counters). */
    public void increment(SyscallKind kind) {
        int i = kind.ordinal();
        if (summing) SLOT.getAndAdd(counts, i, 1L);
        else SLOT.setRelease(counts, i, counts[i] + 1);
        if (parent != null) parent.increment(kind);
    }

    /**
     * Counts one call of kind that moved nothing (a recv or send that returned EAGAIN, an epoll_wait
     * that returned no event): in addition to {@link #increment}, so that the empty calls a busy-poll
     * makes show apart from the ones that did work. Only the owning thread calls this.
     */
    public void incrementEmpty(SyscallKind kind) {
        int i = kind.ordinal();
        if (summing) SLOT.getAndAdd(empty, i, 1L);
        else SLOT.setRelease(empty, i, empty[i] + 1);
        if (parent != null) parent.incrementEmpty(kind);
    }

    /** Of the calls counted, those that moved nothing, per kind (see {@link #incrementEmpty}). */
    public SyscallCounts emptySnapshot() {
        long[] copy = new long[empty.length];
        for (int i = 0; i < copy.length; i++) copy[i] = (long) SLOT.getAcquire(empty, i);
        return new SyscallCounts(copy);
    }

    /** The current count of kind. */
    public long get(SyscallKind kind) {
        return (long) SLOT.getAcquire(counts, kind.ordinal());
    }

    /** An immutable copy of every count, to subtract from a later one. */
    public SyscallCounts snapshot() {
        long[] copy = new long[counts.length];
        for (int i = 0; i < copy.length; i++) copy[i] = (long) SLOT.getAcquire(counts, i);
        return new SyscallCounts(copy);
    }

    @Override
    public String toString() {
        return name + " " + snapshot();
    }
}
