package org.sysframe.transport.shm;

import org.sysframe.transport.internal.shm.ShmProtocol;
import org.sysframe.transport.internal.shm.ShmSegment;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.transport.wire.ResponseHeader;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.EventFd;
import org.sysframe.unix.SharedMemory;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A hand-made client of a shared-memory channel, as a hostile peer would hold one: its socket, the
 * received descriptor (kept open: a hostile peer keeps it), and the mapped segment to write anything into.
 */
final class RawChannel implements AutoCloseable {
    final UnixSocket socket;
    final int fd;
    final ShmSegment segment;
    final EventFd bell; // the server's loop's wake-up
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment buf = arena.allocate(GroutApi.MAX_MSG_LEN + 64L, 8);

    private RawChannel(UnixSocket socket, int fd, ShmSegment segment, EventFd bell) {
        this.socket = socket;
        this.fd = fd;
        this.segment = segment;
        this.bell = bell;
    }

    static RawChannel open(String path) throws ErrnoException {
        UnixSocket s = UnixSocket.connect(path);
        try (Arena a = Arena.ofConfined()) {
            s.setReceiveTimeout(20_000);
            MemorySegment m = a.allocate(256, 8);
            RequestHeader.write(m, 0, 1, GroutApi.HELLO, GroutApi.HELLO_REQUEST_SIZE);
            m.set(JAVA_INT_UNALIGNED, 12, GroutApi.DEFAULT_API_VERSION);
            s.sendFully(m, 0, 12 + GroutApi.HELLO_REQUEST_SIZE);
            s.recvFully(m, 0, 12);
            assertEquals(0, ResponseHeader.status(m, 0));
            s.recvFully(m, 12, Integer.toUnsignedLong(m.get(JAVA_INT_UNALIGNED, 8)));
            RequestHeader.write(m, 0, 2, ShmProtocol.OPEN, ShmProtocol.REQUEST_SIZE);
            m.set(JAVA_INT_UNALIGNED, 12, ShmSegment.VERSION);
            m.set(JAVA_INT_UNALIGNED, 16, 0);
            s.sendFully(m, 0, 12 + ShmProtocol.REQUEST_SIZE);
            int[] fd = {-1, -1};
            long got = s.recvFds(m, 0, 12 + ShmProtocol.RESPONSE_SIZE, fd);
            if (got < 28) s.recvFully(m, got, 28 - got);
            assertEquals(0, ResponseHeader.status(m, 0), "SHM_OPEN status");
            assertTrue(fd[0] >= 0 && fd[1] >= 0, "two descriptors came");
            ShmSegment seg = ShmSegment.open(fd[0], m.get(JAVA_LONG_UNALIGNED, 20));
            return new RawChannel(s, fd[0], seg, EventFd.adopt(fd[1], new SyscallCounters("raw")));
        } catch (ErrnoException | RuntimeException | Error e) {
            s.close();
            throw e;
        }
    }

    /**
     * Asks for a second channel on the same connection (SHM_OPEN again, request id); returns the answer's
     * status, and fails if a descriptor came with it.
     */
    int openAgain(int id) throws ErrnoException {
        RequestHeader.write(buf, 0, id, ShmProtocol.OPEN, ShmProtocol.REQUEST_SIZE);
        buf.set(JAVA_INT_UNALIGNED, 12, ShmSegment.VERSION);
        buf.set(JAVA_INT_UNALIGNED, 16, 0);
        socket.sendFully(buf, 0, 12 + ShmProtocol.REQUEST_SIZE);
        int[] got = {-1};
        long n = socket.recvFds(buf, 0, 12, got);
        if (n < 12) socket.recvFully(buf, n, 12 - n);
        if (got[0] >= 0) {
            SharedMemory.close(got[0]);
            throw new AssertionError("a second SHM_OPEN on one connection was given a descriptor");
        }
        assertEquals(id, ResponseHeader.forId(buf, 0));
        long len = Integer.toUnsignedLong(buf.get(JAVA_INT_UNALIGNED, 8));
        if (len > 0) socket.recvFully(buf, 12, len);
        return ResponseHeader.status(buf, 0);
    }

    /** Writes one request (header and payload) into the request ring, waiting for room; returns once published. */
    void request(int id, int type, MemorySegment payload, long len) throws ErrnoException {
        RequestHeader.write(buf, 0, id, type, (int) len);
        if (len > 0) MemorySegment.copy(payload, 0, buf, 12, len);
        long done = 0;
        long end = System.nanoTime() + 20_000_000_000L;
        while (done < 12 + len) {
            done += segment.requests().put(buf, done, 12 + len - done);
            segment.requests().publish();
            if (System.nanoTime() > end) throw new AssertionError("the server took " + done + " of " + (12 + len)
                    + " bytes in 20 s");
            Thread.onSpinWait();
        }
        wake();
    }

    /** Wakes the server's loop if it sleeps, as the library's publish would (with a write to the channel's eventfd). */
    void wake() throws ErrnoException { bell.signal(); }

    /**
     * Reads one answer's header and payload from the answer ring (spinning up to 20 s); returns {for_id, status, len}.
     */
    int[] answer() throws ErrnoException {
        read(12);
        int[] h = {ResponseHeader.forId(buf, 0), ResponseHeader.status(buf, 0), buf.get(JAVA_INT_UNALIGNED, 8)};
        read(h[2]);
        return h;
    }

    private void read(long n) throws ErrnoException {
        long done = 0;
        long end = System.nanoTime() + 20_000_000_000L;
        while (done < n) {
            done += segment.answers().take(buf, done, n - done);
            if (System.nanoTime() > end) throw new AssertionError("no answer within 20 s (" + done + " of " + n
                    + " bytes)");
            Thread.onSpinWait();
        }
    }

    @Override
    public void close() {
        socket.close();
        segment.close();
        bell.close();
        SharedMemory.close(fd);
        arena.close();
    }
}
