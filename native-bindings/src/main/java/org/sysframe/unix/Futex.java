package org.sysframe.unix;

import org.sysframe.unix.internal.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Sleeping on, and waking, a 32-bit word of shared memory ({@code futex(2)} through {@code syscall(2)},
 * FUTEX_WAIT and FUTEX_WAKE without FUTEX_PRIVATE_FLAG, so that they work across processes that map
 * the same file). Each call is counted as one {@link SyscallKind#FUTEX} in the counters it was given.
 *
 * <p>One owner thread per instance: it keeps its own errno capture and timeout memory, so a call
 * allocates nothing.
 */
public final class Futex {
    /** {@link #await}: a {@link #wake} ended the sleep (or the kernel woke it spuriously). */
    public static final int WOKEN = 0;
    /** {@link #await}: the word did not hold the expected value any more: no sleep at all. */
    public static final int CHANGED = 1;
    /** {@link #await}: the time ran out. */
    public static final int TIMED_OUT = 2;
    /** {@link #await}: a signal ended the sleep. */
    public static final int INTERRUPTED = 3;

    private static final long SYS_FUTEX = 202; // x86-64
    private static final long FUTEX_WAIT = 0;
    private static final long FUTEX_WAKE = 1;

    private final SyscallCounters counters;
    private final MemorySegment callState;
    private final MemorySegment timeout;

    /** A futex caller whose calls are counted in counters; its memory lives as long as arena. */
    public Futex(SyscallCounters counters, Arena arena) {
        this.counters = counters;
        this.callState = Errno.newCallState(arena);
        this.timeout = arena.allocate(16, 8); // struct timespec
    }

    /**
     * Sleeps while the int at offset of seg holds expected, at most nanos (negative: no limit).
     * Returns {@link #WOKEN}, {@link #CHANGED}, {@link #TIMED_OUT} or {@link #INTERRUPTED}.
     */
    public int await(MemorySegment seg, long offset, int expected, long nanos) throws ErrnoException {
        long addr = wordAddress(seg, offset);
        try {
            long ts = 0;
            if (nanos >= 0) {
                timeout.set(JAVA_LONG, 0, nanos / 1_000_000_000L);
                timeout.set(JAVA_LONG, 8, nanos % 1_000_000_000L);
                ts = timeout.address();
            }
            long rc = LibC.syscall(callState, SYS_FUTEX, addr, FUTEX_WAIT, expected & 0xffffffffL, ts, 0);
            counters.increment(SyscallKind.FUTEX);
            if (rc == 0) return WOKEN;
            int err = Errno.read(callState);
            return switch (err) {
                case Errno.EAGAIN -> CHANGED;
                case Errno.ETIMEDOUT -> TIMED_OUT;
                case Errno.EINTR -> INTERRUPTED;
                default -> throw new ErrnoException("futex(FUTEX_WAIT)", err);
            };
        } finally {
            Reference.reachabilityFence(seg);
        }
    }

    /** Wakes at most count sleepers on the int at offset of seg; returns how many woke. */
    public int wake(MemorySegment seg, long offset, int count) throws ErrnoException {
        long addr = wordAddress(seg, offset);
        try {
            long rc = LibC.syscall(callState, SYS_FUTEX, addr, FUTEX_WAKE, count, 0, 0);
            counters.increment(SyscallKind.FUTEX);
            if (rc < 0) throw new ErrnoException("futex(FUTEX_WAKE)", Errno.read(callState));
            return (int) rc;
        } finally {
            Reference.reachabilityFence(seg);
        }
    }

    private static long wordAddress(MemorySegment seg, long offset) {
        long addr = NativeAddress.of(seg, offset, 4);
        if ((addr & 3) != 0) throw new IllegalArgumentException("futex word at an address not a multiple of 4: 0x"
                + Long.toHexString(addr));
        return addr;
    }
}
