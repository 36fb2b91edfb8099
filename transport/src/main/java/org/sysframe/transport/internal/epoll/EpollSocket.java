package org.sysframe.transport.internal.epoll;

import org.sysframe.transport.SendFraming;
import org.sysframe.transport.internal.io.InputBuffer;
import org.sysframe.transport.internal.io.MessageWriter;
import org.sysframe.transport.internal.io.Outlet;
import org.sysframe.transport.internal.io.OutputBatch;
import org.sysframe.transport.internal.server.LoopSocket;
import org.sysframe.transport.internal.server.ServerConnection;

import org.sysframe.unix.Epoll;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.IovArray;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.MemorySegment;

/**
 * A server connection's socket as the epoll driver moves its bytes: non-blocking calls that stop at
 * EAGAIN, and read or write interest switched with epoll_ctl. Loop thread only; its memory (the send
 * framing's copy buffer and iovec) is freed by {@link #close()}.
 */
public final class EpollSocket implements LoopSocket, Outlet.Direct {
    private final UnixSocket socket;
    private final Epoll epoll;
    private final long tag;
    private final MessageWriter writer;
    private ServerConnection connection;
    private boolean writable; // waiting for room to write
    private boolean inputPaused;

    /** scratch: the loop's, shared by its connections' writers (one thread). */
    EpollSocket(UnixSocket socket, Epoll epoll, long tag, SendFraming framing, MessageWriter.Scratch scratch) {
        this.socket = socket;
        this.epoll = epoll;
        this.tag = tag;
        this.writer = new MessageWriter(socket, framing, scratch);
    }

    @Override
    public void attach(ServerConnection c) { this.connection = c; }

    @Override
    public ServerConnection connection() { return connection; }

    long tag() { return tag; }

    UnixSocket socket() { return socket; }

    @Override
    public UnixSocket unixSocket() { return socket; }

    /** One recv into the connection's input buffer; false when the connection closed (EOF or error). */
    void receive() {
        InputBuffer in = connection.input();
        in.ready();
        long n;
        try {
            n = socket.recv(in.segment(), in.end(), in.free(), 0);
        } catch (ErrnoException e) {
            connection.onReadFailed(e);
            return;
        }
        if (n == UnixSocket.WOULD_BLOCK) {
            in.unused();
            return;
        }
        if (n == 0) {
            connection.onEof();
            return;
        }
        in.produced(n);
        connection.onInput();
    }

    @Override
    public long write(MemorySegment header, int hlen, MemorySegment payload, long off, long len) throws ErrnoException {
        return writer.write(header, 0, hlen, payload, off, len);
    }

    @Override
    public void gather(OutputBatch batch) throws ErrnoException {
        IovArray iov = batch.iov();
        while (!iov.isEmpty()) {
            long n = socket.writev(iov);
            if (n == UnixSocket.WOULD_BLOCK) return;
            iov.advance(n);
        }
    }

    @Override
    public long send(MemorySegment seg, long off, long len) throws ErrnoException {
        return socket.sendUntilFull(seg, off, len);
    }

    @Override
    public void wantWritable(boolean on) throws ErrnoException {
        writable = on;
        interest();
    }

    @Override
    public void pauseInput(boolean paused) throws ErrnoException {
        inputPaused = paused;
        interest();
    }

    private void interest() throws ErrnoException {
        // Not both: no reading while output waits; nothing but hang-ups while input is paused.
        epoll.modify(socket.fd(), writable ? Epoll.EPOLLOUT : inputPaused ? 0 : Epoll.EPOLLIN, tag);
    }

    @Override
    public SyscallCounters counters() { return socket.counters(); }

    @Override
    public void close() {
        socket.close(); // also takes it out of the epoll set
    }
}
