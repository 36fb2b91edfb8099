package org.sysframe.transport.internal.epoll;

import org.sysframe.transport.WaitMode;
import org.sysframe.transport.internal.io.ClientLink;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.IovArray;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;
import org.sysframe.unix.uring.UringCounts;

import java.lang.foreign.MemorySegment;

/**
 * The epoll backend's client path: one send, sendmsg or recv syscall per call, on a blocking socket.
 * A send that stops short is the send timeout (SO_SNDTIMEO): ETIMEDOUT, saying how much was taken.
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
public final class SocketLink implements ClientLink {
    private final UnixSocket socket;
    private final SocketReceiver receiver;
    private final long sendTimeoutMillis;

    public SocketLink(UnixSocket socket, WaitMode mode, long timeoutMillis, long sendTimeoutMillis) {
        this.socket = socket;
        this.receiver = new SocketReceiver(socket, mode, timeoutMillis);
        this.sendTimeoutMillis = sendTimeoutMillis;
    }

    @Override
    public long sendUntilFull(MemorySegment seg, long off, long len) throws ErrnoException {
        long n = socket.sendUntilFull(seg, off, len);
        if (n < len) throw sendTimedOut(n, len);
        return n;
    }

    @Override
    public long sendmsg(IovArray iov) throws ErrnoException {
        long n = socket.sendmsg(iov, 0);
        if (n == UnixSocket.WOULD_BLOCK) throw sendTimedOut(0, iov.remaining());
        return n;
    }

    private ErrnoException sendTimedOut(long sent, long len) {
        return new ErrnoException("send(" + socket.name() + ")", Errno.ETIMEDOUT, "the server took " + sent + " of " + len
                + " bytes within the send timeout of " + sendTimeoutMillis + " ms (it does not read)");
    }

    @Override
    public long recv(MemorySegment seg, long off, long len) throws ErrnoException { return receiver.recv(seg, off, len); }

    @Override
    public long recvBy(MemorySegment seg, long off, long len, long deadline, long now) throws ErrnoException {
        return receiver.recvBy(seg, off, len, deadline, now);
    }

    @Override
    public long tryRecv(MemorySegment seg, long off, long len) throws ErrnoException {
        return socket.recv(seg, off, len, UnixSocket.MSG_DONTWAIT);
    }

    @Override
    public void flush() {}

    @Override
    public UringCounts uringCounts() { return UringCounts.ZERO; }

    @Override
    public SyscallCounters counters() { return socket.counters(); }

    @Override
    public String name() { return socket.name(); }

    @Override
    public void close() {}
}
