package org.sysframe.transport;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.Self;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.MemorySegment;

/**
 * A client's receive call with its {@link WaitMode}: one blocking recv, or non-blocking tries until
 * data (with sched_yield between them for YIELD, and a blocking recv once the budget of
 * SPIN_THEN_BLOCK is spent). The receive timeout holds in every mode: a spin gives up at the
 * deadline; a blocking recv has SO_RCVTIMEO (after a spin budget, the timeout runs from when it
 * blocks, so the whole wait may exceed it by the budget). Nothing is allocated.
 */
final class SocketReceiver {
    private final UnixSocket socket;
    private final WaitMode mode;
    private final long timeoutNanos;

    SocketReceiver(UnixSocket socket, WaitMode mode, long timeoutMillis) {
        this.socket = socket;
        this.mode = mode;
        this.timeoutNanos = timeoutMillis * 1_000_000L;
    }

    /** At most len bytes into seg at off: the count, 0 at EOF, or {@link UnixSocket#WOULD_BLOCK} when the timeout expired. */
    long recv(MemorySegment seg, long off, long len) throws ErrnoException {
        if (mode.kind() == WaitMode.Kind.BLOCK) return socket.recv(seg, off, len, 0);
        long n = socket.recv(seg, off, len, UnixSocket.MSG_DONTWAIT);
        if (n != UnixSocket.WOULD_BLOCK) return n;
        return keepTrying(seg, off, len);
    }

    private long keepTrying(MemorySegment seg, long off, long len) throws ErrnoException {
        long start = System.nanoTime();
        boolean yields = mode.kind() == WaitMode.Kind.YIELD;
        long budget = mode.kind() == WaitMode.Kind.SPIN_THEN_BLOCK ? mode.spinNanos() : Long.MAX_VALUE;
        long limit = timeoutNanos > 0 ? Math.min(budget, timeoutNanos) : budget;
        while (true) {
            if (yields) Self.yield(socket.counters());
            else Thread.onSpinWait();
            long n = socket.recv(seg, off, len, UnixSocket.MSG_DONTWAIT);
            if (n != UnixSocket.WOULD_BLOCK) return n;
            if (limit != Long.MAX_VALUE && System.nanoTime() - start >= limit) break;
        }
        if (mode.kind() == WaitMode.Kind.SPIN_THEN_BLOCK && limit == budget) return socket.recv(seg, off, len, 0);
        return UnixSocket.WOULD_BLOCK; // the receive timeout expired while spinning
    }
}
