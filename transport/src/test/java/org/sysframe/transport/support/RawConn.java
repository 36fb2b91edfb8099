package org.sysframe.transport.support;

import org.sysframe.testsupport.WireBytes;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A {@link RawServer}'s side of its one connection: blocking reads and writes of raw frame bytes (server
 * thread only), on the socket, or on the shared-memory channel's rings once {@link #openChannel} granted
 * one (the socket then carries nothing, and closing it ends the connection for the client).
 */
public final class RawConn {
    /**
     * The connection; scripts may send on it directly (e.g. a megabyte of garbage from a native segment), or close it.
     */
    public final UnixSocket socket;
    private final MemorySegment in;
    private final MemorySegment out;
    private RawRings rings;

    RawConn(UnixSocket socket, Arena arena) {
        this.socket = socket;
        this.in = arena.allocate(GroutApi.MAX_MSG_LEN + 64L, 8);
        this.out = arena.allocate(2L * GroutApi.MAX_MSG_LEN + 64L, 8);
    }

    /** Reads one request header (12 bytes: id, type, payload_len) and its payload. */
    public RawRequest readRequest() throws ErrnoException {
        readFully(12);
        int id = in.get(JAVA_INT_UNALIGNED, 0);
        int type = in.get(JAVA_INT_UNALIGNED, 4);
        long len = Integer.toUnsignedLong(in.get(JAVA_INT_UNALIGNED, 8));
        if (len > GroutApi.MAX_MSG_LEN) throw new AssertionError("raw server: request payload_len " + len);
        readFully(len);
        return new RawRequest(id, type, in.asSlice(0, len).toArray(JAVA_BYTE));
    }

    private void readFully(long len) throws ErrnoException {
        if (rings == null) socket.recvFully(in, 0, len);
        else rings.readFully(in, 0, len);
    }

    /** Reads a request and checks its type and payload. */
    public RawRequest expect(int type, byte[] payload) throws ErrnoException {
        RawRequest r = readRequest();
        assertEquals(type, r.type(), "raw server: request type");
        assertArrayEquals(payload, r.payload(), "raw server: request payload");
        return r;
    }

    /** Writes raw bytes, all of them, in one send call where the kernel takes them. */
    public void write(byte[] bytes) throws ErrnoException {
        MemorySegment.copy(bytes, 0, out, JAVA_BYTE, 0, bytes.length);
        if (rings == null) socket.sendFully(out, 0, bytes.length);
        else rings.writeFully(out, 0, bytes.length);
    }

    /** Writes a response declaring exactly its payload. */
    public void respond(int forId, int status, byte[] payload) throws ErrnoException {
        write(WireBytes.response(forId, status, payload));
    }

    /** Answers GR_HELLO as Grout does: for_id = id, status 0, u16 max_ifaces. */
    void answerHello(int maxIfaces) throws ErrnoException {
        RawRequest r = readRequest();
        assertEquals(GroutApi.HELLO, r.type(), "raw server: first request");
        assertEquals(GroutApi.HELLO_REQUEST_SIZE, r.payload().length, "raw server: hello size");
        assertEquals(GroutApi.DEFAULT_API_VERSION, MemorySegment.ofArray(r.payload()).get(JAVA_INT_UNALIGNED, 0));
        byte[] answer = new byte[2];
        MemorySegment.ofArray(answer).set(JAVA_SHORT_UNALIGNED, 0, (short) maxIfaces);
        respond(r.id(), 0, answer);
    }

    /**
     * Grants the shared-memory channel the client asks for next (SHM_OPEN); from then on the script's bytes go through
     * its rings.
     */
    void openChannel() throws ErrnoException {
        rings = RawRings.grant(socket, readRequest());
    }

    /** Unmaps the channel, if one was granted (the script's thread, once it ended). */
    void closeChannel() {
        if (rings != null) rings.close();
    }

    /**
     * Waits until the client closes its end; any byte it sends instead is a failure. A client that
     * closes with bytes of ours unread makes this recv fail with ECONNRESET rather than return 0
     * (which one depends on whether its shutdown or its close is seen first): both mean closed.
     */
    public void awaitEof() throws ErrnoException {
        if (rings != null) {
            rings.awaitEof();
            return;
        }
        long n;
        try {
            n = socket.recv(in, 0, 1, 0);
        } catch (ErrnoException e) {
            if (e.errno() == Errno.ECONNRESET) return;
            throw e;
        }
        if (n != 0) throw new AssertionError("raw server: expected EOF, got " + n);
    }
}
