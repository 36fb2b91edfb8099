package org.sysframe.transport.internal.epoll;

import org.sysframe.transport.WaitMode;
import org.sysframe.transport.internal.io.ClientLink;
import org.sysframe.transport.internal.io.FdPoller;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.IovArray;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.MemorySegment;

/**
 * The epoll backend's client path: one send, sendmsg or recv syscall per call, on a blocking socket.
 * A send that stops short is the send timeout (SO_SNDTIMEO): ETIMEDOUT, saying how much was taken.
 *
 * On a virtual thread the sends carry MSG_DONTWAIT and a full socket is waited for in the JVM's
 * {@link FdPoller} (the carrier is not pinned), within the same send timeout.
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
        if (Thread.currentThread().isVirtual()) return sendParking(seg, off, len);
        long n = socket.sendUntilFull(seg, off, len);
        if (n < len) throw sendTimedOut(n, len);
        return n;
    }

    @Override
    public long sendmsg(IovArray iov) throws ErrnoException {
        if (Thread.currentThread().isVirtual()) {
            long deadline = sendDeadline();
            long total = iov.remaining();
            while (true) {
                long n = socket.sendmsg(iov, UnixSocket.MSG_DONTWAIT);
                if (n != UnixSocket.WOULD_BLOCK) return n;
                if (!awaitWritable(deadline)) throw sendTimedOut(0, total);
            }
        }
        long n = socket.sendmsg(iov, 0);
        if (n == UnixSocket.WOULD_BLOCK) throw sendTimedOut(0, iov.remaining());
        return n;
    }

    /**
     * A virtual thread's send: MSG_DONTWAIT, and a park in the poller while the socket is full, until the send timeout.
     */
    private long sendParking(MemorySegment seg, long off, long len) throws ErrnoException {
        long deadline = sendDeadline();
        long done = 0;
        while (done < len) {
            long n = socket.send(seg, off + done, len - done, UnixSocket.MSG_DONTWAIT);
            if (n != UnixSocket.WOULD_BLOCK) {
                done += n;
            } else if (!awaitWritable(deadline)) {
                throw sendTimedOut(done, len);
            }
        }
        return done;
    }

    /** The send timeout from now (0: none, a deadline far away). */
    private long sendDeadline() {
        return sendTimeoutMillis == 0 ? System.nanoTime() + Long.MAX_VALUE / 2 : System.nanoTime()
                + sendTimeoutMillis * 1_000_000L;
    }

    /** Parks until the socket takes bytes again; false when the deadline passed first. EINTR when interrupted. */
    private boolean awaitWritable(long deadline) throws ErrnoException {
        if (deadline - System.nanoTime() <= 0) return false;
        FdPoller.get().await(socket.fd(), FdPoller.WRITABLE, deadline);
        if (Thread.currentThread().isInterrupted()) {
            throw new ErrnoException("send(" + socket.name() + ")", Errno.EINTR, "the sending thread was interrupted");
        }
        return true;
    }

    private ErrnoException sendTimedOut(long sent, long len) {
        return new ErrnoException("send(" + socket.name() + ")", Errno.ETIMEDOUT, "the server took " + sent + " of "
                + len
                + " bytes within the send timeout of " + sendTimeoutMillis + " ms (it does not read)");
    }

    @Override
    public long recv(MemorySegment seg, long off, long len) throws ErrnoException {
        return receiver.recv(seg, off, len);
    }

    @Override
    public long recvBy(MemorySegment seg, long off, long len, long deadline, long now) throws ErrnoException {
        return receiver.recvBy(seg, off, len, deadline, now);
    }

    @Override
    public long tryRecv(MemorySegment seg, long off, long len) throws ErrnoException {
        return socket.recv(seg, off, len, UnixSocket.MSG_DONTWAIT);
    }

    @Override
    public SyscallCounters counters() { return socket.counters(); }

    @Override
    public String name() { return socket.name(); }

    @Override
    public int readableFd() { return socket.fd(); }

    @Override
    public void close() {}
}
