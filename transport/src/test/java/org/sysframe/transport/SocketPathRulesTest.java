package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.wire.GroutApi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.transport.support.TestServers;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.Self;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The shared socket path rules (GroutApi.checkSocketPath) at the library's start and connect, and the
 * start-up warning for allowed uids that the socket file's mode shuts out.
 */
@EachBackend
class SocketPathRulesTest {
    @TempDir Path dir;

    private static final String EMPTY = "sockaddr_un(\"\"): EINVAL (22) Invalid argument: empty socket path";

    @Test
    void anEmptyPathIsTheSameOneLineForServerAndClient() {
        assertEquals(EMPTY, assertThrows(ErrnoException.class, () ->
                TestServers.start(ServerOptions.defaults().socketPath(""))).getMessage());
        assertEquals(EMPTY, assertThrows(ErrnoException.class, () -> GroutClient.connect("")).getMessage());
        assertEquals(EMPTY, assertThrows(ErrnoException.class, () -> GroutApi.checkSocketPath("")).getMessage());
    }

    @Test
    void aNulInAFilePathFailsForServerAndClientAndTheClientNeverReachesTheServerBeforeTheNul() throws Exception {
        String live = dir.resolve("live.sock").toString();
        String withNul = live + "\0x";
        String expected = "sockaddr_un(" + live
                + "\\0x): EINVAL (22) Invalid argument: the socket path has a NUL byte at offset "
                + live.length() + " (a file path ends at its first NUL: it would name " + live + ")";
        List<Path> before;
        try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath(live))) {
            assertEquals(expected, assertThrows(ErrnoException.class, () -> GroutClient.connect(withNul)).getMessage());
            assertEquals(expected, assertThrows(ErrnoException.class, () ->
                    TestServers.start(ServerOptions.defaults().socketPath(withNul))).getMessage());
            assertEquals(List.of(), s.closedConnections(),
                    "the client cut at the NUL would have connected here: it did not");
            assertEquals(0, s.connectionCount());
            try (var l = Files.list(dir)) {
                before = l.toList();
            }
        }
        assertEquals(List.of(Path.of(live)), before, "the refused start left nothing in the directory");
    }

    @Test
    void allowedUidsOnAFileOnlyItsOwnerCanConnectToAreNamedInOneWarningAtStart() throws Exception {
        List<String> warnings = captureWarnings(() -> {
            String p = dir.resolve("a.sock").toString();
            TestServers.start(ServerOptions.defaults().socketPath(p)
                    .allowedUids(new HashSet<>(List.of(0, Self.uid(), 1000, 65534)))).close();
        });
        String p = dir.resolve("a.sock").toString();
        assertEquals(List.of("socket " + p + " has mode 0600, which lets only its owner (uid " + Self.uid()
                + ") connect: allowed uids 1000, 65534"
                + " cannot; give the socket mode 0666 (the allowed uids still decide who is served) or 0660 with a "
                        + "group of theirs"), warnings);

        List<String> one = captureWarnings(() ->
                TestServers.start(ServerOptions.defaults().socketPath(p).mode(0640).allowedUids(Set.of(65534)))
                .close());
        assertEquals(List.of("socket " + p + " has mode 0640, which lets only its owner (uid " + Self.uid()
                + ") connect: allowed uid 65534"
                + " cannot; give the socket mode 0666 (the allowed uids still decide who is served) or 0660 with a "
                        + "group of theirs"), one);
    }

    @Test
    void noWarningWhenTheModeLetsOthersInOrOnlyTheOwnerIsAllowedOrTheNameIsAbstract() throws Exception {
        String p = dir.resolve("b.sock").toString();
        List<String> warnings = captureWarnings(() -> {
            TestServers.start(ServerOptions.defaults().socketPath(p).mode(0666).allowedUids(Set.of(65534))).close();
            TestServers.start(ServerOptions.defaults().socketPath(p).mode(0660).allowedUids(Set.of(65534))).close();
            TestServers.start(ServerOptions.defaults().socketPath(p).allowedUids(Set.of(Self.uid()))).close();
            TestServers.start(ServerOptions.defaults().socketPath(p)).close();
            TestServers.start(ServerOptions.defaults().socketPath("@sysframe-rules-" + ProcessHandle.current().pid())
                    .allowedUids(Set.of(65534))).close();
        });
        assertEquals(List.of(), warnings);
    }

    interface Body { void run() throws Exception; }

    /** The WARNING records of the server's logger while body runs, kept off the console. */
    private static List<String> captureWarnings(Body body) throws Exception {
        List<String> out = new CopyOnWriteArrayList<>();
        Logger log = Logger.getLogger("org.sysframe.server");
        Handler h = new Handler() {
            @Override public void publish(LogRecord r) { if (r.getLevel() == Level.WARNING) out.add(r.getMessage()); }
            @Override public void flush() {}
            @Override public void close() {}
        };
        boolean parents = log.getUseParentHandlers();
        log.addHandler(h);
        log.setUseParentHandlers(false);
        try {
            body.run();
        } finally {
            log.removeHandler(h);
            log.setUseParentHandlers(parents);
        }
        return out;
    }
}
