package org.sysframe.transport.support;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.MemorySegment;

/** Cuts responses (of a raw socket) out of a read-ahead buffer big enough for any one of them. */
public final class ResponseReader {
    final UnixSocket socket;
    public final MemorySegment buf;
    public int start;
    public int end;

    public ResponseReader(UnixSocket socket, MemorySegment buf) {
        this.socket = socket;
        this.buf = buf;
    }

    /** True once n bytes are buffered from start; false if the stream ended first. */
    public boolean fill(int n) throws ErrnoException {
        while (end - start < n) {
            if (start + n > buf.byteSize()) {
                MemorySegment.copy(buf, start, buf, 0, end - start);
                end -= start;
                start = 0;
            }
            long got = socket.recv(buf, end, buf.byteSize() - end, 0);
            if (got == UnixSocket.WOULD_BLOCK) {
                throw new AssertionError("hang guard: nothing received within " + RawSockets.RECV_TIMEOUT_MS + " ms");
            }
            if (got == 0) return false;
            end += (int) got;
        }
        return true;
    }
}
