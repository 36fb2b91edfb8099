package org.sysframe.transport.internal.io;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.uring.UringCounts;

import java.lang.foreign.MemorySegment;

/**
 * A client's byte path, as its backend moves the bytes: {@code SocketLink} (internal.epoll) makes a
 * syscall per send and per receive; {@code UringLink} (internal.uring) queues sends as SQEs and submits
 * them with the receive that waits for the answer, in one io_uring_enter. Sends are blocking in effect:
 * when a method returns, the bytes are the link's (a queued send's memory must stay unchanged until the next
 * {@link #recv}, {@link #tryRecv} or {@link #flush}, which the client and pipeline guarantee).
 * Owner thread only.
 */
public interface ClientLink extends ByteSink {
    /**
     * At most len bytes into seg at off, waiting as the wait mode says: the count, 0 at EOF, or WOULD_BLOCK when the
     * timeout expired.
     */
    long recv(MemorySegment seg, long off, long len) throws ErrnoException;

    /**
     * As {@link #recv}, waiting at most until deadline (a System.nanoTime() instant; now is the
     * caller's reading of that clock) as well as within the receive timeout: WOULD_BLOCK when either
     * passed first. A deadline already passed still takes what is there without waiting.
     */
    long recvBy(MemorySegment seg, long off, long len, long deadline, long now) throws ErrnoException;

    /** At most len bytes into seg at off without waiting: WOULD_BLOCK when nothing is there. */
    long tryRecv(MemorySegment seg, long off, long len) throws ErrnoException;

    /** Hands every queued send to the kernel and returns once they are done (nothing for a link that queues none). */
    default void flush() throws ErrnoException {}

    /** SQEs by opcode and CQEs (zero for a link that is not io_uring's). */
    default UringCounts uringCounts() { return UringCounts.ZERO; }

    /**
     * The descriptor that is readable when bytes wait for {@link #recv} (the socket), or -1 (the shared-memory ring).
     */
    default int readableFd() { return -1; }

    SyscallCounters counters();

    String name();

    /** Frees the link's own resources (not the socket). */
    void close();
}
