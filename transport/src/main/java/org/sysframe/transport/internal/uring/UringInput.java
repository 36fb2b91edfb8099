package org.sysframe.transport.internal.uring;

import org.sysframe.transport.internal.io.ByteFifo;
import org.sysframe.transport.internal.io.InputBuffer;
import org.sysframe.transport.internal.server.ServerConnection;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.internal.uring.BufferRing;
import org.sysframe.unix.internal.uring.Cqe;

import java.lang.foreign.MemorySegment;

/**
 * The receiving part of an io_uring connection: one multishot RECV into the loop's provided buffer
 * ring; each completion's bytes are copied into the connection's {@link InputBuffer} and the buffer
 * is recycled at once. Bytes the connection cannot take now (its output is backed up, or it has
 * requests left for the next turn) are kept here, in order, and given to it when it reads again;
 * past {@value #PENDING_LIMIT} bytes kept, the receive is cancelled and armed again once they are
 * taken (nothing is ever dropped). EOF and errors are delivered behind the kept bytes. Owns the
 * receive's {@link ReceiveState}, the kept bytes, the pause asked for while the connection waits for
 * memory and its own cancels in flight. Loop thread only.
 */
final class UringInput {
    /** Bytes kept past which the receive is cancelled until they are taken. */
    static final int PENDING_LIMIT = 64 * 1024;
    /** The first mapping of the bytes kept; a larger one is freed once they are taken. */
    static final int PENDING_FIRST = 16 * 1024;

    private final UringSocket socket;
    private final UringRing ring;
    private final ByteFifo pending = new ByteFifo(PENDING_FIRST, Long.MAX_VALUE, null); // received, not taken yet
    private ReceiveState state = ReceiveState.IDLE;
    private boolean paused;    // the connection waits for memory: nothing more is received until it reads again
    private int cancels;       // this part's ASYNC_CANCELs in flight
    private int endErrno = -1; // the receive ended (0: EOF, else errno) behind the kept bytes; -1: not

    UringInput(UringSocket socket, UringRing ring) {
        this.socket = socket;
        this.ring = ring;
    }

    ReceiveState state() { return state; }

    /** Arms the multishot receive. */
    void arm() {
        state = state.armed();
        ring.sqe().prepRecvMultishot(socket.fd(), ring.buffers.group()).userData(socket.ud(UserData.RECV));
    }

    private void cancel() {
        state = state.cancelAsked();
        cancels++;
        ring.sqe().prepCancel(socket.ud(UserData.RECV), 0, 0).userData(socket.ud(UserData.CANCEL));
    }

    /** A completion of the receive (more: F_MORE, another one comes). */
    void received(int res, int flags, boolean more) {
        if (!more) state = state.ended();
        boolean open = socket.isOpen();
        ServerConnection connection = socket.connection();
        if (res > 0) {
            BufferRing b = ring.buffers;
            int bid = (flags & Cqe.F_BUFFER) != 0 ? flags >>> 16 : -1;
            b.taken(bid);
            int copied = 0;
            if (open) {
                MemorySegment from = b.memory();
                long at = b.offset(bid);
                if (pending.isEmpty() && connection.wantsInput()) {
                    InputBuffer in = connection.input();
                    in.ready();
                    copied = (int) Math.min(res, in.free());
                    MemorySegment.copy(from, at, in.segment(), in.end(), copied);
                    in.produced(copied);
                }
                if (copied < res) keep(from, at + copied, res - copied);
            }
            b.recycle(bid);
            if (!open) return;
            if (copied > 0) connection.onInput();
            pump();
        } else if (res == 0 || (res < 0 && res != -Errno.ENOBUFS && res != -Errno.ECANCELED)) {
            if (!open) return;
            endErrno = -res;
            pump();
        } else if (open) {
            pump(); // ENOBUFS (the ring ran dry) or our cancel: armed again when the kept bytes allow
        }
    }

    /** The completion of one of this part's cancels. */
    void cancelled() {
        cancels--;
        if (socket.isOpen()) pump();
    }

    /** Keeps n bytes of the completion for later (the connection cannot take them now). */
    private void keep(MemorySegment from, long at, int n) {
        // as Arena.allocate fails
        if (!pending.reserve(n)) throw new OutOfMemoryError("io_uring receive: no memory to keep " + n + " more bytes");
        pending.append(from, at, n);
        // enough kept: stop until they are taken
        if (pending.size() > PENDING_LIMIT && state == ReceiveState.ARMED) cancel();
    }

    /**
     * Gives the kept bytes to the connection while it reads; then the end of the stream if it came
     * behind them, or arms the receive again if it ended (a dry ring, a cancel).
     */
    void pump() {
        ServerConnection connection = socket.connection();
        while (socket.isOpen() && !pending.isEmpty() && connection.wantsInput()) {
            InputBuffer in = connection.input();
            in.ready();
            int n = (int) Math.min(pending.size(), in.free());
            if (n == 0) break;
            MemorySegment.copy(pending.memory(), pending.start(), in.segment(), in.end(), n);
            pending.consumed(n);
            in.produced(n);
            connection.onInput();
        }
        if (!socket.isOpen() || !pending.isEmpty()) return;
        if (pending.capacity() > PENDING_FIRST) pending.free();
        if (endErrno >= 0) {
            if (!connection.wantsInput()) return; // as epoll would: seen when the connection reads again
            int e = endErrno;
            endErrno = -1;
            if (e == 0) connection.onEof();
            else connection.onReadFailed(new ErrnoException("recv", e));
            return;
        }
        if (state == ReceiveState.IDLE && cancels == 0 && !paused) arm();
    }

    /** Stops receiving while the connection waits for memory (true), or receives again. */
    void pause(boolean on) {
        paused = on;
        if (on) {
            if (state == ReceiveState.ARMED) cancel();
        } else if (socket.isOpen()) {
            pump();
        }
    }

    /** The connection closed: the kept bytes go, the receive is cancelled. */
    void close() {
        pending.free();
        if (state == ReceiveState.ARMED) cancel();
    }

    /** Whether nothing of this part is in flight any more. */
    boolean done() { return state == ReceiveState.IDLE && cancels == 0; }
}
