package org.sysframe.transport.internal.io;

import org.sysframe.unix.ErrnoException;

import java.lang.foreign.MemorySegment;

/**
 * A client link whose messages are read in place (a shared-memory ring): {@link MessageReader} parses each one
 * where it lies and hands out its payload there; the caller copies it once, into its own memory. The bytes
 * stay until {@link #release released}. The waits return how many bytes came beyond those the reader has:
 * as {@link ClientLink#recv}, {@link ClientLink#recvBy} and {@link ClientLink#tryRecv} do, with the same
 * timeouts, 0 at EOF and {@code WOULD_BLOCK} when nothing more came in time.
 */
public interface InPlaceSource extends ClientLink {
    /** The memory the offsets are in. */
    MemorySegment memory();

    /** The most bytes contiguous in place: a larger message is read in pieces, copied. */
    long readLimit();

    /** Where the first byte not released is, in {@link #memory()}: every byte come is contiguous from there. */
    long readAt();

    /** The first n bytes are read: their room goes back to the peer. */
    void release(long n) throws ErrnoException;

    /** Waits as {@link ClientLink#recv} for more than have bytes: how many more came. */
    long more(long have) throws ErrnoException;

    /** Waits as {@link ClientLink#recvBy} for more than have bytes: how many more came. */
    long moreBy(long have, long deadline, long now) throws ErrnoException;

    /** How many more than have bytes are there, without waiting: WOULD_BLOCK for none. */
    long tryMore(long have) throws ErrnoException;
}
