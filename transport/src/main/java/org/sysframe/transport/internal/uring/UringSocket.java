package org.sysframe.transport.internal.uring;

import org.sysframe.transport.internal.io.NativeBuffer;
import org.sysframe.transport.internal.io.Outlet;
import org.sysframe.transport.internal.io.Pool;
import org.sysframe.transport.internal.io.UnsentQueue;
import org.sysframe.transport.internal.server.LoopSocket;
import org.sysframe.transport.internal.server.ServerConnection;

import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;
import org.sysframe.unix.internal.uring.Cqe;


/**
 * A server connection's socket as the io_uring driver moves its bytes, in two parts that each own
 * their state: {@link UringInput} (the multishot receive and the bytes kept for the connection) and
 * {@link UringOutput} (the SENDs from the connection's queue, the polls for room, the linger after close). This
 * class routes each completion to its part and owns the life of the whole: open, closed (operations
 * still in flight or bytes still lingering), finished (every completion arrived: the descriptor and
 * the memory are freed and the tag may leave the loop's table). Loop thread only.
 */
public final class UringSocket implements LoopSocket, Outlet.FromQueue {
    /** What a socket asks of its loop. */
    interface Host {
        /**
         * The connection waits for room and no SEND is in flight to bring it: call onWritable at the end of the turn.
         */
        void writableSoon(UringSocket s);

        /** Every operation of the closed socket completed: its tag may go. */
        void finished(UringSocket s);

        /**
         * The socket has bytes to send: call {@link #flushSend()} at the end of the turn (after the deferred batches).
         */
        void sendSoon(UringSocket s);

        /** The socket closed with bytes left in its area, which it sends until {@link #lingerExpired()}. */
        void lingering(UringSocket s);
    }

    /** The life of the socket. */
    enum Life { OPEN, CLOSED, FINISHED }

    private final UnixSocket socket;
    private final int fd;
    private final long tag;
    private final UringRing ring;
    private final UringInput input;
    private final UringOutput output;
    private ServerConnection connection;
    private Life life = Life.OPEN;

    UringSocket(UnixSocket socket, long tag, UringRing ring) {
        this.socket = socket;
        this.fd = socket.fd();
        this.tag = tag;
        this.ring = ring;
        this.input = new UringInput(this, ring);
        this.output = new UringOutput(this, ring);
    }

    @Override
    public UnixSocket unixSocket() { return socket; }

    @Override
    public void attach(ServerConnection c) { this.connection = c; }

    @Override
    public ServerConnection connection() { return connection; }

    long tag() { return tag; }

    int fd() { return fd; }

    /** The user_data of this connection's operation of kind. */
    long ud(int kind) { return UserData.of(kind, tag); }

    boolean isOpen() { return life == Life.OPEN; }

    /** Whether every operation of this closed socket completed and its memory is freed. */
    boolean finished() { return life == Life.FINISHED; }

    Life life() { return life; }

    /** Arms the multishot receive. */
    void armReceive() { input.arm(); }

    /** A completion of this socket's operation kind. */
    void complete(int kind, int res, int flags) {
        boolean more = (flags & Cqe.F_MORE) != 0;
        if (!more) ring.lastCompletion();
        switch (kind) {
            case UserData.RECV -> input.received(res, flags, more);
            case UserData.CANCEL -> input.cancelled();
            case UserData.SEND -> output.sent(res);
            case UserData.POLLOUT -> output.pollDone(res);
            case UserData.CANCEL_SEND -> output.cancelled();
            default -> throw new IllegalStateException("completion of kind " + kind + " for connection " + tag);
        }
        maybeFinish();
    }

    /** Gives the bytes kept to the connection while it reads (the loop's next turn, or after room came). */
    void pump() { input.pump(); }

    @Override
    public void pauseInput(boolean paused) { input.pause(paused); }

    @Override
    public void releaseIdle() { output.releaseIdle(); }

    @Override
    public long area() { return UringOutput.AREA; }

    @Override
    public void attach(UnsentQueue queue) { output.attach(queue); }

    @Override
    public Pool<NativeBuffer> areaMemory() { return ring.areas; }

    @Override
    public void queued() { output.queued(); }

    @Override
    public void wantWritable(boolean on) { output.wantWritable(on); }

    /** End of turn: prepares the SEND of the bytes waiting in the connection's queue. */
    void flushSend() { output.flush(); }

    /** End of turn, for a connection that waits for room with no SEND in flight. */
    void writableNow() { output.writableNow(); }

    /** Until when (System.nanoTime()) a closed socket's area may still be sent. */
    long lingerUntil() { return output.lingerUntil(); }

    /** The linger time ran out (or the loop stops): whatever is left is dropped and waiting operations cancelled. */
    void lingerExpired() {
        if (life == Life.FINISHED) return;
        output.lingerExpired();
        maybeFinish();
    }

    @Override
    public SyscallCounters counters() { return socket.counters(); }

    /**
     * Closes: the receive is cancelled and the bytes kept for the connection go; what is left in the
     * output area lingers ({@link UringOutput#close()}); the descriptor and the memory are freed once
     * every completion arrived.
     */
    @Override
    public void close() {
        if (life != Life.OPEN) return;
        life = Life.CLOSED;
        input.close();
        output.close();
        maybeFinish();
    }

    private void maybeFinish() {
        if (life != Life.CLOSED || !input.done() || !output.done()) return;
        life = Life.FINISHED;
        socket.close();
        output.free();
        ring.host.finished(this);
    }
}
