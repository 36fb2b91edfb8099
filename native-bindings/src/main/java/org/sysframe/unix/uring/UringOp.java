package org.sysframe.unix.uring;

/**
 * The io_uring opcodes sysframe prepares, by their UAPI number ({@code enum io_uring_op}), each with
 * the first Linux release that has it, so that a missing one is named with the kernel it needs.
 */
public enum UringOp {
    NOP(0, "5.1"),
    POLL_ADD(6, "5.1"),
    SENDMSG(9, "5.3"),
    TIMEOUT(11, "5.4"),
    ACCEPT(13, "5.5"),
    ASYNC_CANCEL(14, "5.5"),
    LINK_TIMEOUT(15, "5.5"),
    CLOSE(19, "5.6"),
    SEND(26, "5.6"),
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
