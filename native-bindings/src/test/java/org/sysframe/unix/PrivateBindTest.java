package org.sysframe.unix;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link UnixSocket#listen} with a mode: the socket is set up in a private directory and moved into
 * place without replacing anything; the file at the path is then the socket, with that mode, and
 * nothing else is left in the directory.
 */
class PrivateBindTest {
    @TempDir Path dir;

    private List<Path> listing() throws Exception {
        try (var s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }

    private static int mode(Path p) throws Exception {
        return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
    }

    @Test
    void theSocketArrivesWithItsModeListeningAndThePrivateDirectoryIsGone() throws Exception {
        for (int m : new int[] {0600, 0660, 0666, 0000}) {
            Path p = dir.resolve("m" + Integer.toOctalString(m) + ".sock");
            try (UnixSocket l = UnixSocket.listen(p.toString(), m, 4, true)) {
                assertEquals(0140000 | m, mode(p), "a socket of mode 0" + Integer.toOctalString(m));
                assertEquals(SocketFile.socketAt(p.toString()), l.boundFile());
                assertNull(SocketFile.mismatch(p.toString(), l.boundFile(), m));
                assertEquals(List.of(p), listing(), "only the socket is in the directory");
                try (UnixSocket c = UnixSocket.connect(p.toString()); UnixSocket s =
                        l.accept(new SyscallCounters("s"))) {
                    assertTrue(c.isOpen() && s != null, "it listens at its path");
                }
            }
            Files.delete(p);
        }
    }

    @Test
    void whatAppearsAtThePathMeanwhileIsNeverReplacedAndTheLineSaysWhatItIs() throws Exception {
        Path target = Files.writeString(dir.resolve("target.txt"), "kept");
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-r-----"));
        Path link = Files.createSymbolicLink(dir.resolve("s.sock"), target);
        // listen() itself does not reclaim (the server does that first): what is there stays.
        ErrnoException e = assertThrows(ErrnoException.class, () -> UnixSocket.listen(link.toString(), 0666, 4, true));
        assertEquals("renameat2(" + link + ", RENAME_NOREPLACE): EEXIST (17) File exists: " + link
                + " appeared while the socket was set up (a symbolic link to " + target + "): left as it is",
                        e.getMessage());
        assertEquals(target, Files.readSymbolicLink(link));
        assertEquals(0100640, mode(target));
        assertEquals("kept", Files.readString(target));
        assertEquals(List.of(link, target), listing(), "no private directory or socket is left behind");
    }

    @Test
    void mismatchSaysWhatIsAtThePathWhenItIsNoLongerTheSocket() throws Exception {
        Path p = dir.resolve("s.sock");
        try (UnixSocket l = UnixSocket.listen(p.toString(), 0660, 4, true)) {
            SocketFile.Id id = l.boundFile();
            assertEquals(p + " has mode 0600, not the 0660 set", chmodThenMismatch(p, id));
            Files.move(p, dir.resolve("moved.sock"));
            assertEquals("nothing is at " + p + " now: the socket file was moved away or removed",
                    SocketFile.mismatch(p.toString(), id, 0660));
            Path target = Files.writeString(dir.resolve("t.txt"), "x");
            Files.createSymbolicLink(p, target);
            assertEquals(p + " is not this socket file any more: it is now a symbolic link to " + target,
                    SocketFile.mismatch(p.toString(), id, 0660));
        }
    }

    private static String chmodThenMismatch(Path p, SocketFile.Id id) throws Exception {
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
        return SocketFile.mismatch(p.toString(), id, 0660);
    }

    @Test
    void withoutAModeTheUmasksModeIsKeptAndTheFileIsStillKnown() throws Exception {
        Path p = dir.resolve("u.sock");
        try (UnixSocket l = UnixSocket.listen(p.toString(), -1, 4, true)) {
            assertEquals(SocketFile.socketAt(p.toString()), l.boundFile());
            assertEquals(List.of(p), listing());
        }
    }
}
