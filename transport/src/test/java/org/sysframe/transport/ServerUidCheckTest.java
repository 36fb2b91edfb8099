package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.testsupport.NeedsRoot;
import org.sysframe.transport.support.ImpostorServer;
import org.sysframe.transport.support.LoopsIndependent;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.UnixSocket;

import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The client checks whom it talks to: an impostor of another uid (65534, through setpriv) that bound
 * an abstract name first is refused right after connect, before the client sent a byte, with one line
 * naming its uid and pid; the options accept it. A socket file's server is accepted whatever its uid
 * unless the uids are named. The impostor is a C process of its own (so its uid is its own).
 */
@EachBackend
@NeedsRoot
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@LoopsIndependent
class ServerUidCheckTest {
    static final int NOBODY = 65534;
    @TempDir static Path dir;
    static Path exe;
    /** The socket files of one invocation of the suite are its own: the shared dir outlives the first. */
    private final String prefix;

    ServerUidCheckTest(Backend backend) { this.prefix = backend + "-"; }

    @BeforeAll
    static void compile() throws Exception {
        exe = ImpostorServer.compile(dir);
    }

    private static String abstractName(String what) {
        return "@sysframe-impostor-" + what + "-" + ProcessHandle.current().pid();
    }

    @Test
    void anImpostorOfAnotherUidOnAnAbstractNameIsRefusedBeforeAnyByteIsSent() throws Exception {
        String name = abstractName("refused");
        try (ImpostorServer impostor = ImpostorServer.start(exe, name, "count", NOBODY)) {
            ErrnoException e = assertThrows(ErrnoException.class, () -> GroutClient.connect(name).close());
            assertEquals(Errno.EPERM, e.errno());
            assertEquals("connect(" + name + "): EPERM (1) Operation not permitted: the server of " + name
                    + " is uid 65534 (pid "
                    + impostor.pid() + "), and this client accepts uid 0 (ClientOptions.serverUids or anyServerUid;"
                    + " ping --server-uid 65534 or --any-server-uid)", e.getMessage());
            assertEquals(0, impostor.awaitReceived(), "the impostor got nothing: not even GR_HELLO");
        }
    }

    @Test
    void namingTheImpostorsUidOrAcceptingAnyUidConnects() throws Exception {
        String name = abstractName("named");
        try (ImpostorServer impostor = ImpostorServer.start(exe, name, "hello", NOBODY)) {
            try (GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(name)
                    .serverUids(Set.of(NOBODY)))) {
                assertEquals(NOBODY, c.serverCredentials().uid());
                assertEquals(-1, c.maxIfaces(), "its empty GR_HELLO answer");
            }
            assertEquals(0, impostor.awaitReceived(), "nothing after the hello");
        }
        try (ImpostorServer impostor = ImpostorServer.start(exe, name, "hello", NOBODY)) {
            try (GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(name).anyServerUid(true))) {
                assertEquals(impostor.pid(), c.serverCredentials().pid());
            }
            assertEquals(0, impostor.awaitReceived());
        }
    }

    @Test
    void otherNamedUidsRefuseTheServersOwn() throws Exception {
        String name = abstractName("others");
        try (ImpostorServer impostor = ImpostorServer.start(exe, name, "count", -1)) {
            ErrnoException e = assertThrows(ErrnoException.class,
                    () -> GroutClient.connect(ClientOptions.defaults().socketPath(name).serverUids(Set.of(7, 5)))
                    .close());
            assertEquals("connect(" + name + "): EPERM (1) Operation not permitted: the server of " + name
                    + " is uid 0 (pid "
                    + impostor.pid() + "), and this client accepts uids 5, 7 (ClientOptions.serverUids or anyServerUid;"
                    + " ping --server-uid 0 or --any-server-uid)", e.getMessage());
            assertEquals(0, impostor.awaitReceived());
        }
    }

    @Test
    void aSocketFileAcceptsAnyServerUidByDefaultAndOnlyTheNamedOnesWhenTold() throws Exception {
        String path = dir.resolve(prefix + "file-impostor.sock").toString();
        try (ImpostorServer impostor = ImpostorServer.start(exe, path, "hello", NOBODY)) {
            try (GroutClient c = GroutClient.connect(path)) {
                assertEquals(NOBODY, c.serverCredentials().uid(), "the directory decides who could bind there");
            }
            assertEquals(0, impostor.awaitReceived());
        }
        UnixSocket.unlink(path);
        try (ImpostorServer impostor = ImpostorServer.start(exe, path, "count", NOBODY)) {
            ErrnoException e = assertThrows(ErrnoException.class,
                    () -> GroutClient.connect(ClientOptions.defaults().socketPath(path).serverUids(Set.of(0))).close());
            assertEquals("connect(" + path + "): EPERM (1) Operation not permitted: the server of " + path
                    + " is uid 65534 (pid "
                    + impostor.pid() + "), and this client accepts uid 0 (ClientOptions.serverUids or anyServerUid;"
                    + " ping --server-uid 65534 or --any-server-uid)", e.getMessage());
            assertEquals(0, impostor.awaitReceived());
        }
    }

    @Test
    void aServerThatDiesDuringTheHandshakeIsNamedAsGoneWithoutTheUidQuestion() throws Exception {
        String path = dir.resolve(prefix + "dies.sock").toString();
        try (ImpostorServer dying = ImpostorServer.start(exe, path, "exit", -1)) {
            ErrnoException e = assertThrows(ErrnoException.class, () -> GroutClient.connect(path).close());
            assertEquals("GR_HELLO: " + e.errnoName() + " (" + e.errno() + ") " + e.strerror() + ": the server (pid "
                    + dying.pid()
                    + ") went away during GR_HELLO", e.getMessage());
            assertEquals(true, e.errno() == Errno.ECONNRESET || e.errno() == Errno.EPIPE, e.getMessage());
        }
    }

    @Test
    void bothOptionsTogetherAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ClientOptions.defaults().serverUids(Set.of(3, 1)).anyServerUid(true).freeze());
        assertEquals("anyServerUid and serverUids [1, 3] both set: choose one", e.getMessage());
    }
}
