package org.sysframe.unix;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each failure becomes one ErrnoException with the call, errno number, name and strerror text. */
class ErrnoExceptionTest {
    @TempDir Path dir;

    @Test
    void connectToMissingPathIsENOENT() {
        String path = dir.resolve("missing.sock").toString();
        ErrnoException e = assertThrows(ErrnoException.class, () -> UnixSocket.connect(path));
        assertEquals(Errno.ENOENT, e.errno());
        assertEquals("ENOENT", e.errnoName());
        assertEquals("No such file or directory", e.strerror());
        assertEquals("connect(" + path + ")", e.call());
        assertEquals("connect(" + path + "): ENOENT (2) No such file or directory", e.getMessage());
    }

    @Test
    void connectToSocketFileWithNoListenerIsECONNREFUSED() throws Exception {
        String path = dir.resolve("dead.sock").toString();
        UnixSocket.listen(path, 0600, 1, false).close(); // leaves the file, nobody listens any more
        ErrnoException e = assertThrows(ErrnoException.class, () -> UnixSocket.connect(path));
        assertEquals(Errno.ECONNREFUSED, e.errno());
        assertEquals("ECONNREFUSED", e.errnoName());
        assertEquals("Connection refused", e.strerror());
    }

    @Test
    void bindingABoundPathIsEADDRINUSE() throws Exception {
        String path = dir.resolve("busy.sock").toString();
        try (UnixSocket first = UnixSocket.listen(path, 0600, 1, false)) {
            ErrnoException e = assertThrows(ErrnoException.class, () -> UnixSocket.listen(path, 0600, 1, false));
            assertEquals(Errno.EADDRINUSE, e.errno());
            assertEquals("EADDRINUSE", e.errnoName());
            assertEquals("bind(" + path + ")", e.call());
            assertTrue(first.isOpen());
        }
    }

    @Test
    void sendOnClosedSocketIsEBADF() throws Exception {
        UnixSocket[] pair = UnixSocket.pair();
        pair[0].close();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(8);
            ErrnoException e = assertThrows(ErrnoException.class, () -> pair[0].send(buf, 0, 8, 0));
            assertEquals(Errno.EBADF, e.errno());
            assertEquals("EBADF", e.errnoName());
            assertEquals("Bad file descriptor", e.strerror());
        } finally {
            pair[1].close();
        }
    }

    @Test
    void pathLongerThanSunPathIsENAMETOOLONGBeforeAnyCall() {
        String path = dir.resolve("x".repeat(120)).toString();
        ErrnoException e = assertThrows(ErrnoException.class, () -> UnixSocket.connect(path));
        assertEquals(Errno.ENAMETOOLONG, e.errno());
        assertEquals("ENAMETOOLONG", e.errnoName());
        assertTrue(e.getMessage().contains("sun_path holds at most 107"), e.getMessage());
    }

    @Test
    void sendToClosedPeerIsEPIPE() throws Exception {
        UnixSocket[] pair = UnixSocket.pair();
        pair[1].close();
        try (Arena a = Arena.ofConfined(); UnixSocket s = pair[0]) {
            MemorySegment buf = a.allocate(8);
            ErrnoException e = assertThrows(ErrnoException.class, () -> s.send(buf, 0, 8, 0));
            assertEquals(Errno.EPIPE, e.errno());
            assertEquals("EPIPE", e.errnoName());
            assertEquals("Broken pipe", e.strerror());
        }
    }

    @Test
    void peerClosingWithUnreadDataIsECONNRESET() throws Exception {
        UnixSocket[] pair = UnixSocket.pair();
        try (Arena a = Arena.ofConfined(); UnixSocket s = pair[0]) {
            MemorySegment buf = a.allocate(8);
            s.sendFully(buf, 0, 8);   // pair[1] never reads these bytes
            pair[1].close();          // so the kernel resets the connection for pair[0]
            ErrnoException e = assertThrows(ErrnoException.class, () -> s.recv(buf, 0, 8, 0));
            assertEquals(Errno.ECONNRESET, e.errno());
            assertEquals("ECONNRESET", e.errnoName());
            assertEquals("Connection reset by peer", e.strerror());
        }
    }

    @Test
    void eofInTheMiddleOfAnExpectedMessageIsECONNRESET() throws Exception {
        UnixSocket[] pair = UnixSocket.pair();
        try (Arena a = Arena.ofConfined(); UnixSocket s = pair[0]) {
            MemorySegment buf = a.allocate(12);
            pair[1].sendFully(buf, 0, 5);
            pair[1].close();
            ErrnoException e = assertThrows(ErrnoException.class, () -> s.recvFully(buf, 0, 12));
            assertEquals(Errno.ECONNRESET, e.errno());
            assertTrue(e.getMessage().endsWith("peer closed after 5 of 12 bytes"), e.getMessage());
        }
    }

    @Test
    void namesCoverTheProtocolStatuses() {
        assertEquals("EBADMSG", Errno.name(74));
        assertEquals("EMSGSIZE", Errno.name(90));
        assertEquals("ENOTSUP", Errno.name(95));
        assertEquals("ENOMEM", Errno.name(12));
        assertEquals("E4095", Errno.name(4095));
    }
}
