package org.sysframe.unix.internal.uring;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A flyweight over the completion at the head of the CQ ring: {@link IoUring#peek()} positions it,
 * {@link IoUring#advance()} consumes it. Owner thread only; read its fields before advancing.
 */
public final class Cqe {
    /** IORING_CQE_F_BUFFER: the upper 16 bits of flags name the provided buffer used. */
    public static final int F_BUFFER = 1;
    /** IORING_CQE_F_MORE: the multishot request stays armed and will complete again. */
    public static final int F_MORE = 1 << 1;

    private static final long USER_DATA = UringLayouts.offset(UringLayouts.CQE, "user_data");
    private static final long RES = UringLayouts.offset(UringLayouts.CQE, "res");
    private static final long FLAGS = UringLayouts.offset(UringLayouts.CQE, "flags");

    private final MemorySegment ring;
    private long at;

    Cqe(MemorySegment ring) {
        this.ring = ring;
    }

    void position(long offset) { at = offset; }

    /** The user data of the SQE that completed. */
    public long userData() { return ring.get(JAVA_LONG, at + USER_DATA); }

    /** The result: bytes moved, a new fd, 0, or -errno. */
    public int res() { return ring.get(JAVA_INT, at + RES); }

    public int flags() { return ring.get(JAVA_INT, at + FLAGS); }

    /** Whether a multishot request stays armed after this completion. */
    public boolean hasMore() { return (flags() & F_MORE) != 0; }

    /** The provided buffer this completion filled, or -1 when none. */
    public int bufferId() {
        int f = flags();
        return (f & F_BUFFER) != 0 ? f >>> 16 : -1;
    }
}
