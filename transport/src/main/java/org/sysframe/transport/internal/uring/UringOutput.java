package org.sysframe.transport.internal.uring;

import org.sysframe.transport.internal.io.ByteFifo;
import org.sysframe.transport.internal.io.OutputBatch;
import org.sysframe.transport.internal.server.ServerConnection;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.IovArray;
import org.sysframe.unix.UnixSocket;
import org.sysframe.unix.internal.uring.Sqe;

import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;

/**
 * The sending part of an io_uring connection. The protocol's memory is reused right after each call,
 * so what it writes is copied into this part's output area (a {@link ByteFifo} of {@value #AREA}
 * bytes, its own mapping, made at the first answer) and sent from there at the end of the turn by one SEND SQE (whatever the
 * protocol wrote during the turn, in IMMEDIATE mode too), one in flight at a time; a call takes fewer
 * bytes when the area is full, and the protocol queues the rest and waits for
 * {@link ServerConnection#onWritable()}, which comes with the SEND completion that freed room. SENDs
 * carry MSG_DONTWAIT (and MSG_WAITALL, which makes a short send a failed one), so each completes
 * within the io_uring_enter that submits it, and a NOP linked to it with CQE_SKIP_SUCCESS completes
 * (ECANCELED) only when it came back short: the loop counts on both to wait for the sends and the
 * next arrival in one enter. A send that finds the socket full (EAGAIN, or a short send) arms a
 * POLL_ADD for POLLOUT and sends the rest, first, when it fires. Closed with bytes in the area, it
 * keeps sending them for {@value #LINGER_NANOS} ns at most (see {@link #close()}).
 *
 * <p>Owns the area, the {@link SendState}, the connection's wait for room, the linger and its own
 * cancels in flight. Loop thread only.
 */
final class UringOutput {
    /** Bytes of the output area. */
    static final int AREA = 64 * 1024;
    /** Linger time of a closed connection's unsent area: what a peer that reads gets, as epoll's socket buffer would. */
    static final long LINGER_NANOS = 10_000_000_000L;

    private final UringSocket socket;
    private final UringRing ring;
    private final ByteFifo area = new ByteFifo(AREA, AREA, null); // the unsent bytes: one mapping of AREA bytes from the first answer
    private int sending;           // bytes of the SEND in flight (from the area's start)
    private SendState state = SendState.IDLE;
    private boolean waitingForRoom; // the connection queued output past the area
    private boolean gaveUp;         // closed: the area's bytes are dropped (an error, or the linger ran out)
    private long lingerUntil;       // closed with bytes in the area: System.nanoTime() until which they may still go
    private int cancels;            // this part's ASYNC_CANCELs in flight

    UringOutput(UringSocket socket, UringRing ring) {
        this.socket = socket;
        this.ring = ring;
    }

    SendState state() { return state; }

    long lingerUntil() { return lingerUntil; }

    private void ensureArea() {
        // A mapping of its own, as the large input buffers: released when idle, it goes back to the
        // kernel, not into malloc's free lists (where the process would keep it).
        if (area.capacity() == 0 && !area.reserve(AREA)) throw new OutOfMemoryError("io_uring output area of " + AREA + " bytes"); // as Arena.allocate fails
        if (state != SendState.SENDING) area.compact(); // nothing of the area is the kernel's now
    }

    private long room() { return area.capacity() - area.end(); }

    /** Outlet.write: copies what fits of the message into the area. */
    long write(MemorySegment header, int hlen, MemorySegment payload, long off, long len) {
        if (!socket.isOpen()) return hlen + len;
        ensureArea();
        long n = Math.min(hlen + len, room());
        long h = Math.min(hlen, n);
        area.append(header, 0, h);
        if (n > h) area.append(payload, off, n - h);
        wantSend();
        return n;
    }

    /** Outlet.gather: the whole batch into the area, or nothing (the protocol queues it and sends it later). */
    void gather(OutputBatch batch) {
        IovArray iov = batch.iov();
        if (!socket.isOpen()) {
            iov.advance(iov.remaining());
            return;
        }
        ensureArea();
        long r = iov.remaining();
        if (r > room() || r != batch.bytes()) return;
        batch.copyTo(area.memory(), area.end());
        area.produced(r);
        iov.advance(r);
        wantSend();
    }

    /** Outlet.send: copies what fits of len bytes into the area. */
    long send(MemorySegment seg, long off, long len) {
        if (!socket.isOpen()) return len;
        ensureArea();
        long n = Math.min(len, room());
        area.append(seg, off, n);
        wantSend();
        return n;
    }

    /** Bytes wait in the area: send them at the end of the turn (one SEND for all the turn wrote). */
    private void wantSend() {
        if (state != SendState.IDLE || area.isEmpty() || !socket.isOpen()) return;
        state = state.queued();
        ring.host.sendSoon(socket);
    }

    /** End of turn: prepares the SEND of every byte waiting in the area. */
    void flush() {
        if (state != SendState.QUEUED) return; // a closed connection's linger sends already
        if (area.isEmpty() || !socket.isOpen()) {
            state = state.unqueued();
            return;
        }
        sending = (int) area.size();
        state = state.started();
        ring.sendPrepared();
        try {
            // SEND and its linked NOP go in the same submission (a link cut at a submit boundary would not hold).
            if (ring.uring.pending() + 2 > ring.uring.sqEntries()) ring.uring.submit(0, 0);
        } catch (ErrnoException e) {
            throw new UncheckedIOException(e);
        }
        ring.sqe().prepSend(socket.fd(), area.memory().address() + area.start(), sending,
                UnixSocket.MSG_NOSIGNAL | UnixSocket.MSG_DONTWAIT | UnixSocket.MSG_WAITALL).flags(Sqe.IO_LINK).userData(socket.ud(UserData.SEND));
        // No completion when the SEND took everything; one (ECANCELED) when it came back short or failed,
        // so that the enter waiting for "the sends and one more" returns then too.
        ring.sqeUnawaited().prepNop().flags(Sqe.CQE_SKIP_SUCCESS).userData(socket.ud(UserData.SEND_SHORT));
    }

    /** The SEND's completion. */
    void sent(int res) {
        int len = sending;
        sending = 0;
        state = state.sent();
        if (!socket.isOpen()) {
            if (res > 0) area.consumed(Math.min(res, len));
            if (res < 0 && res != -Errno.EAGAIN) gaveUp = true;
            if (area.isEmpty() || gaveUp) return;
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
            connection.close(res == -Errno.EPIPE || res == -Errno.ECONNRESET ? "peer closed (send: " + Errno.name(-res) + ")"
                    : "send failed: " + Errno.name(-res));
            return;
        }
        area.consumed(Math.min(res, len));
        if (res < len) armPollOut(); // the socket is full: the rest goes first, when there is room
        if (!area.isEmpty()) wantSend();
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
        if (socket.isOpen()) wantSend();
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

    /** The loop's timer: an area with nothing in it goes until the next answer (64 KiB per quiet connection otherwise). */
    void releaseIdle() {
        if (!socket.isOpen() || area.capacity() == 0 || !area.isEmpty() || state != SendState.IDLE) return;
        area.free();
    }

    /**
     * The connection closed: what it wrote and is still in the area (answers before an over-size
     * request, say) keeps going, as the kernel's socket buffer would deliver it after an epoll close,
     * until sent, the peer gone, or {@value #LINGER_NANOS} ns passed.
     */
    void close() {
        if (waitingForRoom) ring.waitingForRoom(false);
        waitingForRoom = false;
        if (!area.isEmpty()) {
            lingerUntil = System.nanoTime() + LINGER_NANOS;
            ring.host.lingering(socket);
            if (!state.inFlight()) lingerSend();
        }
    }

    private void lingerSend() {
        sending = (int) area.size();
        state = state.started();
        ring.sqe().prepSend(socket.fd(), area.memory().address() + area.start(), sending, UnixSocket.MSG_NOSIGNAL | UnixSocket.MSG_DONTWAIT)
                .userData(socket.ud(UserData.SEND));
    }

    /** The linger time ran out (or the loop stops): whatever is left is dropped and its operations cancelled. */
    void lingerExpired() {
        if (gaveUp) return;
        gaveUp = true;
        if (state.inFlight()) {
            cancels++;
            ring.sqe().prepCancel(0, socket.fd(), Sqe.ASYNC_CANCEL_FD | Sqe.ASYNC_CANCEL_ALL).userData(socket.ud(UserData.CANCEL_SEND));
        }
    }

    /** The completion of this part's cancel. */
    void cancelled() { cancels--; }

    /** Whether nothing of this part is in flight and nothing is left to send. */
    boolean done() { return !state.inFlight() && cancels == 0 && (area.isEmpty() || gaveUp); }

    /** Frees the area (once done). */
    void free() { area.free(); }
}
