package org.sysframe.unix.uring;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What a ring moved besides its io_uring_enter calls (those are counted as
 * {@link org.sysframe.unix.SyscallKind#IO_URING_ENTER} in the ring's {@code SyscallCounters}): SQEs
 * prepared, by opcode, and CQEs consumed. One writer (the ring's owner thread), plain increments
 * published with release stores, read from any thread with acquire loads, like {@code SyscallCounters}.
 * A counter may have a parent (per connection, parent per loop) that gets every increment too.
 */
public final class UringCounters {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

    private final UringCounters parent;
    private final long[] sqes = new long[UringOp.LIMIT];
    private final long[] cqes = new long[1];

    /** Counters with no parent. */
    public UringCounters() {
        this(null);
    }

    /** Counters whose every increment goes to parent too (null: no parent). */
    public UringCounters(UringCounters parent) {
        this.parent = parent;
    }

    /** Counts one SQE of opcode prepared. Owner thread only. */
    public void prepared(int opcode) {
        SLOT.setRelease(sqes, opcode, sqes[opcode] + 1);
        if (parent != null) parent.prepared(opcode);
    }

    /** Counts one CQE consumed. Owner thread only. */
    public void completed() {
        SLOT.setRelease(cqes, 0, cqes[0] + 1);
        if (parent != null) parent.completed();
    }

    /** An immutable copy of the counts. */
    public UringCounts snapshot() {
        long[] copy = new long[sqes.length];
        for (int i = 0; i < copy.length; i++) copy[i] = (long) SLOT.getAcquire(sqes, i);
        return new UringCounts(copy, (long) SLOT.getAcquire(cqes, 0));
    }
}
