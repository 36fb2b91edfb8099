package org.sysframe.transport.internal.epoll;

import org.sysframe.transport.WaitMode;
import org.sysframe.transport.internal.io.ClientLink;
import org.sysframe.transport.internal.io.FdPoller;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.IovArray;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The receive side of a shared client, whose receiving role moves from caller to caller: on a
 * platform thread a receive is the epoll backend's own ({@link SocketLink}: a blocking recv under
 * SO_RCVTIMEO); on a virtual thread it never blocks in the kernel: recv(MSG_DONTWAIT), a park in the
 * JVM's {@link FdPoller} until the socket is readable or the bound passed, another recv(MSG_DONTWAIT).
 *
 * <p>The poller takes one waiter per descriptor, and a shared client may have two at once (its
 * receiver waiting for answers, its sender for room): {@link #awaitReady} lets the first of them wait
 * in the poller and has the other look again every {@value #RETRY_MICROS} us until its own bound.
 * That happens only while the socket is full and nothing has come to read.
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
public final class SharedSocketLink implements ClientLink {
    /** How often the second waiter on the descriptor looks again while the first waits in the poller. */
    static final long RETRY_MICROS = 200;

    private final UnixSocket socket;
    private final SocketLink platform;
    private final long timeoutNanos;
    private final AtomicBoolean inPoller = new AtomicBoolean();

    public SharedSocketLink(UnixSocket socket, WaitMode mode, long timeoutMillis, long sendTimeoutMillis) {
        this.socket = socket;
        this.platform = new SocketLink(socket, mode, timeoutMillis, sendTimeoutMillis);
        this.timeoutNanos = timeoutMillis * 1_000_000L;
    }

    /**
     * Parks until fd is ready for events ({@link FdPoller#READABLE}, {@link FdPoller#WRITABLE}), or
     * deadline passed, or the thread is interrupted (the caller checks); it may return early: the
     * caller retries its non-blocking call. fd: this client's descriptor, as either side sees it.
     */
    public void awaitReady(int fd, int events, long deadline) throws ErrnoException {
        if (inPoller.compareAndSet(false, true)) {
            try {
                FdPoller.get().await(fd, events, deadline);
            } finally {
                inPoller.set(false);
            }
            return;
        }
        long left = deadline - System.nanoTime();
        if (left > 0) LockSupport.parkNanos(this, Math.min(left, RETRY_MICROS * 1000));
    }

    @Override
    public long recv(MemorySegment seg, long off, long len) throws ErrnoException {
        if (!Thread.currentThread().isVirtual()) return platform.recv(seg, off, len);
        long now = System.nanoTime();
        return parkingRecv(seg, off, len, timeoutNanos > 0 ? now + timeoutNanos : Long.MAX_VALUE);
    }

    @Override
    public long recvBy(MemorySegment seg, long off, long len, long deadline, long now) throws ErrnoException {
        if (!Thread.currentThread().isVirtual()) return platform.recvBy(seg, off, len, deadline, now);
        long end = timeoutNanos > 0 && now + timeoutNanos - deadline < 0 ? now + timeoutNanos : deadline;
        return parkingRecv(seg, off, len, end);
    }

    /** A virtual thread's receive: look, park until readable or until (Long.MAX_VALUE: none), look again. */
    private long parkingRecv(MemorySegment seg, long off, long len, long until) throws ErrnoException {
        while (true) {
            long n = socket.recv(seg, off, len, UnixSocket.MSG_DONTWAIT);
            if (n != UnixSocket.WOULD_BLOCK) return n;
            if (until != Long.MAX_VALUE && until - System.nanoTime() <= 0) return n;
            awaitReady(socket.fd(), FdPoller.READABLE, until);
            if (Thread.currentThread().isInterrupted()) throw SocketReceiver.interrupted(socket.name());
        }
    }

    @Override
    public long tryRecv(MemorySegment seg, long off, long len) throws ErrnoException {
        return socket.recv(seg, off, len, UnixSocket.MSG_DONTWAIT);
    }

    /** Not used: a shared client sends its queue itself. */
    @Override
    public long sendUntilFull(MemorySegment seg, long off, long len) throws ErrnoException {
        throw new UnsupportedOperationException("a shared client sends its queue itself");
    }

    /** Not used: a shared client sends its queue itself. */
    @Override
    public long sendmsg(IovArray iov) throws ErrnoException {
        throw new UnsupportedOperationException("a shared client sends its queue itself");
    }

    @Override
    public SyscallCounters counters() { return socket.counters(); }

    @Override
    public String name() { return socket.name(); }

    @Override
    public void close() {}
}
