package org.sysframe.unix.internal.uring;

import org.sysframe.unix.uring.UringCounters;
import org.sysframe.unix.uring.UringOp;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * A flyweight over one 64-byte submission queue entry in the ring's mmapped SQE array: {@link
 * IoUring#nextSqe()} positions it on a zeroed free slot, a {@code prep*} method fills the operation,
 * and the setters add flags and the user data. Valid until the next {@code nextSqe()}; owner thread
 * only. Writes are plain: the ring's release store of the SQ tail publishes them to the kernel.
 */
public final class Sqe {
    /** IOSQE_FIXED_FILE: fd is an index into the registered files. */
    public static final int FIXED_FILE = 1;
    /** IOSQE_IO_LINK: the next SQE starts only after this one completes (and fails if this one fails). */
    public static final int IO_LINK = 1 << 2;
    /** IOSQE_BUFFER_SELECT: the kernel picks a buffer from the provided group. */
    public static final int BUFFER_SELECT = 1 << 5;
    /** IOSQE_CQE_SKIP_SUCCESS: no completion when it succeeds. */
    public static final int CQE_SKIP_SUCCESS = 1 << 6;

    /** IORING_RECV_MULTISHOT (in ioprio): one RECV keeps completing, a buffer per completion. */
    public static final int RECV_MULTISHOT = 1 << 1;
    /** IORING_ACCEPT_MULTISHOT (in ioprio): one ACCEPT keeps completing, a connection per completion. */
    public static final int ACCEPT_MULTISHOT = 1;
    /** IORING_POLL_ADD_MULTI (in len): a POLL_ADD that keeps completing. */
    public static final int POLL_ADD_MULTI = 1;
    /** IORING_ASYNC_CANCEL_ALL (in op_flags): cancel every request matching. */
    public static final int ASYNC_CANCEL_ALL = 1;
    /** IORING_ASYNC_CANCEL_FD (in op_flags): match by fd instead of user data. */
    public static final int ASYNC_CANCEL_FD = 1 << 1;
    /** IORING_ASYNC_CANCEL_ANY (in op_flags): match every request, whatever its user data or fd. */
    public static final int ASYNC_CANCEL_ANY = 1 << 2;

    /** POLLIN (poll(2) events, for {@link #prepPollAdd}): there is data to read. */
    public static final int POLLIN = 0x1;
    /** POLLOUT (poll(2) events, for {@link #prepPollAdd}): there is room to write. */
    public static final int POLLOUT = 0x4;

    static final long SIZE = UringLayouts.SQE.byteSize();
    private static final long OPCODE = UringLayouts.offset(UringLayouts.SQE, "opcode");
    static final long FLAGS = UringLayouts.offset(UringLayouts.SQE, "flags");
    private static final long IOPRIO = UringLayouts.offset(UringLayouts.SQE, "ioprio");
    private static final long FD = UringLayouts.offset(UringLayouts.SQE, "fd");
    private static final long ADDR = UringLayouts.offset(UringLayouts.SQE, "addr");
    private static final long LEN = UringLayouts.offset(UringLayouts.SQE, "len");
    private static final long OP_FLAGS = UringLayouts.offset(UringLayouts.SQE, "op_flags");
    private static final long USER_DATA = UringLayouts.offset(UringLayouts.SQE, "user_data");
    private static final long BUF_GROUP = UringLayouts.offset(UringLayouts.SQE, "buf_index");

    private final MemorySegment sqes;
    private final UringCounters counters;
    private long at;

    Sqe(MemorySegment sqes, UringCounters counters) {
        this.sqes = sqes;
        this.counters = counters;
    }

    /** Moves onto the SQE at offset and zeroes it (eight long stores: no slice object). */
    void position(long offset) {
        at = offset;
        for (long i = 0; i < SIZE; i += 8) sqes.set(JAVA_LONG, offset + i, 0L);
    }

    private Sqe op(UringOp op, int fd, long addr, int len, int opFlags) {
        sqes.set(JAVA_BYTE, at + OPCODE, (byte) op.code());
        sqes.set(JAVA_INT, at + FD, fd);
        sqes.set(JAVA_LONG, at + ADDR, addr);
        sqes.set(JAVA_INT, at + LEN, len);
        sqes.set(JAVA_INT, at + OP_FLAGS, opFlags);
        counters.prepared(op.code());
        return this;
    }

    /**
     * SEND of len bytes at the native address addr on socket fd, with msg_flags (MSG_NOSIGNAL is the caller's to add).
     */
    public Sqe prepSend(int fd, long addr, int len, int msgFlags) {
        return op(UringOp.SEND, fd, addr, len, msgFlags);
    }

    /** SENDMSG of the {@code struct msghdr} at msghdrAddr (copied by the kernel at submission). */
    public Sqe prepSendmsg(int fd, long msghdrAddr, int msgFlags) {
        return op(UringOp.SENDMSG, fd, msghdrAddr, 1, msgFlags);
    }

    /** RECV of at most len bytes into addr. */
    public Sqe prepRecv(int fd, long addr, int len, int msgFlags) {
        return op(UringOp.RECV, fd, addr, len, msgFlags);
    }

    /**
     * Multishot RECV into buffers of the provided group bufferGroup: one completion per arrival,
     * each naming its buffer ({@link Cqe#bufferId()}), flagged {@link Cqe#hasMore()} while it stays armed.
     */
    public Sqe prepRecvMultishot(int fd, int bufferGroup) {
        op(UringOp.RECV, fd, 0, 0, 0);
        sqes.set(JAVA_SHORT, at + IOPRIO, (short) RECV_MULTISHOT);
        sqes.set(JAVA_SHORT, at + BUF_GROUP, (short) bufferGroup);
        return flags(BUFFER_SELECT);
    }

    /** ACCEPT on listening fd with accept4 flags; multishot keeps it armed for every connection. */
    public Sqe prepAccept(int fd, int acceptFlags, boolean multishot) {
        op(UringOp.ACCEPT, fd, 0, 0, acceptFlags);
        if (multishot) sqes.set(JAVA_SHORT, at + IOPRIO, (short) ACCEPT_MULTISHOT);
        return this;
    }

    /** POLL_ADD for the poll events (POLLIN 0x1, POLLOUT 0x4 ...); multishot keeps it armed. */
    public Sqe prepPollAdd(int fd, int pollEvents, boolean multishot) {
        return op(UringOp.POLL_ADD, fd, 0, multishot ? POLL_ADD_MULTI : 0, pollEvents);
    }

    /**
     * ASYNC_CANCEL of the request whose user data is target (cancelFlags 0), or of every request on fd (ASYNC_CANCEL_FD
     * | ALL, target ignored).
     */
    public Sqe prepCancel(long target, int fd, int cancelFlags) {
        return op(UringOp.ASYNC_CANCEL, (cancelFlags & ASYNC_CANCEL_FD) != 0 ? fd : -1, target, 0, cancelFlags);
    }

    /**
     * LINK_TIMEOUT for the SQE before it (which must carry {@link #IO_LINK}): the {@code __kernel_timespec} at
     * timespecAddr.
     */
    public Sqe prepLinkTimeout(long timespecAddr) {
        return op(UringOp.LINK_TIMEOUT, -1, timespecAddr, 1, 0);
    }

    /** NOP: completes at once with res 0 (tests, wake-ups). */
    public Sqe prepNop() {
        return op(UringOp.NOP, -1, 0, 0, 0);
    }

    /** Adds IOSQE_* flags. */
    public Sqe flags(int iosqeFlags) {
        sqes.set(JAVA_BYTE, at + FLAGS, (byte) (sqes.get(JAVA_BYTE, at + FLAGS) | iosqeFlags));
        return this;
    }

    /** Sets the 64-bit value the completion carries back. */
    public Sqe userData(long userData) {
        sqes.set(JAVA_LONG, at + USER_DATA, userData);
        return this;
    }
}
