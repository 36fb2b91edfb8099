package org.sysframe.transport.internal.epoll;

import org.sysframe.transport.WaitMode;
import org.sysframe.transport.internal.io.FdPoller;
import org.sysframe.transport.internal.io.Waiter;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.MemorySegment;

/**
 * A client's receive call with its {@link WaitMode}, through the transport's one {@link Waiter}: a
 * look is a recv(MSG_DONTWAIT), a sleep a blocking recv. The receive timeout bounds the whole wait in
 * every mode, a spin included; a blocking recv has SO_RCVTIMEO. Nothing is allocated on the way of a
 * call that gets data.
 *
 * <p>A sleep that must end by a bound shorter than the receive timeout (after a spin budget, or a
 * pipeline's earliest request deadline, {@link #recvBy}) runs under an SO_RCVTIMEO shortened to it,
 * changed only when it is over {@value #SLACK_MILLIS} ms longer than the bound, or under half of it,
 * so that steady pipelining and short spin budgets make no setsockopt: the wait ends at most that
 * late; one that wakes early with nothing sleeps again until the bound.
 *
 * <p>On a virtual thread a sleep never blocks in the kernel (that would pin its carrier): it is a
 * recv(MSG_DONTWAIT), then a park in the JVM's {@link FdPoller} until the socket is readable or the
 * bound passed, then another recv(MSG_DONTWAIT). An interrupt ends the wait with EINTR.
 */
public final class SocketReceiver {
    /** How much later than a deadline a blocking wait may end, to spare a setsockopt per wait. */
    static final long SLACK_MILLIS = 10;
    private static final long SLACK_NANOS = SLACK_MILLIS * 1_000_000L;

    private final UnixSocket socket;
    private final long timeoutNanos;
    private final long defaultTimeoNanos; // SO_RCVTIMEO as the client set it at connect (MAX: none)
    private final Waiter waiter;
    private final Steps steps = new Steps();
    private long timeoNanos;              // SO_RCVTIMEO now
    // The receive in progress: where it goes, and what the last recv returned.
    private MemorySegment seg;
    private long off, len, result;

    SocketReceiver(UnixSocket socket, WaitMode mode, long timeoutMillis) {
        this.socket = socket;
        this.timeoutNanos = timeoutMillis * 1_000_000L;
        this.defaultTimeoNanos = timeoutMillis > 0 ? timeoutNanos : Long.MAX_VALUE;
        this.timeoNanos = defaultTimeoNanos;
        this.waiter = new Waiter(mode, socket.counters(), Waiter.Looks.SYSCALL);
    }

    /**
     * At most len bytes into seg at off: the count, 0 at EOF, or {@link UnixSocket#WOULD_BLOCK} when the timeout
     * expired.
     */
    long recv(MemorySegment seg, long off, long len) throws ErrnoException {
        if (timeoutNanos <= 0) return receive(seg, off, len, 0, Waiter.NO_BOUND);
        return receive(seg, off, len, System.nanoTime(), timeoutNanos);
    }

    /** As {@link #recv}, ending by deadline (System.nanoTime(); now: the caller's reading) too. */
    long recvBy(MemorySegment seg, long off, long len, long deadline, long now) throws ErrnoException {
        long end = timeoutNanos > 0 && now + timeoutNanos - deadline < 0 ? now + timeoutNanos : deadline;
        return receive(seg, off, len, now, Math.max(0, end - now));
    }

    private long receive(MemorySegment seg, long off, long len, long start, long nanos) throws ErrnoException {
        this.seg = seg;
        this.off = off;
        this.len = len;
        result = UnixSocket.WOULD_BLOCK;
        try {
            waiter.await(steps, start, nanos);
            return result;
        } finally {
            this.seg = null;
        }
    }

    /** SO_RCVTIMEO to nanos (whole milliseconds, at least 1; MAX_VALUE: none). */
    private void setTimeo(long nanos) throws ErrnoException {
        socket.setReceiveTimeout(nanos == Long.MAX_VALUE ? 0 : Math.max(1, nanos / 1_000_000L));
        timeoNanos = nanos == Long.MAX_VALUE ? nanos : Math.max(1, nanos / 1_000_000L) * 1_000_000L;
    }

    /**
     * A virtual thread's sleep: look, park in the poller up to nanos (NO_BOUND: the receive timeout, or none), look
     * again.
     */
    private int parkUntilReadable(long nanos) throws ErrnoException {
        result = socket.recv(seg, off, len, UnixSocket.MSG_DONTWAIT);
        if (result != UnixSocket.WOULD_BLOCK) return 1;
        long bound = nanos != Waiter.NO_BOUND ? nanos : defaultTimeoNanos;
        long now = System.nanoTime();
        long deadline = bound == Long.MAX_VALUE || now + bound < now ? Long.MAX_VALUE : now + bound;
        FdPoller.get().await(socket.fd(), FdPoller.READABLE, deadline);
        if (Thread.currentThread().isInterrupted()) throw interrupted(socket.name());
        result = socket.recv(seg, off, len, UnixSocket.MSG_DONTWAIT);
        return result == UnixSocket.WOULD_BLOCK ? 0 : 1;
    }

    /** The error of a virtual thread interrupted while it waited on socket name (its interrupt status stays set). */
    static ErrnoException interrupted(String name) {
        return new ErrnoException("recv(" + name + ")", Errno.EINTR, "the waiting thread was interrupted");
    }

    /** The waiter's steps on this socket. */
    private final class Steps implements Waiter.Steps {
        @Override
        public int poll() throws ErrnoException {
            result = socket.recv(seg, off, len, UnixSocket.MSG_DONTWAIT);
            return result == UnixSocket.WOULD_BLOCK ? 0 : 1;
        }

        @Override
        public int block(long nanos) throws ErrnoException {
            if (nanos == 0) return poll();
            if (Thread.currentThread().isVirtual()) return parkUntilReadable(nanos);
            // Bounds are never above the receive timeout: within the slack of it, the client's own is used.
            long want = nanos == Waiter.NO_BOUND || defaultTimeoNanos - nanos <= SLACK_NANOS ? defaultTimeoNanos
                    : nanos;
            if (timeoNanos - want > SLACK_NANOS || timeoNanos < want / 2) setTimeo(want);
            result = socket.recv(seg, off, len, 0);
            return result == UnixSocket.WOULD_BLOCK ? 0 : 1;
        }
    }
}
