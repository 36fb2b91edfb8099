package org.sysframe.unix.internal.uring;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The io_uring structures of the kernel's UAPI ({@code linux/io_uring.h}) as FFM layouts, with the
 * offsets the rings use. Unions are laid out by their first member of each width (the field names
 * say which members share a slot); {@code UringLayoutTest} checks every size and offset against what
 * gcc computes from the installed header.
 */
public final class UringLayouts {
    private UringLayouts() {}

    /** {@code struct io_sqring_offsets}: where the SQ ring's fields sit in its mmap. */
    public static final StructLayout SQ_OFFSETS = MemoryLayout.structLayout(
            JAVA_INT.withName("head"), JAVA_INT.withName("tail"), JAVA_INT.withName("ring_mask"),
            JAVA_INT.withName("ring_entries"), JAVA_INT.withName("flags"), JAVA_INT.withName("dropped"),
            JAVA_INT.withName("array"), JAVA_INT.withName("resv1"), JAVA_LONG.withName("user_addr"));

    /** {@code struct io_cqring_offsets}: where the CQ ring's fields sit in its mmap. */
    public static final StructLayout CQ_OFFSETS = MemoryLayout.structLayout(
            JAVA_INT.withName("head"), JAVA_INT.withName("tail"), JAVA_INT.withName("ring_mask"),
            JAVA_INT.withName("ring_entries"), JAVA_INT.withName("overflow"), JAVA_INT.withName("cqes"),
            JAVA_INT.withName("flags"), JAVA_INT.withName("resv1"), JAVA_LONG.withName("user_addr"));

    /** {@code struct io_uring_params}: in and out of io_uring_setup(2). 120 bytes. */
    public static final StructLayout PARAMS = MemoryLayout.structLayout(
            JAVA_INT.withName("sq_entries"), JAVA_INT.withName("cq_entries"), JAVA_INT.withName("flags"),
            JAVA_INT.withName("sq_thread_cpu"), JAVA_INT.withName("sq_thread_idle"), JAVA_INT.withName("features"),
            JAVA_INT.withName("wq_fd"), MemoryLayout.sequenceLayout(3, JAVA_INT).withName("resv"),
            SQ_OFFSETS.withName("sq_off"), CQ_OFFSETS.withName("cq_off"));

    /** {@code struct io_uring_sqe}: one submission, 64 bytes. */
    public static final StructLayout SQE = MemoryLayout.structLayout(
            JAVA_BYTE.withName("opcode"), JAVA_BYTE.withName("flags"), JAVA_SHORT.withName("ioprio"),
            JAVA_INT.withName("fd"),
            JAVA_LONG.withName("off"),            // union: off, addr2
            JAVA_LONG.withName("addr"),           // union: addr, splice_off_in
            JAVA_INT.withName("len"),
            // union: rw_flags, msg_flags, accept_flags, poll32_events, timeout_flags, cancel_flags ...
            JAVA_INT.withName("op_flags"),
            JAVA_LONG.withName("user_data"),
            JAVA_SHORT.withName("buf_index"),     // union: buf_index, buf_group
            JAVA_SHORT.withName("personality"),
            JAVA_INT.withName("file_index"),      // union: splice_fd_in, file_index, addr_len
            JAVA_LONG.withName("addr3"),
            JAVA_LONG.withName("pad2"));

    /** {@code struct io_uring_cqe}: one completion, 16 bytes. */
    public static final StructLayout CQE = MemoryLayout.structLayout(
            JAVA_LONG.withName("user_data"), JAVA_INT.withName("res"), JAVA_INT.withName("flags"));

    /** {@code struct io_uring_buf}: one provided buffer in a buffer ring, 16 bytes. */
    public static final StructLayout BUF = MemoryLayout.structLayout(
            JAVA_LONG.withName("addr"), JAVA_INT.withName("len"), JAVA_SHORT.withName("bid"),
            JAVA_SHORT.withName("resv"));

    /** {@code struct io_uring_buf_reg}: argument of IORING_REGISTER_PBUF_RING, 40 bytes. */
    public static final StructLayout BUF_REG = MemoryLayout.structLayout(
            JAVA_LONG.withName("ring_addr"), JAVA_INT.withName("ring_entries"), JAVA_SHORT.withName("bgid"),
            JAVA_SHORT.withName("pad"), MemoryLayout.sequenceLayout(3, JAVA_LONG).withName("resv"));

    /** {@code struct io_uring_probe} without its ops: 16 bytes, then {@link #PROBE_OP} entries. */
    public static final StructLayout PROBE = MemoryLayout.structLayout(
            JAVA_BYTE.withName("last_op"), JAVA_BYTE.withName("ops_len"), JAVA_SHORT.withName("resv"),
            MemoryLayout.sequenceLayout(3, JAVA_INT).withName("resv2"));

    /** {@code struct io_uring_probe_op}: 8 bytes. */
    public static final StructLayout PROBE_OP = MemoryLayout.structLayout(
            JAVA_BYTE.withName("op"), JAVA_BYTE.withName("resv"), JAVA_SHORT.withName("flags"),
            JAVA_INT.withName("resv2"));

    /** {@code struct io_uring_getevents_arg}: the wait argument of IORING_ENTER_EXT_ARG, 24 bytes. */
    public static final StructLayout GETEVENTS_ARG = MemoryLayout.structLayout(
            JAVA_LONG.withName("sigmask"), JAVA_INT.withName("sigmask_sz"), JAVA_INT.withName("pad"),
            JAVA_LONG.withName("ts"));

    /** {@code struct io_uring_rsrc_update}: argument of IORING_REGISTER_RING_FDS, 16 bytes. */
    public static final StructLayout RSRC_UPDATE = MemoryLayout.structLayout(
            JAVA_INT.withName("offset"), JAVA_INT.withName("resv"), JAVA_LONG.withName("data"));

    /** {@code struct __kernel_timespec}: 16 bytes. */
    public static final StructLayout TIMESPEC = MemoryLayout.structLayout(
            JAVA_LONG.withName("tv_sec"), JAVA_LONG.withName("tv_nsec"));

    static long offset(StructLayout l, String field) {
        return l.byteOffset(groupElement(field));
    }

    static long offset(StructLayout l, String group, String field) {
        return l.byteOffset(groupElement(group), groupElement(field));
    }
}
