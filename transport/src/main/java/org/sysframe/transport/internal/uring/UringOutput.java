package org.sysframe.transport.internal.uring;

import org.sysframe.transport.internal.io.ByteFifo;
import org.sysframe.transport.internal.io.UnsentQueue;
import org.sysframe.transport.internal.server.ServerConnection;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.UnixSocket;
import org.sysframe.unix.internal.uring.Sqe;

import java.io.UncheckedIOException;

/**
 * The sending part of an io_uring connection. Its SENDs are SQEs, submitted at the end of the turn, and
 * the protocol reuses its memory right after each call, so every byte the connection writes is queued
 * in the connection's one {@link UnsentQueue} (this part is its {@code Outlet.FromQueue} outlet) and sent
 * from the queue's memory: at the end of the turn one SEND of the first {@value #AREA} bytes at most
 * (whatever the protocol wrote during the turn, in IMMEDIATE mode too), one in flight at a time, its
 * memory pinned until it completes ({@link ByteFifo#pin()}). The first {@value #AREA} bytes of the queue
 * are this part's output area, the counterpart of epoll's socket send buffer; past them the connection
 * waits for room ({@link ServerConnection#onWritable()}, which comes with the SEND completion that
 * made the queue catch up). SENDs carry MSG_DONTWAIT (and MSG_WAITALL, which makes a short send a failed
 * one), so each completes within the io_uring_enter that submits it, and a NOP linked to it with
 * CQE_SKIP_SUCCESS completes (ECANCELED) only when it came back short: the loop counts on both to wait
 * for the sends and the next arrival in one enter. A send that finds the socket full (EAGAIN, or a short
 * send) arms a POLL_ADD for POLLOUT and sends the rest, first, when it fires. Closed with bytes in the
 * area, it keeps sending them for {@value #LINGER_NANOS} ns at most (see {@link #close()}).
 *
 * <p>Owns the {@link SendState}, the connection's wait for room, the linger and its own cancels in
 * flight; the bytes are the queue's. Loop thread only.
 */
final class UringOutput {
    /**
     * Bytes of the output area: the most one SEND takes, and what the queue holds before the connection waits for room.
     */
    static final int AREA = 64 * 1024;
    /**
     * Linger time of a closed connection's unsent area: what a peer that reads gets, as epoll's socket buffer would.
     */
    static final long LINGER_NANOS = 10_000_000_000L;

    private final UringSocket socket;
    private final UringRing ring;
    private ByteFifo queue;        // the connection's unsent bytes (its UnsentQueue's), from attach
    private int sending;           // bytes of the SEND in flight (from the queue's start)
    private SendState state = SendState.IDLE;
    private boolean waitingForRoom; // the connection's queue is past the area
    private boolean gaveUp;         // closed: the area's bytes are dropped (an error, or the linger ran out)
    private long lingerUntil;       // closed with bytes in the area: System.nanoTime() until which they may still go
    private int cancels;            // this part's ASYNC_CANCELs in flight

    UringOutput(UringSocket socket, UringRing ring) {
        this.socket = socket;
        this.ring = ring;
    }

    SendState state() { return state; }

    long lingerUntil() { return lingerUntil; }

    /** Outlet.FromQueue.attach: the connection's queue, whose memory the SENDs read. */
    void attach(UnsentQueue q) { this.queue = q.bytes(); }

    private boolean nothingQueued() { return queue == null || queue.isEmpty(); }

    /**
     * Outlet.FromQueue.queued: bytes wait in the queue: send them at the end of the turn (one SEND for all the turn
     * wrote).
     */
    void queued() {
        if (state != SendState.IDLE || nothingQueued() || !socket.isOpen()) return;
        state = state.queued();
        ring.host.sendSoon(socket);
    }

    /** End of turn: prepares the SEND of the bytes waiting in the queue (an area's worth at most). */
    void flush() {
        if (state != SendState.QUEUED) return; // a closed connection's linger sends already
        if (nothingQueued() || !socket.isOpen()) {
            state = state.unqueued();
            return;
        }
        startSend();
        ring.sendPrepared();
        try {
            // SEND and its linked NOP go in the same submission (a link cut at a submit boundary would not hold).
            if (ring.uring.pending() + 2 > ring.uring.sqEntries()) ring.uring.submit(0, 0);
        } catch (ErrnoException e) {
            throw new UncheckedIOException(e);
        }
        ring.sqe().prepSend(socket.fd(), queue.memory().address() + queue.start(), sending,
                UnixSocket.MSG_NOSIGNAL | UnixSocket.MSG_DONTWAIT | UnixSocket.MSG_WAITALL).flags(Sqe.IO_LINK)
                .userData(socket.ud(UserData.SEND));
        // No completion when the SEND took everything; one (ECANCELED) when it came back short or failed,
        // so that the enter waiting for "the sends and one more" returns then too.
        ring.sqeUnawaited().prepNop().flags(Sqe.CQE_SKIP_SUCCESS).userData(socket.ud(UserData.SEND_SHORT));
    }

    /** A SEND of the queue's first bytes (an area's worth at most) starts: its memory stays put until it completes. */
    private void startSend() {
        sending = (int) Math.min(queue.size(), AREA);
        state = state.started();
        queue.pin();
    }

    /** The SEND's completion. */
    void sent(int res) {
        int len = sending;
        sending = 0;
        state = state.sent();
        queue.unpin();
        if (!socket.isOpen()) {
            if (res > 0) queue.consumed(Math.min(res, len));
            if (res < 0 && res != -Errno.EAGAIN) gaveUp = true;
            if (queue.isEmpty() || gaveUp) return;
            if (res == -Errno.EAGAIN || res < len) armPollOut();
            else lingerSend();
            return;
        }
        ServerConnection connection = socket.connection();
        if (res == -Errno.EAGAIN) {
            armPollOut();
            return;
        }
        if (res < 0) {
            connection.close(res == -Errno.EPIPE || res == -Errno.ECONNRESET ? "peer closed (send: " + Errno.name(-res)
                    + ")"
                    : "send failed: " + Errno.name(-res));
            return;
        }
        queue.consumed(Math.min(res, len));
        if (res < len) armPollOut(); // the socket is full: the rest goes first, when there is room
        if (!queue.isEmpty()) queued();
        else if (state == SendState.IDLE) queue.free(); // all sent: the area goes back to the loop's pool
        if (waitingForRoom) connection.onWritable();
        if (socket.isOpen()) socket.pump();
    }

    private void armPollOut() {
        state = state.polling();
        ring.sqe().prepPollAdd(socket.fd(), Sqe.POLLOUT, false).userData(socket.ud(UserData.POLLOUT));
    }

    /** The POLL_ADD(POLLOUT)'s completion: room to send the rest. */
    void pollDone(int res) {
        state = state.writable();
        if (socket.isOpen()) queued();
        else if (!gaveUp && res >= 0) lingerSend();
    }

    /** Outlet.wantWritable: the connection waits for room (true) or not. */
    void wantWritable(boolean on) {
        if (on != waitingForRoom) ring.waitingForRoom(on);
        waitingForRoom = on;
        if (on && state == SendState.IDLE) ring.host.writableSoon(socket);
    }

    /** End of turn, for a connection that waits for room with no SEND in flight. */
    void writableNow() {
        if (socket.isOpen() && waitingForRoom) {
            socket.connection().onWritable();
            if (socket.isOpen()) socket.pump();
        }
    }

    /**
     * The loop's timer: an area with nothing in it goes until the next answer (64 KiB per quiet connection otherwise).
     */
    void releaseIdle() {
        if (!socket.isOpen() || queue == null || queue.capacity() == 0 || !queue.isEmpty()
                || state != SendState.IDLE) return;
        queue.free();
    }

    /**
     * The connection closed (its queue kept only the area's bytes, {@link UnsentQueue#close()}): what is
     * left keeps going, as the kernel's socket buffer would deliver it after an epoll close, until sent,
     * the peer gone, or {@value #LINGER_NANOS} ns passed.
     */
    void close() {
        if (waitingForRoom) ring.waitingForRoom(false);
        waitingForRoom = false;
        if (!nothingQueued()) {
            lingerUntil = System.nanoTime() + LINGER_NANOS;
            ring.host.lingering(socket);
            if (!state.inFlight()) lingerSend();
        }
    }

    private void lingerSend() {
        startSend();
        ring.sqe().prepSend(socket.fd(), queue.memory().address() + queue.start(), sending,
                UnixSocket.MSG_NOSIGNAL | UnixSocket.MSG_DONTWAIT)
                .userData(socket.ud(UserData.SEND));
    }

    /** The linger time ran out (or the loop stops): whatever is left is dropped and its operations cancelled. */
    void lingerExpired() {
        if (gaveUp) return;
        gaveUp = true;
        if (state.inFlight()) {
            cancels++;
            ring.sqe().prepCancel(0, socket.fd(), Sqe.ASYNC_CANCEL_FD | Sqe.ASYNC_CANCEL_ALL)
                    .userData(socket.ud(UserData.CANCEL_SEND));
        }
    }

    /** The completion of this part's cancel. */
    void cancelled() { cancels--; }

    /** Whether nothing of this part is in flight and nothing is left to send. */
    boolean done() { return !state.inFlight() && cancels == 0 && (nothingQueued() || gaveUp); }

    /** Frees the queue's memory (once done). */
    void free() {
        if (queue != null) queue.free();
    }
}
