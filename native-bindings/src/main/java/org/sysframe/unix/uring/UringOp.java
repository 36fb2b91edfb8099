package org.sysframe.unix.uring;

/**
 * The io_uring opcodes sysframe prepares, by their UAPI number ({@code enum io_uring_op}), each with
 * the first Linux release that has it, so that a missing one is named with the kernel it needs.
 */
public enum UringOp {
    /** {@code IORING_OP_NOP}: does nothing, completes at once. */
    NOP(0, "5.1"),
    /** {@code IORING_OP_POLL_ADD}: completes when a descriptor has one of the poll events asked for. */
    POLL_ADD(6, "5.1"),
    /** {@code IORING_OP_SENDMSG}: a {@code sendmsg(2)}. */
    SENDMSG(9, "5.3"),
    /** {@code IORING_OP_TIMEOUT}: completes once a time has passed (or a count of other requests has completed). */
    TIMEOUT(11, "5.4"),
    /** {@code IORING_OP_ACCEPT}: an {@code accept4(2)}. */
    ACCEPT(13, "5.5"),
    /** {@code IORING_OP_ASYNC_CANCEL}: cancels a request in flight. */
    ASYNC_CANCEL(14, "5.5"),
    /** {@code IORING_OP_LINK_TIMEOUT}: cancels the request linked before it unless that one completes in time. */
    LINK_TIMEOUT(15, "5.5"),
    /** {@code IORING_OP_CLOSE}: a {@code close(2)}. */
    CLOSE(19, "5.6"),
    /** {@code IORING_OP_SEND}: a {@code send(2)}. */
    SEND(26, "5.6"),
    /** {@code IORING_OP_RECV}: a {@code recv(2)}. */
    RECV(27, "5.6");

    /** Opcodes are below this bound (room for every opcode of today's kernels). */
    public static final int LIMIT = 64;

    private static final UringOp[] BY_CODE = new UringOp[LIMIT];
    static {
        for (UringOp op : values()) BY_CODE[op.code] = op;
    }

    private final int code;
    private final String since;

    UringOp(int code, String since) {
        this.code = code;
        this.since = since;
    }

    /** The opcode in {@code io_uring_sqe.opcode}. */
    public int code() { return code; }

    /** The first Linux release with this opcode, e.g. {@code 5.6}. */
    public String since() { return since; }

    /** The op of an opcode, or null for one sysframe does not prepare. */
    public static UringOp of(int code) {
        return code >= 0 && code < LIMIT ? BY_CODE[code] : null;
    }
}
