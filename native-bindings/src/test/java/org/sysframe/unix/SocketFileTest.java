package org.sysframe.unix;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** SocketFile removes a socket file only while the path still names that very socket. */
class SocketFileTest {
    @TempDir Path dir;

    private SocketFile.Id staleSocket(Path p) throws Exception {
        UnixSocket.listen(p.toString(), 0600, 1, false).close();
        SocketFile.Id id = SocketFile.socketAt(p.toString());
        assertTrue(id != null, "a closed listener leaves its socket file");
        return id;
    }

    @Test
    void nothingAtThePathHasNoId() throws Exception {
        assertNull(SocketFile.socketAt(dir.resolve("none.sock").toString()));
    }

    @Test
    void aRegularFileIsNotASocketAndSaysWhatItIs() throws Exception {
        Path p = dir.resolve("notes.txt");
        Files.writeString(p, "important data");
        ErrnoException e = assertThrows(ErrnoException.class, () -> SocketFile.socketAt(p.toString()));
        assertEquals(Errno.EEXIST, e.errno());
        assertTrue(e.getMessage().endsWith(p + " exists and is not a socket (a regular file): left as it is"),
                e.getMessage());
    }

    @Test
    void theSameSocketIsRemoved() throws Exception {
        Path p = dir.resolve("stale.sock");
        SocketFile.Id id = staleSocket(p);
        assertTrue(SocketFile.removeIfSame(p.toString(), id));
        assertFalse(Files.exists(p, LinkOption.NOFOLLOW_LINKS));
        assertEquals(List.of(), list(), "nothing left behind in the directory");
    }

    @Test
    void aFilePutAtThePathAfterTheCheckIsMovedBackUntouched() throws Exception {
        Path p = dir.resolve("stale.sock");
        SocketFile.Id id = staleSocket(p);
        Files.delete(p);
        Files.writeString(p, "written after the check");
        assertFalse(SocketFile.removeIfSame(p.toString(), id));
        assertEquals("written after the check", Files.readString(p));
        assertEquals(List.of(p), list(), "the file is back at its path and nothing else is in the directory");
    }

    @Test
    void anotherSocketAtThePathIsNotRemoved() throws Exception {
        Path p = dir.resolve("stale.sock");
        SocketFile.Id first = staleSocket(p);
        Files.createLink(dir.resolve("first.link"), p); // keeps the first inode, so the second gets another
        Files.delete(p);
        SocketFile.Id second = staleSocket(p);
        assertFalse(first.equals(second), "a new socket file has a new id");
        assertFalse(SocketFile.removeIfSame(p.toString(), first));
        assertEquals(second, SocketFile.socketAt(p.toString()));
    }

    @Test
    void aPathThatIsGoneRemovesNothing() throws Exception {
        Path p = dir.resolve("stale.sock");
        SocketFile.Id id = staleSocket(p);
        Files.delete(p);
        assertFalse(SocketFile.removeIfSame(p.toString(), id));
        assertEquals(List.of(), list());
    }

    private List<Path> list() throws Exception {
        try (var s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }
}
