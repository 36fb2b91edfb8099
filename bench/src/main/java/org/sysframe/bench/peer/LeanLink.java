package org.sysframe.bench.peer;

import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.transport.wire.ResponseHeader;
import org.sysframe.unix.CpuPlacement;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

/**
 * The connection of a Java lean peer ({@link JavaLeanPeer}, {@link JavaLeanPipelinePeer}), as the C lean client
 * opens its own: the thread pinned to its CPU, a blocking socket whose sends and receives wait at most a timeout,
 * its syscalls counted, room for its frames and a 1 MiB read-ahead, and GR_HELLO said. Closed as one.
 */
final class LeanLink implements AutoCloseable {
    /** The read-ahead's size, as C lean's. */
    static final int READ_AHEAD = 1 << 20;

    /** The room for frames asked for at open. */
    final MemorySegment frames;
    /** The read-ahead, {@value #READ_AHEAD} bytes. */
    final MemorySegment in;
    private final Arena arena;
    private final UnixSocket socket;
    private final long timeoutMillis;

    private LeanLink(Arena arena, UnixSocket socket, MemorySegment frames, MemorySegment in, long timeoutMillis) {
        this.arena = arena;
        this.socket = socket;
        this.frames = frames;
        this.in = in;
        this.timeoutMillis = timeoutMillis;
    }

    /**
     * Pins the calling thread to cpu, connects to path (the counts under name) with frameBytes of room for its frames
     * (at least a hello's), and says GR_HELLO with id helloId; a send or receive waits at most timeoutMillis (EAGAIN
     * then). Nothing is left open when it fails.
     */
    static LeanLink open(String name, String path, int cpu, long timeoutMillis, long frameBytes, int helloId)
            throws ErrnoException {
        CpuPlacement.pinCurrentThread(cpu);
        Arena arena = Arena.ofConfined();
        UnixSocket socket = null;
        try {
            MemorySegment room = arena.allocate(Math.max(frameBytes, RequestHeader.SIZE + GroutApi.HELLO_REQUEST_SIZE),
                    8);
            MemorySegment in = arena.allocate(READ_AHEAD, 8);
            socket = UnixSocket.connect(path, SyscallCounters.summing(name));
            socket.setReceiveTimeout(timeoutMillis);
            socket.setSendTimeout(timeoutMillis);
            hello(socket, room, in, helloId);
            return new LeanLink(arena, socket, room, in, timeoutMillis);
        } catch (ErrnoException | RuntimeException e) {
            if (socket != null) socket.close();
            arena.close();
            throw e;
        }
    }

    /**
     * Says GR_HELLO with id, the request built in frame and the answer read into in (both overwritten); EBADMSG unless
     * the server answers it as it should.
     */
    private static void hello(UnixSocket socket, MemorySegment frame, MemorySegment in, int id) throws ErrnoException {
        RequestHeader.write(frame, 0, id, GroutApi.HELLO, GroutApi.HELLO_REQUEST_SIZE);
        frame.asSlice(RequestHeader.SIZE, GroutApi.HELLO_REQUEST_SIZE).fill((byte) 0);
        frame.set(JAVA_INT_UNALIGNED, RequestHeader.SIZE, GroutApi.DEFAULT_API_VERSION);
        socket.sendFully(frame, 0, RequestHeader.SIZE + GroutApi.HELLO_REQUEST_SIZE);
        socket.recvFully(in, 0, ResponseHeader.SIZE);
        long n = ResponseHeader.payloadLen(in, 0);
        int status = ResponseHeader.status(in, 0);
        if (status != 0 || n != GroutApi.HELLO_RESPONSE_SIZE) {
            throw new ErrnoException("GR_HELLO", Errno.EBADMSG, "answered status " + status + " with " + n
                    + " bytes");
        }
        socket.recvFully(in, 0, n);
    }

    /** Sends len bytes of {@link #frames} from off, blocking; ETIMEDOUT when the server took nothing in the timeout. */
    void send(long off, long len) throws ErrnoException {
        try {
            socket.sendFully(frames, off, len);
        } catch (ErrnoException e) {
            if (e.errno() != Errno.EAGAIN) throw e;
            throw new ErrnoException("send(" + socket.name() + ")", Errno.ETIMEDOUT, "the server took nothing within "
                    + timeoutMillis + " ms");
        }
    }

    /**
     * One recv(2) into {@link #in} at off, flags as recv's: the bytes that came, or {@link UnixSocket#WOULD_BLOCK}
     * (nothing with MSG_DONTWAIT, or the timeout passed); ECONNRESET when the server closed.
     */
    long receive(long off, int flags) throws ErrnoException {
        long n = socket.recv(in, off, in.byteSize() - off, flags);
        if (n == 0) throw new ErrnoException("recv(" + socket.name() + ")", Errno.ECONNRESET, "server closed");
        return n;
    }

    /** The socket's name, for errors. */
    String name() { return socket.name(); }

    SyscallCounts counts() { return socket.counters().snapshot(); }

    SyscallCounts emptyCounts() { return socket.counters().emptySnapshot(); }

    @Override
    public void close() {
        socket.close();
        arena.close();
    }
}
