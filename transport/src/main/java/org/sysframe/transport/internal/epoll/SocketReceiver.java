package org.sysframe.transport.internal.epoll;

import org.sysframe.transport.WaitMode;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.Self;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.MemorySegment;

/**
 * A client's receive call with its {@link WaitMode}: one blocking recv, or non-blocking tries until
 * data (with sched_yield between them for YIELD, and a blocking recv once the budget of
 * SPIN_THEN_BLOCK is spent). The receive timeout holds in every mode: a spin gives up at the
 * deadline; a blocking recv has SO_RCVTIMEO (after a spin budget, the timeout runs from when it
 * blocks, so the whole wait may exceed it by the budget). Nothing is allocated on the way of a call
 * that gets data.
 *
 * <p>A receive with a deadline ({@link #recvBy}, a pipeline's earliest request deadline) ends by it:
 * a blocking recv then runs under an SO_RCVTIMEO shortened to what is left (changed only when it is
 * over {@value #SLACK_MILLIS} ms longer than that, or under half, so that steady pipelining makes no
 * setsockopt: the wait ends at most that late), and is retried if it woke early.
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
public final class SocketReceiver {
    /** How much later than a deadline a blocking wait may end, to spare a setsockopt per wait. */
    static final long SLACK_MILLIS = 10;

    private final UnixSocket socket;
    private final WaitMode mode;
    private final long timeoutNanos;
    private final long defaultTimeoNanos; // SO_RCVTIMEO as the client set it at connect (MAX: none)
    private long timeoNanos;              // SO_RCVTIMEO now

    SocketReceiver(UnixSocket socket, WaitMode mode, long timeoutMillis) {
        this.socket = socket;
        this.mode = mode;
        this.timeoutNanos = timeoutMillis * 1_000_000L;
        this.defaultTimeoNanos = timeoutMillis > 0 ? timeoutNanos : Long.MAX_VALUE;
        this.timeoNanos = defaultTimeoNanos;
    }

    /** At most len bytes into seg at off: the count, 0 at EOF, or {@link UnixSocket#WOULD_BLOCK} when the timeout expired. */
    long recv(MemorySegment seg, long off, long len) throws ErrnoException {
        if (mode.kind() == WaitMode.Kind.BLOCK) return recvBlocking(seg, off, len);
        long n = socket.recv(seg, off, len, UnixSocket.MSG_DONTWAIT);
        if (n != UnixSocket.WOULD_BLOCK) return n;
        long limit = timeoutNanos > 0 ? timeoutNanos : Long.MAX_VALUE;
        return keepTrying(seg, off, len, System.nanoTime(), limit, false);
    }

    /** As {@link #recv}, ending by deadline (System.nanoTime(); now: the caller's reading) too. */
    long recvBy(MemorySegment seg, long off, long len, long deadline, long now) throws ErrnoException {
        long end = timeoutNanos > 0 && now + timeoutNanos - deadline < 0 ? now + timeoutNanos : deadline;
        if (mode.kind() != WaitMode.Kind.BLOCK) {
            long n = socket.recv(seg, off, len, UnixSocket.MSG_DONTWAIT);
            if (n != UnixSocket.WOULD_BLOCK || end - now <= 0) return n;
            return keepTrying(seg, off, len, now, end - now, true);
        }
        return blockUntil(seg, off, len, end, now);
    }

    /** A blocking recv that ends by end (System.nanoTime()): WOULD_BLOCK once it passed. */
    private long blockUntil(MemorySegment seg, long off, long len, long end, long now) throws ErrnoException {
        while (true) {
            long left = end - now;
            if (left <= 0) return socket.recv(seg, off, len, UnixSocket.MSG_DONTWAIT);
            long slack = SLACK_MILLIS * 1_000_000L;
            if (timeoNanos - left > slack || timeoNanos < left / 2) setTimeo(left);
            long n = socket.recv(seg, off, len, 0);
            if (n != UnixSocket.WOULD_BLOCK) return n;
            now = System.nanoTime();
        }
    }

    /** SO_RCVTIMEO to nanos (whole milliseconds, at least 1; MAX_VALUE: none). */
    private void setTimeo(long nanos) throws ErrnoException {
        socket.setReceiveTimeout(nanos == Long.MAX_VALUE ? 0 : Math.max(1, nanos / 1_000_000L));
        timeoNanos = nanos == Long.MAX_VALUE ? nanos : Math.max(1, nanos / 1_000_000L) * 1_000_000L;
    }

    /**
     * Non-blocking tries from start for at most limitNanos (or the spin budget, then one blocking
     * recv: under the receive timeout from when it blocks, or, byDeadline, ending at start + limitNanos).
     */
    private long keepTrying(MemorySegment seg, long off, long len, long start, long limitNanos, boolean byDeadline) throws ErrnoException {
        boolean yields = mode.kind() == WaitMode.Kind.YIELD;
        long budget = mode.kind() == WaitMode.Kind.SPIN_THEN_BLOCK ? mode.spinNanos() : Long.MAX_VALUE;
        long limit = Math.min(budget, limitNanos);
        while (true) {
            if (yields) Self.yield(socket.counters());
            else Thread.onSpinWait();
            long n = socket.recv(seg, off, len, UnixSocket.MSG_DONTWAIT);
            if (n != UnixSocket.WOULD_BLOCK) return n;
            if (limit != Long.MAX_VALUE && System.nanoTime() - start >= limit) break;
        }
        if (mode.kind() == WaitMode.Kind.SPIN_THEN_BLOCK && limit == budget && budget < limitNanos) {
            if (!byDeadline) return recvBlocking(seg, off, len);
            return blockUntil(seg, off, len, start + limitNanos, System.nanoTime());
        }
        return UnixSocket.WOULD_BLOCK; // the receive timeout (or the deadline) expired while spinning
    }

    /** A blocking recv under the client's own receive timeout (restored if a deadline had shortened it). */
    private long recvBlocking(MemorySegment seg, long off, long len) throws ErrnoException {
        if (timeoNanos != defaultTimeoNanos) setTimeo(defaultTimeoNanos);
        return socket.recv(seg, off, len, 0);
    }
}
