package org.sysframe.transport.internal.io;

import org.sysframe.unix.ErrnoException;

import java.lang.foreign.MemorySegment;

/**
 * A sink whose messages are written in place (a shared-memory ring): {@link MessageWriter} claims room for a
 * whole message, writes its header and copies its payload there, once, then commits it. Messages larger than
 * {@link #claimLimit()} go through {@link #sendUntilFull} as the bytes of a stream.
 */
public interface InPlaceSink extends ByteSink {
    /** The largest message written in place. */
    long claimLimit();

    /**
     * Room for n contiguous bytes (n at most {@link #claimLimit()}), waiting for it as a send waits for room (within
     * the send timeout: ETIMEDOUT; EPIPE when the peer is gone): its offset in {@link #memory()}.
     */
    long claim(long n) throws ErrnoException;

    /** The memory the offsets of {@link #claim} are in. */
    MemorySegment memory();

    /** The n bytes written at the last claim are sent (published, the peer woken if it sleeps). */
    void commit(long n) throws ErrnoException;
}
