package org.sysframe.transport.support;

import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.transport.wire.ResponseHeader;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.UnixSocket;
import org.sysframe.unix.internal.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** A raw client's socket chores: connect with a receive timeout, say GR_HELLO by hand, half-close, read queue sizes. */
public final class RawSockets {
    /** Receive timeout of raw sockets: a hang guard, not a timing requirement. */
    public static final int RECV_TIMEOUT_MS = 20_000;
    /** ServerOptions' default max_ifaces, what a default server answers in GR_HELLO. */
    public static final int SERVER_MAX_IFACES = 1024;
    /** unix sockets: bytes sent that the peer has not read yet. */
    public static final long SIOCOUTQ = 0x5411;
    /** unix stream sockets: bytes waiting to be read. */
    public static final long SIOCINQ = 0x541B;
    private static final int SHUT_WR = 1;
    private static final int HDR = RequestHeader.SIZE;

    private RawSockets() {}

    /** A blocking raw connection to path with {@link #RECV_TIMEOUT_MS} as its receive timeout. */
    public static UnixSocket connect(String path) throws ErrnoException {
        UnixSocket s = UnixSocket.connect(path);
        s.setReceiveTimeout(RECV_TIMEOUT_MS);
        return s;
    }

    /** One GR_HELLO on a raw socket, blocking, answered exactly as the server's defaults say. */
    public static void hello(UnixSocket s, MemorySegment scratch, int id) throws ErrnoException {
        int len = HDR + GroutApi.HELLO_REQUEST_SIZE;
        scratch.asSlice(0, len).fill((byte) 0);
        RequestHeader.write(scratch, 0, id, GroutApi.HELLO, GroutApi.HELLO_REQUEST_SIZE);
        scratch.set(JAVA_INT_UNALIGNED, HDR, GroutApi.DEFAULT_API_VERSION);
        byte[] v = "hostile-input-test".getBytes(StandardCharsets.UTF_8);
        MemorySegment.copy(v, 0, scratch, JAVA_BYTE, HDR + 4, v.length);
        s.sendFully(scratch, 0, len);
        s.recvFully(scratch, 0, HDR + GroutApi.HELLO_RESPONSE_SIZE);
        assertEquals(id, ResponseHeader.forId(scratch, 0), "hello for_id");
        assertEquals(0, ResponseHeader.status(scratch, 0), "hello status");
        assertEquals(GroutApi.HELLO_RESPONSE_SIZE, ResponseHeader.payloadLen(scratch, 0), "hello payload_len");
        assertEquals(SERVER_MAX_IFACES, Short.toUnsignedInt(scratch.get(JAVA_SHORT_UNALIGNED, HDR)), "max_ifaces");
    }

    /** shutdown(SHUT_WR): the peer reads EOF, and this side can still read. */
    public static void shutdownWrite(UnixSocket s) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            if (LibC.shutdown(cs, s.fd(), SHUT_WR) < 0) throw new ErrnoException("shutdown(SHUT_WR)", Errno.read(cs));
        }
    }

    /** An int-valued ioctl ({@link #SIOCINQ}, {@link #SIOCOUTQ}) of a socket. */
    public static int ioctlInt(UnixSocket s, long request) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            MemorySegment v = a.allocate(JAVA_INT);
            if (LibC.ioctl(cs, s.fd(), request, v.address()) < 0) {
                throw new ErrnoException("ioctl(" + Long.toHexString(request) + ")", Errno.read(cs));
            }
            return v.get(JAVA_INT, 0);
        }
    }
}
