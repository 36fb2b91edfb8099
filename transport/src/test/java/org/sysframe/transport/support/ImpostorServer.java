package org.sysframe.transport.support;

import org.sysframe.testsupport.ChildProcess;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server in a process of its own, written in C and compiled into a temp dir, optionally run as
 * another uid (setpriv): it listens on a socket file or an abstract {@code @name}, prints
 * {@code listening}, accepts one connection, then as its mode says: {@code hello} answers GR_HELLO
 * with an empty payload and counts what comes after it; {@code count} counts every byte that comes;
 * {@code exit} exits at once (a server that dies during the handshake). At the client's EOF it prints
 * {@code received N bytes} and exits.
 */
public final class ImpostorServer implements AutoCloseable {
    private static final String SOURCE = """
            #include <stdio.h>
            #include <string.h>
            #include <stdint.h>
            #include <unistd.h>
            #include <sys/stat.h>
            #include <sys/socket.h>
            #include <sys/un.h>
            int main(int argc, char **argv) {
                const char *name = argv[1], *mode = argv[2];
                struct sockaddr_un sa = { .sun_family = AF_UNIX };
                size_t n = strlen(name);
                socklen_t len;
                if (name[0] == '@') { memcpy(sa.sun_path + 1, name + 1, n - 1); len = sizeof(sa.sun_family) + n; }
                else { memcpy(sa.sun_path, name, n); len = sizeof(sa); }
                int l = socket(AF_UNIX, SOCK_STREAM, 0);
                if (bind(l, (struct sockaddr *)&sa, len) < 0) { perror("bind"); return 2; }
                if (name[0] != '@') chmod(name, 0777);
                if (listen(l, 4) < 0) { perror("listen"); return 2; }
                printf("listening\\n");
                fflush(stdout);
                int fd = accept(l, NULL, NULL);
                if (fd < 0) { perror("accept"); return 2; }
                if (strcmp(mode, "exit") == 0) return 0;
                if (strcmp(mode, "hello") == 0) {
                    unsigned char req[12 + 132];
                    if (recv(fd, req, sizeof(req), MSG_WAITALL) != (ssize_t)sizeof(req)) {
                        printf("no hello\\n");
                        return 3;
                    }
                    uint32_t resp[3] = {0, 0, 0};
                    memcpy(resp, req, 4); /* for_id = the hello's id, status 0, no payload */
                    send(fd, resp, sizeof(resp), MSG_NOSIGNAL);
                }
                long total = 0;
                char buf[4096];
                ssize_t got;
                while ((got = recv(fd, buf, sizeof(buf), 0)) > 0) total += got;
                printf("received %ld bytes\\n", total);
                return 0;
            }
            """;

    private final ChildProcess child;

    private ImpostorServer(ChildProcess child) {
        this.child = child;
    }

    /** Compiles the server into dir (made reachable by every uid) and returns the executable. */
    public static Path compile(Path dir) throws Exception {
        Path src = dir.resolve("impostor.c");
        Path exe = dir.resolve("impostor");
        Files.writeString(src, SOURCE);
        Process p = new ProcessBuilder("gcc", "-O1", "-o", exe.toString(), src.toString()).redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "gcc did not finish");
        assertEquals(0, p.exitValue(), "gcc: " + out);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        return exe;
    }

    /** Starts exe on name in mode, as uid (-1: this process's uid), and waits until it listens. */
    public static ImpostorServer start(Path exe, String name, String mode, int uid) throws Exception {
        List<String> cmd = new ArrayList<>();
        if (uid >= 0) cmd.addAll(List.of("setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups"));
        cmd.addAll(List.of(exe.toString(), name, mode));
        ChildProcess c = new ChildProcess(cmd);
        try {
            c.awaitLine("listening"::equals);
            return new ImpostorServer(c);
        } catch (Throwable t) {
            c.close();
            throw t;
        }
    }

    public int pid() { return child.pid(); }

    /** Waits for the {@code received N bytes} line (after the client closed) and returns N. */
    public long awaitReceived() throws InterruptedException {
        String line = child.awaitLine(l -> l.startsWith("received "));
        return Long.parseLong(line.split(" ")[1]);
    }

    /** Waits until the process ended and was reaped. */
    public void awaitExit() throws InterruptedException {
        assertTrue(child.process.waitFor(20, TimeUnit.SECONDS), "the impostor did not exit");
    }

    @Override
    public void close() throws Exception { child.close(); }
}
