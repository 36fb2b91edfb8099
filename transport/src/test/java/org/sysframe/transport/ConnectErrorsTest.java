package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sysframe.transport.support.ServerFixture;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.Self;
import org.sysframe.unix.UnixSocket;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A client that cannot connect or say GR_HELLO says, in one line, what happened and what to check. */
@EachBackend
class ConnectErrorsTest {
    @RegisterExtension
    final ServerFixture fx = new ServerFixture();

    private static ErrnoException failing(String path) {
        return assertThrows(ErrnoException.class, () -> GroutClient.connect(path).close());
    }

    @Test
    void noFileAtThePathAsksWhetherTheServerRunsAndThePathIsRight() {
        String p = fx.path("none.sock");
        ErrnoException e = failing(p);
        assertEquals(Errno.ENOENT, e.errno());
        assertEquals("connect(" + p + "): ENOENT (2) No such file or directory: no socket file at " + p
                + ": is the server running, and is the path (or $GROUT_SOCK_PATH) right?", e.getMessage());
    }

    @Test
    void aRegularFileSaysItIsNotASocket() throws Exception {
        Path p = Files.writeString(fx.dir().resolve("notes.txt"), "x");
        ErrnoException e = failing(p.toString());
        assertEquals(Errno.ECONNREFUSED, e.errno());
        assertTrue(e.getMessage().endsWith(p + " is a regular file, not a socket: is the path right?"), e.getMessage());
    }

    @Test
    void aStaleSocketFileSaysNoServerAnswers() throws Exception {
        String p = fx.path("stale.sock");
        UnixSocket.listen(p, 0600, 1, false).close();
        ErrnoException e = failing(p);
        assertEquals(Errno.ECONNREFUSED, e.errno());
        assertTrue(e.getMessage().endsWith("no server answers on " + p + " (a stale socket file)"), e.getMessage());
    }

    @Test
    void aRefusedApiVersionNamesTheVersionSentAndKeepsTheStatus() throws Exception {
        String p = fx.path("v.sock");
        fx.start(ServerOptions.defaults().socketPath(p));
        ApiException e = assertThrows(ApiException.class, () ->
                GroutClient.connect(ClientOptions.defaults().socketPath(p).apiVersion(10)).close());
        assertEquals(Errno.EBADMSG, e.status());
        assertEquals("GR_HELLO: EBADMSG (74) Bad message: the server refused api_version 10: it speaks 11"
                + " (set ClientOptions.apiVersion, ping --api-version, to the server's)", e.getMessage());
    }

    @Test
    void aServerThatClosesRightAfterConnectAsksWhetherTheUidIsAllowed() throws Exception {
        String name = "@sysframe-uid-hint-" + ProcessHandle.current().pid();
        fx.start(ServerOptions.defaults().socketPath(name).allowedUids(Set.of(Self.uid() + 4242)));
        ErrnoException e = failing(name);
        assertTrue(e.errno() == Errno.ECONNRESET || e.errno() == Errno.EPIPE, e.getMessage());
        assertTrue(e.getMessage().endsWith("the server closed the connection right after connect: is uid " + Self.uid()
                + " allowed (the server's allowed uids)?"), e.getMessage());
        assertTrue(!e.getMessage().contains("\n"), "one line");
    }
}
