package org.sysframe.transport.internal.io;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounters;

import java.lang.foreign.MemorySegment;

/**
 * How a server connection's bytes leave, as its I/O driver moves them: the protocol side decides what
 * to send and when; the outlet makes the calls, counts them, and says how much the kernel took, so the
 * protocol can queue the rest. Loop thread only.
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
public interface Outlet {
    /** Writes one message with the server's send framing; returns the bytes taken (fewer when the socket is full). */
    long write(MemorySegment header, int hlen, MemorySegment payload, long off, long len) throws ErrnoException;

    /**
     * Writes the batch (its pending iovec entries, {@link OutputBatch#iov()}) until it is empty or the
     * socket is full, advancing the iovec array.
     */
    void gather(OutputBatch batch) throws ErrnoException;

    /** Writes len bytes of seg from off until done or the socket is full; returns the bytes taken. */
    long send(MemorySegment seg, long off, long len) throws ErrnoException;

    /** Watch for room to write (and stop reading) while output is queued; back to reading when false. */
    void wantWritable(boolean on) throws ErrnoException;

    /**
     * Stops reading this socket (true) while its connection waits for memory, or reads again (false);
     * independent of {@link #wantWritable}.
     */
    void pauseInput(boolean paused) throws ErrnoException;

    /** The loop's timer: frees output memory that holds nothing now (the io_uring driver's output area). */
    default void releaseIdle() {}

    /** Every counted call this connection made. */
    SyscallCounters counters();

    /** Closes the socket (idempotent). */
    void close();
}
