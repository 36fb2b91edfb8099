package org.sysframe.transport.internal.uring;

import org.sysframe.transport.internal.io.ByteFifo;
import org.sysframe.transport.internal.io.InputBuffer;
import org.sysframe.transport.internal.io.OutputBatch;
import org.sysframe.transport.internal.server.LoopSocket;
import org.sysframe.transport.internal.server.ServerConnection;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.IovArray;
import org.sysframe.unix.PageMemory;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;
import org.sysframe.unix.internal.uring.BufferRing;
import org.sysframe.unix.internal.uring.Cqe;
import org.sysframe.unix.internal.uring.IoUring;
import org.sysframe.unix.internal.uring.Sqe;

import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A server connection's socket as the io_uring driver moves its bytes. Input: one multishot RECV into
 * the loop's provided buffer ring; each completion's bytes are copied into the connection's
 * {@link InputBuffer} and the buffer is recycled at once; bytes the connection cannot take now (its
 * output is backed up, or it has requests left for the next turn) are kept here, in order, and given
 * to it when it reads again; past {@value #PENDING_LIMIT} bytes kept, the receive is cancelled and
 * armed again once they are taken (nothing is ever dropped). Output: the protocol's memory is reused
 * right after each call, so what it writes is copied into this socket's output area
 * ({@value #AREA} bytes, allocated at the first answer) and sent from there at the end of the turn
 * by one SEND SQE (whatever the protocol wrote during the turn, in IMMEDIATE mode too), one in flight
 * at a time; a call takes fewer bytes when the area is full, and the protocol queues the rest and
 * waits for {@link ServerConnection#onWritable()}, which comes with the SEND completion that freed
 * room. SENDs carry MSG_DONTWAIT (and MSG_WAITALL, which makes a short send a failed one), so each
 * completes within the io_uring_enter that submits it, and a NOP linked to it with CQE_SKIP_SUCCESS
 * completes (ECANCELED) only when it came back short: the loop counts on both to wait for the sends
 * and the next arrival in one enter. A send that finds the socket full (EAGAIN, or a short send) arms
 * a POLL_ADD for POLLOUT and sends the rest, first, when it fires. Closing cancels the receive and
 * lets what is left in the area go (see {@link #close()}); the descriptor and the area are freed once
 * every completion has arrived. Loop thread only.
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
public final class UringSocket implements LoopSocket {
    /** The loop's side of the ring, shared by its sockets. */
    static final class Ring {
        final IoUring uring;
        final BufferRing buffers;
        final Host host;
        /** Operations submitted whose last completion has not arrived. */
        int inFlight;
        /** SENDs prepared since the last enter: each completes within the enter that submits it (MSG_DONTWAIT). */
        int sendsPrepared;
        /** Sockets whose connection waits for room (output queued past the area). */
        int waitingForRoom;

        Ring(IoUring uring, BufferRing buffers, Host host) {
            this.uring = uring;
            this.buffers = buffers;
            this.host = host;
        }

        Sqe sqe() {
            inFlight++;
            try {
                return uring.nextSqe();
            } catch (ErrnoException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** What a socket asks of its loop. */
    interface Host {
        /** The connection waits for room and no SEND is in flight to bring it: call onWritable at the end of the turn. */
        void writableSoon(UringSocket s);

        /** Every operation of the closed socket completed: its tag may go. */
        void finished(UringSocket s);

        /** The socket has bytes to send: call {@link #flushSend()} at the end of the turn (after the deferred batches). */
        void sendSoon(UringSocket s);

        /** The socket closed with bytes left in its area, which it sends until {@link #lingerExpired()}. */
        void lingering(UringSocket s);
    }

    static final int AREA = 64 * 1024;
    static final int PENDING_LIMIT = 64 * 1024;
    /** The first mapping of the bytes kept; a larger one is freed once they are taken. */
    static final int PENDING_FIRST = 16 * 1024;

    private final UnixSocket socket;
    private final int fd;
    private final long tag;
    private final Ring ring;
    private ServerConnection connection;
    // output
    private Arena areaArena;
    private MemorySegment area;
    private int head, tail;   // unsent bytes of the area: [head, tail)
    private int sending;      // bytes of the SEND in flight (from head), 0: none
    private boolean sendQueued; // in the loop's send list for this turn
    private boolean pollingOut; // the socket was full: a POLL_ADD(POLLOUT) waits for room
    private boolean waitingForRoom;
    // input
    private boolean recvArmed;
    private boolean inputPaused; // the connection waits for memory: nothing more is received until it reads again
    private int cancels;      // ASYNC_CANCELs in flight
    private boolean recvCancelRequested;
    private final ByteFifo pending = new ByteFifo(PENDING_FIRST, Long.MAX_VALUE, null); // received, not taken yet
    private int endErrno = -1; // the receive ended (0: EOF, else errno) behind pending bytes; -1: not
    private boolean closed;
    private boolean finished;
    private boolean gaveUp;     // closed: the area's bytes are dropped (an error, or the linger ran out)
    long lingerUntil;          // closed with bytes in the area: System.nanoTime() until which they may still go

    UringSocket(UnixSocket socket, long tag, Ring ring) {
        this.socket = socket;
        this.fd = socket.fd();
        this.tag = tag;
        this.ring = ring;
    }

    void attach(ServerConnection c) { this.connection = c; }

    @Override
    public ServerConnection connection() { return connection; }

    long tag() { return tag; }

    /** The user_data of this connection's operation of kind. */
    private long ud(int kind) { return UserData.of(kind, tag); }

    /** Whether every operation of this closed socket completed and its memory is freed. */
    boolean finished() { return finished; }

    // ---------------------------------------------------------------- input

    /** Arms the multishot receive. */
    void armReceive() {
        recvArmed = true;
        ring.sqe().prepRecvMultishot(fd, ring.buffers.group()).userData(ud(UserData.RECV));
    }

    /** A completion of this socket's operation kind. */
    void complete(int kind, int res, int flags) {
        boolean more = (flags & Cqe.F_MORE) != 0;
        if (!more) ring.inFlight--;
        switch (kind) {
            case UserData.RECV -> received(res, flags, more);
            case UserData.SEND -> sent(res);
            case UserData.POLLOUT -> {
                pollingOut = false;
                if (!closed) wantSend();
                else if (!gaveUp && res >= 0) lingerSend();
            }
            default -> {
                cancels--;
                if (cancels == 0) recvCancelRequested = false;
                if (!closed) pump();
            }
        }
        maybeFinish();
    }

    private void received(int res, int flags, boolean more) {
        if (!more) recvArmed = false;
        if (res > 0) {
            BufferRing b = ring.buffers;
            int bid = (flags & Cqe.F_BUFFER) != 0 ? flags >>> 16 : -1;
            b.taken(bid);
            int copied = 0;
            if (!closed) {
                MemorySegment from = b.memory();
                long at = b.offset(bid);
                if (pending.isEmpty() && connection.wantsInput()) {
                    InputBuffer in = connection.input();
                    copied = (int) Math.min(res, in.free());
                    MemorySegment.copy(from, at, in.segment(), in.end(), copied);
                    in.produced(copied);
                }
                if (copied < res) keep(from, at + copied, res - copied);
            }
            b.recycle(bid);
            if (closed) return;
            if (copied > 0) connection.onInput();
            pump();
        } else if (res == 0 || (res < 0 && res != -Errno.ENOBUFS && res != -Errno.ECANCELED)) {
            if (closed) return;
            endErrno = -res;
            pump();
        } else if (!closed) {
            pump(); // ENOBUFS (the ring ran dry) or our cancel: armed again when the kept bytes allow
        }
    }

    /** Keeps n bytes of the completion for later (the connection cannot take them now). */
    private void keep(MemorySegment from, long at, int n) {
        if (!pending.reserve(n)) throw new OutOfMemoryError("io_uring receive: no memory to keep " + n + " more bytes"); // as Arena.allocate fails
        pending.append(from, at, n);
        if (pending.size() > PENDING_LIMIT && recvArmed && !recvCancelRequested) {
            // Enough kept: stop the receive until the connection has taken them.
            recvCancelRequested = true;
            cancels++;
            ring.sqe().prepCancel(ud(UserData.RECV), 0, 0).userData(ud(UserData.CANCEL));
        }
    }

    /**
     * Gives the kept bytes to the connection while it reads; then the end of the stream if it came
     * behind them, or arms the receive again if it ended (a dry ring, a cancel).
     */
    void pump() {
        while (!closed && !pending.isEmpty() && connection.wantsInput()) {
            InputBuffer in = connection.input();
            int n = (int) Math.min(pending.size(), in.free());
            if (n == 0) break;
            MemorySegment.copy(pending.memory(), pending.start(), in.segment(), in.end(), n);
            pending.consumed(n);
            in.produced(n);
            connection.onInput();
        }
        if (closed || !pending.isEmpty()) return;
        if (pending.capacity() > PENDING_FIRST) pending.free();
        if (endErrno >= 0) {
            if (!connection.wantsInput()) return; // as epoll would: seen when the connection reads again
            int e = endErrno;
            endErrno = -1;
            if (e == 0) connection.onEof();
            else connection.onReadFailed(new ErrnoException("recv", e));
            return;
        }
        if (!recvArmed && cancels == 0 && !inputPaused) armReceive();
    }

    @Override
    public void pauseInput(boolean paused) {
        inputPaused = paused;
        if (paused) {
            if (recvArmed && !recvCancelRequested) {
                recvCancelRequested = true;
                cancels++;
                ring.sqe().prepCancel(ud(UserData.RECV), 0, 0).userData(ud(UserData.CANCEL));
            }
        } else if (!closed) {
            pump();
        }
    }

    /** The loop's timer: an output area with nothing in it goes until the next answer (64 KiB per quiet connection otherwise). */
    @Override
    public void releaseIdle() {
        if (closed || area == null || head != tail || sending != 0 || pollingOut || sendQueued) return;
        areaArena.close();
        areaArena = null;
        area = null;
        head = tail = 0;
    }

    // ---------------------------------------------------------------- output

    private void ensureArea() {
        if (area == null) {
            // A mapping of its own, as the large input buffers: released when idle, it goes back to
            // the kernel, not into malloc's free lists (where the process would keep it).
            Arena a = Arena.ofConfined();
            try {
                area = PageMemory.map(AREA, a);
            } catch (ErrnoException e) {
                a.close();
                throw new OutOfMemoryError("io_uring output area of " + AREA + " bytes: " + e.getMessage()); // as Arena.allocate fails
            }
            areaArena = a;
        }
        if (sending == 0 && head > 0) {
            // Nothing of the area is the kernel's now: move the unsent bytes to its start.
            if (head < tail) MemorySegment.copy(area, head, area, 0, tail - head);
            tail -= head;
            head = 0;
        }
    }

    private long room() { return area.byteSize() - tail; }

    /** Bytes wait in the area: send them at the end of the turn (one SEND for all the turn wrote). */
    private void startSend() {
        wantSend();
    }

    private void wantSend() {
        if (sendQueued || sending != 0 || pollingOut || head == tail || closed) return;
        sendQueued = true;
        ring.host.sendSoon(this);
    }

    /** End of turn: prepares the SEND of every byte waiting in the area. */
    void flushSend() {
        sendQueued = false;
        if (sending != 0 || pollingOut || head == tail || closed) return;
        sending = tail - head;
        ring.sendsPrepared++;
        try {
            // SEND and its linked NOP go in the same submission (a link cut at a submit boundary would not hold).
            if (ring.uring.pending() + 2 > ring.uring.sqEntries()) ring.uring.submit(0, 0);
        } catch (ErrnoException e) {
            throw new UncheckedIOException(e);
        }
        ring.sqe().prepSend(fd, area.address() + head, sending, UnixSocket.MSG_NOSIGNAL | UnixSocket.MSG_DONTWAIT | UnixSocket.MSG_WAITALL)
                .flags(Sqe.IO_LINK).userData(ud(UserData.SEND));
        // No completion when the SEND took everything; one (ECANCELED) when it came back short or failed,
        // so that the enter waiting for "the sends and one more" returns then too.
        ring.sqe().prepNop().flags(Sqe.CQE_SKIP_SUCCESS).userData(ud(UserData.SEND_SHORT));
        ring.inFlight--; // the NOP is not waited for at close: it holds nothing
    }

    private void sent(int res) {
        int len = sending;
        sending = 0;
        if (closed) {
            if (res > 0) head += Math.min(res, len);
            if (res < 0 && res != -Errno.EAGAIN) gaveUp = true;
            if (head >= tail || gaveUp) return;
            if (res == -Errno.EAGAIN || res < len) armPollOut();
            else lingerSend();
            return;
        }
        if (res == -Errno.EAGAIN) {
            armPollOut();
            return;
        }
        if (res < 0) {
            connection.close(res == -Errno.EPIPE || res == -Errno.ECONNRESET ? "peer closed (send: " + Errno.name(-res) + ")"
                    : "send failed: " + Errno.name(-res));
            return;
        }
        head += Math.min(res, len);
        if (res < len) armPollOut(); // the socket is full: the rest goes first, when there is room
        if (head == tail) head = tail = 0;
        else wantSend();
        if (waitingForRoom) connection.onWritable();
        if (!closed) pump();
    }

    private void armPollOut() {
        pollingOut = true;
        ring.sqe().prepPollAdd(fd, Sqe.POLLOUT, false).userData(ud(UserData.POLLOUT));
    }

    @Override
    public long write(MemorySegment header, int hlen, MemorySegment payload, long off, long len) {
        if (closed) return hlen + len;
        ensureArea();
        long n = Math.min(hlen + len, room());
        long h = Math.min(hlen, n);
        MemorySegment.copy(header, 0, area, tail, h);
        if (n > h) MemorySegment.copy(payload, off, area, tail + h, n - h);
        tail += (int) n;
        startSend();
        return n;
    }

    @Override
    public void gather(OutputBatch batch) {
        IovArray iov = batch.iov();
        if (closed) {
            iov.advance(iov.remaining());
            return;
        }
        ensureArea();
        long r = iov.remaining();
        // All or nothing: what does not fit is queued by the protocol and comes back through send().
        if (r > room() || r != batch.bytes()) return;
        batch.copyTo(area, tail);
        tail += (int) r;
        iov.advance(r);
        startSend();
    }

    @Override
    public long send(MemorySegment seg, long off, long len) {
        if (closed) return len;
        ensureArea();
        long n = Math.min(len, room());
        MemorySegment.copy(seg, off, area, tail, n);
        tail += (int) n;
        startSend();
        return n;
    }

    @Override
    public void wantWritable(boolean on) {
        if (on != waitingForRoom) ring.waitingForRoom += on ? 1 : -1;
        waitingForRoom = on;
        if (on && sending == 0 && !sendQueued && !pollingOut) ring.host.writableSoon(this);
    }

    /** End of turn, for a connection that waits for room with no SEND in flight. */
    void writableNow() {
        if (!closed && waitingForRoom) {
            connection.onWritable();
            if (!closed) pump();
        }
    }

    @Override
    public SyscallCounters counters() { return socket.counters(); }

    // ---------------------------------------------------------------- close

    /** Linger time of a closed connection's unsent area: what a peer that reads gets, as epoll's socket buffer would. */
    static final long LINGER_NANOS = 10_000_000_000L;

    /**
     * Closes: the receive is cancelled; bytes the connection wrote and that are still in the area
     * (answers before an over-size request, say) keep going, as the kernel's socket buffer would
     * deliver them after an epoll close, until sent, the peer gone, or {@value #LINGER_NANOS} ns
     * passed; then the descriptor and the area are freed, once every completion arrived.
     */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        pending.free();
        if (waitingForRoom) ring.waitingForRoom--;
        waitingForRoom = false;
        if (recvArmed) {
            cancels++;
            ring.sqe().prepCancel(ud(UserData.RECV), 0, 0).userData(ud(UserData.CANCEL));
        }
        if (head < tail) {
            lingerUntil = System.nanoTime() + LINGER_NANOS;
            ring.host.lingering(this);
            if (sending == 0 && !pollingOut) lingerSend();
        }
        maybeFinish();
    }

    private void lingerSend() {
        sending = tail - head;
        ring.sqe().prepSend(fd, area.address() + head, sending, UnixSocket.MSG_NOSIGNAL | UnixSocket.MSG_DONTWAIT).userData(ud(UserData.SEND));
    }

    /** The linger time ran out (or the loop stops): whatever is left is dropped and waiting operations cancelled. */
    void lingerExpired() {
        if (finished || gaveUp) return;
        gaveUp = true;
        if (sending != 0 || pollingOut) {
            cancels++;
            ring.sqe().prepCancel(0, fd, Sqe.ASYNC_CANCEL_FD | Sqe.ASYNC_CANCEL_ALL).userData(ud(UserData.CANCEL));
        }
        maybeFinish();
    }

    private void maybeFinish() {
        if (!closed || finished || recvArmed || sending != 0 || pollingOut || cancels != 0 || (head < tail && !gaveUp)) return;
        finished = true;
        socket.close();
        if (areaArena != null) areaArena.close();
        areaArena = null;
        area = null;
        ring.host.finished(this);
    }
}
