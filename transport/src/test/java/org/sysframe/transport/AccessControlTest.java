package org.sysframe.transport;

import org.junit.jupiter.api.Assertions;
import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.TestServers;
import org.sysframe.testsupport.NeedsRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.unix.Self;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A child process that drops to uid 65534 with setuid (setpriv) is refused by a server that allows
 * only uid 0, and the refusal is logged; the same child is served when its uid is allowed. An abstract
 * name is used so that file permissions play no part: only SO_PEERCRED decides.
 */
@EachBackend
@NeedsRoot
class AccessControlTest {
    @TempDir Path dir;

    static final int NOBODY = 65534;

    // Connects, sends GR_HELLO (api 11), prints "answered <status>" or "closed".
    private static final String CHILD = """
            #include <stdio.h>
            #include <string.h>
            #include <stdint.h>
            #include <unistd.h>
            #include <sys/socket.h>
            #include <sys/un.h>
            int main(int argc, char **argv) {
                struct sockaddr_un sa = { .sun_family = AF_UNIX };
                size_t n = strlen(argv[1]);
                memcpy(sa.sun_path + 1, argv[1], n); /* abstract: leading NUL */
                int fd = socket(AF_UNIX, SOCK_STREAM, 0);
                if (connect(fd, (struct sockaddr *)&sa, sizeof(sa.sun_family) + 1 + n) < 0) {
                    perror("connect");
                    return 2;
                }
                unsigned char req[12 + 132] = {0};
                uint32_t h[3] = {1, 0xcafe1981u, 132}, v = 11;
                memcpy(req, h, 12);
                memcpy(req + 12, &v, 4);
                send(fd, req, sizeof(req), MSG_NOSIGNAL);
                uint32_t resp[3];
                ssize_t got = recv(fd, resp, sizeof(resp), MSG_WAITALL);
                if (got == (ssize_t)sizeof(resp)) printf("answered %u uid %d\\n", resp[1], (int)getuid());
                else printf("closed uid %d\\n", (int)getuid());
                return 0;
            }
            """;

    @Test
    void aChildThatDropsToAnotherUidIsRefusedAndLoggedUnlessItsUidIsAllowed() throws Exception {
        Path exe = compileChild();
        List<String> refusals = new CopyOnWriteArrayList<>();
        Logger log = Logger.getLogger("org.sysframe.server");
        Handler capture = new Handler() {
            @Override public void publish(LogRecord r) {
                if (r.getMessage().startsWith("refused connection")) refusals.add(r.getMessage());
            }
            @Override public void flush() {}
            @Override public void close() {}
        };
        log.addHandler(capture);
        try {
            String name = "sysframe-acl-" + ProcessHandle.current().pid();
            try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath("@" + name)
                    .allowedUids(Set.of(0)))) {
                assertEquals("closed uid 65534", runAsNobody(exe, name));
                assertEquals(1, refusals.size(), refusals.toString());
                assertTrue(refusals.get(0).startsWith("refused connection from uid 65534 (pid "), refusals.get(0));
                assertEquals(0, s.connectionCount());
                assertEquals(List.of(), s.closedConnections(), "a refused connection is never registered");
            }
            try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath("@" + name)
                    .allowedUids(Set.of(0, NOBODY)))) {
                assertEquals("answered 0 uid 65534", runAsNobody(exe, name));
                assertEquals(1, refusals.size(), "no new refusal");
                assertTrue(s.connectionCount() <= 1);
            }
        } finally {
            log.removeHandler(capture);
        }
    }

    @Test
    void anAbstractNameAdmitsOnlyTheServersOwnUidByDefault() throws Exception {
        Path exe = compileChild();
        String name = "sysframe-acl-default-" + ProcessHandle.current().pid();
        ServerOptions defaults = ServerOptions.defaults().socketPath("@" + name);
        assertEquals("abstract name, no file mode: only uid " + Self.uid() + " may connect", defaults.access());
        try (GroutServer s = TestServers.start(defaults)) {
            assertEquals("closed uid 65534", runAsNobody(exe, name));
            assertEquals(0, s.connectionCount());
            try (GroutClient own = GroutClient.connect("@" + name)) {
                assertEquals(1024, own.maxIfaces(), "the server's own uid is served");
            }
        }
    }

    @Test
    void allowAnyUidOpensAnAbstractNameToEveryUid() throws Exception {
        Path exe = compileChild();
        String name = "sysframe-acl-any-" + ProcessHandle.current().pid();
        ServerOptions any = ServerOptions.defaults().socketPath("@" + name).allowAnyUid(true);
        assertEquals("abstract name, any uid may connect", any.access());
        try (GroutServer s = TestServers.start(any)) {
            assertEquals("answered 0 uid 65534", runAsNobody(exe, name));
        }
    }

    @Test
    void allowAnyUidTogetherWithAllowedUidsIsRefusedAtStart() {
        ServerOptions both = ServerOptions.defaults().socketPath("@sysframe-acl-both").allowAnyUid(true)
                .allowedUids(Set.of(1));
        IllegalArgumentException e = Assertions.assertThrows(IllegalArgumentException.class, () ->
                TestServers.start(both));
        assertEquals("allowAnyUid and allowedUids [1] both set: choose one", e.getMessage());
    }

    private Path compileChild() throws Exception {
        Path src = dir.resolve("acl_child.c");
        Path exe = dir.resolve("acl_child");
        Files.writeString(src, CHILD);
        run(List.of("gcc", "-O1", "-o", exe.toString(), src.toString()));
        // The child runs as nobody: it must be able to reach and execute the binary.
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        return exe;
    }

    private static String runAsNobody(Path exe, String name) throws Exception {
        return run(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", exe.toString(),
                name)).trim();
    }

    private static String run(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), String.join(" ", cmd) + " did not finish");
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + ": " + out);
        return out;
    }
}
