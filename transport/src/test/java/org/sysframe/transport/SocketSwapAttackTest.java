package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.testsupport.Awaits;
import org.sysframe.testsupport.ChildProcess;
import org.sysframe.testsupport.NeedsRoot;
import org.sysframe.transport.support.TestServers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The swap attack of issue 19 against 20 server starts with mode 0666: another uid (65534, through
 * setpriv) that can write the socket's directory (0777, no sticky bit) watches it with inotify and,
 * the moment the socket's name appears, renames it away and puts a symlink to a root-owned 0640 file
 * in its place. A second attacker swaps the server's private set-up directory instead, for a symlink
 * to a directory of its own that holds a symlink to the same file. Every time, the target keeps its
 * mode, owner and content; each start either runs with its socket verified at the path or fails with
 * the one line that says what is there. What each start said is written to
 * {@code target/swap-attack-starts.txt}.
 */
@EachBackend
@NeedsRoot
class SocketSwapAttackTest {
    @TempDir Path top;

    static final int NOBODY = 65534;
    static final int STARTS = 20;
    static final String NAME = "s.sock";

    // attacker DIR NAME TARGET MODE. MODE "name": swap DIR/NAME when it appears; "dir": swap every new
    // DIR/.NAME.XXXXXX (the server's private directory) for a symlink to DIR/evil, which holds s -> TARGET.
    // Prints "watching" once ready and "swap K: ..." after each swap; re-arms ("name") when NAME is deleted.
    private static final String ATTACKER = """
            #define _GNU_SOURCE
            #include <errno.h>
            #include <limits.h>
            #include <stdio.h>
            #include <string.h>
            #include <sys/inotify.h>
            #include <sys/stat.h>
            #include <unistd.h>
            int main(int argc, char **argv) {
                const char *dir = argv[1], *name = argv[2], *target = argv[3];
                int dirMode = strcmp(argv[4], "dir") == 0;
                char prefix[NAME_MAX + 2], evil[PATH_MAX], path[PATH_MAX], aside[PATH_MAX], last[NAME_MAX + 1] = "";
                snprintf(prefix, sizeof prefix, ".%s.", name);
                snprintf(evil, sizeof evil, "%s/evil", dir);
                if (dirMode) {
                    char s[PATH_MAX];
                    snprintf(s, sizeof s, "%s/s", evil);
                    if (mkdir(evil, 0755) != 0 || symlink(target, s) != 0) { perror("evil"); return 2; }
                }
                int fd = inotify_init1(IN_CLOEXEC);
                if (inotify_add_watch(fd, dir, IN_CREATE | IN_MOVED_TO | IN_DELETE) < 0) {
                    perror("inotify_add_watch");
                    return 2;
                }
                printf("watching as uid %d\\n", (int)getuid());
                fflush(stdout);
                int armed = 1, k = 0;
                char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
                for (;;) {
                    ssize_t n = read(fd, buf, sizeof buf);
                    if (n <= 0) { perror("read"); return 3; }
                    for (char *p = buf; p < buf + n;) {
                        struct inotify_event *e = (struct inotify_event *)p;
                        p += sizeof *e + e->len;
                        if (e->len == 0) continue;
                        /* mkdtemp names only: the prefix and six characters */
                        int hit = dirMode ? strncmp(e->name, prefix, strlen(prefix)) == 0
                                && strlen(e->name) == strlen(prefix) + 6
                                          : strcmp(e->name, name) == 0;
                        if (!hit) continue;
                        if (e->mask & IN_DELETE) { if (!dirMode) armed = 1; continue; }
                        if (!dirMode && !armed) continue;
                        if (dirMode && strcmp(e->name, last) == 0) continue; /* our own symlink */
                        snprintf(path, sizeof path, "%s/%s", dir, e->name);
                        snprintf(aside, sizeof aside, "%s/moved-%d", dir, k);
                        int r = rename(path, aside), re = errno;
                        int s = symlink(dirMode ? evil : target, path), se = errno;
                        snprintf(last, sizeof last, "%s", e->name);
                        armed = 0;
                        printf("swap %d: rename %s, symlink %s\\n", k,
                               r == 0 ? "ok" : strerror(re), s == 0 ? "ok" : strerror(se));
                        fflush(stdout);
                        k++;
                    }
                }
            }
            """;

    @Test
    void swappingTheSocketForASymlinkNeverChangesTheTarget() throws Exception {
        attack("name");
    }

    @Test
    void swappingThePrivateDirectoryForASymlinkNeverChangesTheTarget() throws Exception {
        attack("dir");
    }

    private void attack(String mode) throws Exception {
        Files.setPosixFilePermissions(top, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path exe = compile();
        Path target = Files.writeString(top.resolve("target.txt"), "root's own data\n");
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-r-----"));
        Path dir = Files.createDirectory(top.resolve("shared"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path sock = dir.resolve(NAME);

        List<String> said = new ArrayList<>();
        Logger log = Logger.getLogger("org.sysframe.server");
        List<String> logged = new ArrayList<>();
        Handler capture = new Handler() {
            @Override public synchronized void publish(LogRecord r) { logged.add(r.getLevel() + " " + r.getMessage()); }
            @Override public void flush() {}
            @Override public void close() {}
        };
        boolean parents = log.getUseParentHandlers();
        log.addHandler(capture);
        log.setUseParentHandlers(false);
        try (ChildProcess attacker = new ChildProcess(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY,
                "--clear-groups", exe.toString(), dir.toString(), NAME, target.toString(), mode))) {
            Awaits.awaitUntil(() -> attacker.count(l -> l.startsWith("watching as uid " + NOBODY)) == 1,
                    Awaits.HANG_GUARD, () -> "the attacker did not start: " + attacker.output);
            for (int k = 0; k < STARTS; k++) {
                GroutServer server = null;
                String outcome;
                try {
                    server = TestServers.start(ServerOptions.defaults().socketPath(sock.toString()).mode(0666));
                    String problem = server.socketFileProblem();
                    outcome = problem == null ? "started: " + server.config().access() + " verified at the path"
                            : "started, then: " + problem;
                } catch (IOException e) {
                    outcome = "refused: " + e.getMessage();
                    assertTrue(expectedRefusal(e.getMessage(), sock, target, dir), "start " + k + ": "
                            + e.getMessage());
                }
                int swaps = k + 1;
                Awaits.awaitUntil(() -> attacker.count(l -> l.startsWith("swap ")) == swaps, Awaits.HANG_GUARD,
                        () -> "start " + swaps + ": the attacker did not swap: " + attacker.output);
                String swap = attacker.output.stream().filter(l -> l.startsWith("swap " + (swaps - 1) + ":"))
                        .findFirst().orElseThrow();
                if (mode.equals("name")) {
                    assertEquals("swap " + k + ": rename ok, symlink ok", swap, "the attack itself worked");
                } else {
                    // The private directory may be gone already when the attacker gets to it: then it only leaves a
                    // symlink.
                    assertTrue(swap.equals("swap " + k + ": rename ok, symlink ok")
                            || swap.equals("swap " + k + ": rename No such file or directory, symlink ok"), swap);
                }
                if (server != null) server.close();
                said.add("start " + (k + 1) + " (" + mode + "): " + outcome + " | attacker: "
                        + swap.substring(swap.indexOf(':') + 2));

                assertEquals(0100640, (Integer) Files.getAttribute(target, "unix:mode"), "start " + (k + 1)
                        + ": the target's mode");
                assertEquals(0, (Integer) Files.getAttribute(target, "unix:uid"), "the target's owner");
                assertEquals("root's own data\n", Files.readString(target), "the target's content");
                if (mode.equals("name")) {
                    // What the attacker moved away is the server's own socket, with the mode set on it.
                    Path moved = dir.resolve("moved-" + k);
                    assertEquals(0140666, (Integer) Files.getAttribute(moved, "unix:mode", LinkOption.NOFOLLOW_LINKS),
                            "the socket got the mode");
                }
                clean(dir);
            }
            Files.writeString(Path.of("target", "swap-attack-starts.txt"), String.join("\n", said) + "\n",
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            assertEquals(STARTS, said.size(), String.join("\n", said));
        } finally {
            log.removeHandler(capture);
            log.setUseParentHandlers(parents);
        }
    }

    /** The only refusals a start may give under this attack, each naming what is at the path. */
    private static boolean expectedRefusal(String m, Path sock, Path target, Path dir) {
        return m.equals("lstat(" + sock + "): EEXIST (17) File exists: " + sock
                + " is not this socket file any more: it is now a symbolic link to "
                        + target + " (changed right after the socket was put in place): left as it is")
                || m.equals("lstat(" + sock + "): ENOENT (2) No such file or directory: nothing is at " + sock
                        + " now: the socket file was moved away or removed (changed right after the socket was put in "
                                + "place): left as it is")
                || (m.startsWith("open(" + dir + "/." + NAME + ".")
                        && m.endsWith("the private directory made for the socket was replaced right after mkdtemp: "
                                + "left as it is"));
    }

    /** Removes everything the attack and the starts left in dir, but the attacker's own directory. */
    private static void clean(Path dir) throws IOException {
        try (var s = Files.list(dir)) {
            for (Path p : s.toList()) {
                if (p.getFileName().toString().equals("evil")) continue;
                deleteTree(p);
            }
        }
    }

    private static void deleteTree(Path p) throws IOException {
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            try (var s = Files.walk(p)) {
                for (Path q : s.sorted(Comparator.reverseOrder()).toList()) Files.delete(q);
            }
        } else {
            Files.delete(p);
        }
    }

    private Path compile() throws Exception {
        Path src = top.resolve("attacker.c");
        Path exe = top.resolve("attacker");
        Files.writeString(src, ATTACKER);
        Process p = new ProcessBuilder("gcc", "-O2", "-Wall", "-o", exe.toString(), src.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) fail("gcc: " + out);
        return exe;
    }
}
