package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.transport.support.TestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Starting a server on a path that holds anything but a socket is refused with EEXIST and leaves that
 * thing exactly as it was; only a socket file nobody answers on is reclaimed.
 */
@EachBackend
class SocketPathSafetyTest {
    @TempDir Path dir;

    private void assertRefusedAsNotASocket(Path p, String kind) {
        ErrnoException e = assertThrows(ErrnoException.class, () ->
                TestServers.start(ServerOptions.defaults().socketPath(p.toString())).close());
        assertEquals(Errno.EEXIST, e.errno(), e.getMessage());
        assertTrue(e.getMessage().contains(p + " exists and is not a socket (" + kind + ")"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), "one line");
    }

    private List<Path> listing() throws Exception {
        try (var s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }

    private static Path staleSocket(Path p) throws Exception {
        UnixSocket.listen(p.toString(), 0600, 1, false).close();
        assertEquals(Errno.ECONNREFUSED, assertThrows(ErrnoException.class, () ->
                UnixSocket.connect(p.toString()).close()).errno());
        return p;
    }

    private static void assertAnswers(String path) throws Exception {
        try (GroutClient c = GroutClient.connect(path)) {
            var payload = Arena.ofAuto().allocate(8);
            payload.fill((byte) 7);
            assertArrayEquals(payload.toArray(JAVA_BYTE), c.call(GroutApi.PING, payload).toByteArray());
        }
    }

    @Test
    void aRegularFileIsRefusedAndKeepsItsContent() throws Exception {
        Path p = Files.writeString(dir.resolve("notes.txt"), "important data");
        assertRefusedAsNotASocket(p, "a regular file");
        assertEquals("important data", Files.readString(p));
        assertEquals(List.of(p), listing());
    }

    @Test
    void aSymlinkToAFileIsRefusedAndNeitherLinkNorTargetChanges() throws Exception {
        Path target = Files.writeString(dir.resolve("target.txt"), "kept");
        Path link = Files.createSymbolicLink(dir.resolve("link.sock"), target);
        assertRefusedAsNotASocket(link, "a symbolic link");
        assertTrue(Files.isSymbolicLink(link));
        assertEquals(target, Files.readSymbolicLink(link));
        assertEquals("kept", Files.readString(target));
        assertEquals(List.of(link, target), listing());
    }

    @Test
    void aSymlinkToALiveSocketIsRefusedAndThatServerKeepsServing() throws Exception {
        Path real = dir.resolve("real.sock");
        try (GroutServer live = TestServers.start(ServerOptions.defaults().socketPath(real.toString()))) {
            Path link = Files.createSymbolicLink(dir.resolve("link.sock"), real);
            assertRefusedAsNotASocket(link, "a symbolic link");
            assertEquals(real, Files.readSymbolicLink(link));
            assertAnswers(real.toString());
            assertAnswers(link.toString());
        }
    }

    @Test
    void aSymlinkToAStaleSocketIsRefusedAndTheStaleSocketStays() throws Exception {
        Path stale = staleSocket(dir.resolve("stale.sock"));
        Path link = Files.createSymbolicLink(dir.resolve("link.sock"), stale);
        assertRefusedAsNotASocket(link, "a symbolic link");
        assertEquals(stale, Files.readSymbolicLink(link));
        assertTrue(Files.exists(stale, LinkOption.NOFOLLOW_LINKS), "the link's target is not touched");
        assertEquals(List.of(link, stale), listing());
    }

    @Test
    void aDirectoryIsRefusedWithItsContent() throws Exception {
        Path d = Files.createDirectory(dir.resolve("sub.sock"));
        Files.writeString(d.resolve("inside.txt"), "inside");
        assertRefusedAsNotASocket(d, "a directory");
        assertEquals("inside", Files.readString(d.resolve("inside.txt")));
    }

    @Test
    void aFifoIsRefusedAndStaysAFifo() throws Exception {
        Path fifo = dir.resolve("pipe.sock");
        Process p = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
        assertRefusedAsNotASocket(fifo, "a FIFO");
        assertEquals(0010000, (Integer) Files.getAttribute(fifo, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 0170000,
                "still a FIFO");
    }

    @Test
    void aStaleSocketIsReclaimedAndNothingIsLeftBeside() throws Exception {
        Path stale = staleSocket(dir.resolve("stale.sock"));
        try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath(stale.toString()))) {
            assertAnswers(stale.toString());
            assertEquals(List.of(stale), listing(), "no moved-aside file is left in the directory");
        }
        assertEquals(List.of(), listing(), "close removes the server's own socket file");
    }

    @Test
    void closeLeavesAFileThatReplacedTheSocketInPlace() throws Exception {
        Path p = dir.resolve("s.sock");
        GroutServer s = TestServers.start(ServerOptions.defaults().socketPath(p.toString()));
        Files.delete(p);
        Files.writeString(p, "someone else's");
        s.close();
        assertEquals("someone else's", Files.readString(p));
        assertEquals(List.of(p), listing());
    }
}
