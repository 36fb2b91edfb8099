package org.sysframe.unix;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The socket path rules of {@link SockaddrUn#check}: an empty path and a NUL in a file path fail with
 * one EINVAL line before any syscall, for connect, listen and the socket file checks alike.
 */
class SocketPathRulesTest {
    @TempDir Path dir;

    private static final String EMPTY = "sockaddr_un(\"\"): EINVAL (22) Invalid argument: empty socket path";

    @Test
    void anEmptyPathIsOneClearLineEverywhere() {
        assertEquals(EMPTY, assertThrows(ErrnoException.class, () -> UnixSocket.connect("")).getMessage());
        assertEquals(EMPTY, assertThrows(ErrnoException.class, () -> UnixSocket.listen("", 0600, 1, false))
                .getMessage());
        assertEquals(EMPTY, assertThrows(ErrnoException.class, () -> SocketFile.socketAt("")).getMessage());
        assertEquals(Errno.EINVAL, assertThrows(ErrnoException.class, () -> UnixSocket.connect("")).errno());
    }

    @Test
    void aNulInAFilePathFailsNamingThePathEscapedAndNeverReachesTheSocketBeforeIt() throws Exception {
        String live = dir.resolve("live.sock").toString();
        String withNul = live + "\0.other";
        String expected = "sockaddr_un(" + live
                + "\\0.other): EINVAL (22) Invalid argument: the socket path has a NUL byte at offset "
                + live.length() + " (a file path ends at its first NUL: it would name " + live + ")";
        try (UnixSocket listener = UnixSocket.listen(live, 0600, 4, true)) {
            assertEquals(expected, assertThrows(ErrnoException.class, () -> UnixSocket.connect(withNul)).getMessage());
            // Cut at the NUL, the path would have reached this listener: nothing did.
            assertNull(listener.accept(new SyscallCounters("accept")));
            assertEquals(expected, assertThrows(ErrnoException.class, () -> UnixSocket.listen(withNul, 0600, 1, false))
                    .getMessage());
            assertEquals(expected, assertThrows(ErrnoException.class, () -> SocketFile.socketAt(withNul)).getMessage());
        }
        try (var s = Files.list(dir)) {
            assertEquals(List.of(Path.of(live)), s.toList(), "the failed listen left nothing");
        }
    }

    @Test
    void otherControlCharactersAreShownEscapedAndANulAtTheStartNamesNothing() {
        ErrnoException e = assertThrows(ErrnoException.class, () -> UnixSocket.connect("\0/tmp/x\n.sock"));
        assertEquals("sockaddr_un(\\0/tmp/x\\x0a.sock): EINVAL (22) Invalid argument: the socket path has a NUL byte "
                + "at offset 0"
                + " (a file path ends at its first NUL: it would name nothing)", e.getMessage());
    }

    @Test
    void anAbstractNameMayHoldANulBecauseItIsPassedWithItsLength() throws Exception {
        String name = "@sysframe-rules-" + ProcessHandle.current().pid() + "\0tail";
        assertNull(SockaddrUn.problem(name));
        try (UnixSocket l = UnixSocket.listen(name, 0600, 1, false); UnixSocket c = UnixSocket.connect(name)) {
            assertEquals(true, c.isOpen() && l.isOpen());
        }
    }
}
