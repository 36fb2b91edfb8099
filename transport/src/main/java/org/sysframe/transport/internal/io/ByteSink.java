package org.sysframe.transport.internal.io;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.IovArray;

import java.lang.foreign.MemorySegment;

/**
 * Where a {@link MessageWriter} puts a message's bytes: a socket, or an io_uring that queues sends.
 */
public interface ByteSink {
    /** Sends len bytes of seg from off until done or the socket is full; returns the bytes taken. */
    long sendUntilFull(MemorySegment seg, long off, long len) throws ErrnoException;

    /** One sendmsg of iov's pending entries; returns the bytes taken (iov is not advanced). */
    long sendmsg(IovArray iov) throws ErrnoException;
}
