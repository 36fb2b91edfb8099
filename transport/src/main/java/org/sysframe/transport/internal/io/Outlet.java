package org.sysframe.transport.internal.io;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounters;

import java.lang.foreign.MemorySegment;

/**
 * How a server connection's bytes leave, as its I/O driver moves them: the protocol side decides what
 * to send and when; the outlet makes the calls and counts them. The connection's one queue of unsent
 * bytes is its {@link UnsentQueue}; how the outlet relates to it is one of two kinds:
 * <ul>
 * <li>{@link Direct} (epoll) writes to the socket itself and says how much the kernel took: the queue
 *     holds only the rest, and the outlet sends it when there is room;</li>
 * <li>{@link FromQueue} (io_uring) cannot write within the call (its sends are SQEs, submitted at the
 *     end of the turn, and the protocol reuses its memory at once): every byte goes into the queue and
 *     the outlet sends from the queue's memory.</li>
 * </ul>
 * Loop thread only.
 */
public interface Outlet {
    /**
     * Watch for room to write while output waits in the queue past what the socket holds (true); back to
     * reading when false. The connection does not read meanwhile.
     */
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

    /** An outlet that writes to the kernel within the call: the queue holds what the kernel did not take. */
    interface Direct extends Outlet {
        /**
         * Writes one message with the server's send framing; returns the bytes taken (fewer when the socket is full).
         */
        long write(MemorySegment header, int hlen, MemorySegment payload, long off, long len) throws ErrnoException;

        /**
         * Writes the batch (its pending iovec entries, {@link OutputBatch#iov()}) until it is empty or the
         * socket is full, advancing the iovec array.
         */
        void gather(OutputBatch batch) throws ErrnoException;

        /** Writes len bytes of seg from off until done or the socket is full; returns the bytes taken. */
        long send(MemorySegment seg, long off, long len) throws ErrnoException;

        /**
         * Whether the outlet batches by itself what the {@link org.sysframe.transport.FlushMode#DEFERRED}
         * mode would batch: its writes make no syscall, and what a turn wrote reaches the peer by the end of
         * the turn (a shared-memory channel publishes its ring once the requests it read are handled, at the
         * turn's end, and whenever 1 KiB waits). The connection then writes each message at once, with no batch
         * of its own to copy it through.
         */
        default boolean batchesTurns() { return false; }

        /**
         * Room for one message of n bytes written in place, at the offset returned in {@link #claimMemory()}, or -1
         * when the outlet has none now: a socket never has (its bytes go through the kernel), a channel's answer
         * ring when it is fuller than that. Nothing else may be written to the outlet before the {@link #commit}.
         */
        default long claim(long n) throws ErrnoException { return -1; }

        /** The memory {@link #claim}'s offsets are in. */
        default MemorySegment claimMemory() { return MemorySegment.NULL; }

        /** The n bytes written at the last {@link #claim} are one message: it leaves as one {@link #write} would. */
        default void commit(long n) throws ErrnoException {
            throw new UnsupportedOperationException("this outlet claims no room");
        }
    }

    /**
     * An outlet that sends from the connection's queue: everything is queued, and the first
     * {@link #area()} bytes of the queue are the outlet's output area, the counterpart of a socket's
     * send buffer (they do not make the connection wait for room, nor count against the queue's limit
     * or the memory budget).
     */
    interface FromQueue extends Outlet {
        /** Bytes of the queue that stand for the socket's send buffer. */
        long area();

        /** The connection's queue, given once, before any byte is queued: the outlet sends from its memory. */
        void attach(UnsentQueue queue);

        /** Where the queue's area (its first {@link #area()} bytes of memory) is lent from, or null: its own. */
        default Pool<NativeBuffer> areaMemory() { return null; }

        /** Bytes were queued: send them (at the end of the turn). */
        void queued();
    }
}
