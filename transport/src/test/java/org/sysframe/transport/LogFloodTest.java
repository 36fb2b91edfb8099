package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.testsupport.NeedsRoot;
import org.sysframe.transport.support.ServerLogs;
import org.sysframe.transport.support.TestServers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * 20,000 connects by another uid (a child dropped to 65534 with setpriv), each refused, cost the log
 * exactly what the rate limit allows: the first 10 of each interval, then one line counting the rest.
 */
@EachBackend
@NeedsRoot
class LogFloodTest {
    @TempDir Path dir;

    static final int NOBODY = 65534;
    static final int CONNECTS = 20_000;
    static final Pattern SUMMARY = Pattern.compile(
            "refused connection \\(not an allowed uid\\): \\.\\.\\. and (\\d+) more like it in the last \\d+\\.\\d s");

    // Connects argv[2] times to the abstract name argv[1]; each time waits for the server's close; prints how many were
    // closed unanswered.
    private static final String CHILD = """
            #include <stdio.h>
            #include <stdlib.h>
            #include <string.h>
            #include <unistd.h>
            #include <sys/socket.h>
            #include <sys/un.h>
            int main(int argc, char **argv) {
                struct sockaddr_un sa = { .sun_family = AF_UNIX };
                size_t n = strlen(argv[1]);
                memcpy(sa.sun_path + 1, argv[1], n);
                int count = atoi(argv[2]), closed = 0;
                for (int i = 0; i < count; i++) {
                    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
                    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa.sun_family) + 1 + n) < 0) {
                        perror("connect");
                        return 2;
                    }
                    char b[16];
                    if (recv(fd, b, sizeof b, 0) == 0) closed++;
                    close(fd);
                }
                printf("closed %d uid %d\\n", closed, (int)getuid());
                return 0;
            }
            """;

    @Test
    void twentyThousandRefusedConnectsLogTenLinesAndOneCountOfTheRestPerInterval() throws Exception {
        Path exe = compileChild();
        String name = "sysframe-flood-" + ProcessHandle.current().pid();
        try (ServerLogs logs = new ServerLogs()) {
            // An interval longer than the run: the first 10 lines, then the count of the rest when the server stops.
            try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath("@" + name)
                    .allowedUids(Set.of(0))
                    .logLimit(10, Duration.ofHours(1)))) {
                assertEquals("closed " + CONNECTS + " uid " + NOBODY, runAsNobody(exe, name, CONNECTS));
                List<String> lines = logs.lines();
                assertEquals(10, lines.size(), lines.toString());
                for (String l : lines) assertTrue(l.startsWith("refused connection from uid 65534 (pid "), l);
                assertEquals(0, s.connectionCount());
            }
            List<String> lines = logs.lines();
            assertEquals(11, lines.size(), lines.toString());
            Matcher m = SUMMARY.matcher(lines.get(10));
            assertTrue(m.matches(), lines.get(10));
            assertEquals(CONNECTS - 10, Integer.parseInt(m.group(1)));
        }
        try (ServerLogs logs = new ServerLogs()) {
            // A short interval: however the run falls into intervals, every refusal is a line or counted in one,
            // exactly once.
            try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath("@" + name)
                    .allowedUids(Set.of(0))
                    .logLimit(10, Duration.ofMillis(100)))) {
                assertEquals("closed " + CONNECTS + " uid " + NOBODY, runAsNobody(exe, name, CONNECTS));
            }
            long refused = 0, counted = 0, sinceSummary = 0;
            for (String l : logs.lines()) {
                Matcher m = SUMMARY.matcher(l);
                if (m.matches()) {
                    counted += Long.parseLong(m.group(1));
                    assertEquals(0, sinceSummary % 10, "an interval with lines left over: " + sinceSummary
                            + " lines before " + l);
                    sinceSummary = 0;
                } else {
                    assertTrue(l.startsWith("refused connection from uid 65534 (pid "), l);
                    refused++;
                    sinceSummary++;
                }
            }
            assertEquals(CONNECTS, refused + counted, "lines " + refused + " + counted " + counted);
            System.out.printf("log flood: %,d refused connects, 100 ms intervals: %d lines logged, %d counted in %d "
                    + "summary lines%n",
                    CONNECTS, refused, counted, logs.lines().size() - refused);
        }
    }

    private Path compileChild() throws Exception {
        Path src = dir.resolve("flood_child.c");
        Path exe = dir.resolve("flood_child");
        Files.writeString(src, CHILD);
        run(List.of("gcc", "-O1", "-o", exe.toString(), src.toString()));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        return exe;
    }

    private static String runAsNobody(Path exe, String name, int connects) throws Exception {
        return run(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", exe.toString(), name,
                String.valueOf(connects))).trim();
    }

    private static String run(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), String.join(" ", cmd) + " did not finish");
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + ": " + out);
        return out;
    }
}
