package org.sysframe.transport;

import org.sysframe.transport.wire.GroutApi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.testsupport.ChildProcess;
import org.sysframe.unix.uring.UringSupport;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * io_uring really unavailable: a child JVM runs under a seccomp filter that makes io_uring_setup fail
 * with EPERM (as container runtimes' default profiles do), while kernel.io_uring_disabled stays 0.
 * The io_uring backend fails naming the cause in one line; auto falls back to epoll, says so, and serves.
 */
class UringUnavailableTest {
    /** Installs the filter (no_new_privs first, as unprivileged seccomp requires), then runs argv[1..]. */
    private static final String DENY = """
            #include <errno.h>
            #include <stddef.h>
            #include <stdio.h>
            #include <unistd.h>
            #include <sys/prctl.h>
            #include <sys/syscall.h>
            #include <linux/audit.h>
            #include <linux/filter.h>
            #include <linux/seccomp.h>
            int main(int argc, char **argv) {
                struct sock_filter f[] = {
                    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
                    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
                    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
                    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
                    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
                    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
                };
                struct sock_fprog prog = { .len = sizeof f / sizeof f[0], .filter = f };
                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
                    perror("seccomp");
                    return 126;
                }
                execvp(argv[1], argv + 1);
                perror("execvp");
                return 127;
            }
            """;

    @TempDir Path dir;

    @Test
    void underASeccompFilterIoUringFailsNamingTheCauseAndAutoFallsBackToEpoll() throws Exception {
        Path src = dir.resolve("deny_uring.c"), exe = dir.resolve("deny_uring");
        Files.writeString(src, DENY);
        Process gcc = new ProcessBuilder("gcc", "-O1", "-o", exe.toString(), src.toString()).redirectErrorStream(true)
                .start();
        String gccOut = new String(gcc.getInputStream().readAllBytes());
        assertTrue(gcc.waitFor(60, TimeUnit.SECONDS) && gcc.exitValue() == 0, gccOut);
        List<String> cmd = new ArrayList<>(List.of(exe.toString()));
        cmd.addAll(ChildProcess.javaCommand(Child.class, dir.resolve("child.sock").toString()));
        try (ChildProcess child = new ChildProcess(cmd)) {
            assertTrue(child.process.waitFor(60, TimeUnit.SECONDS), "child hung:\n" + String.join("\n", child.output));
            String out = String.join("\n", child.output);
            assertEquals(0, child.process.exitValue(), out);
            String because = "io_uring unavailable: io_uring_setup: EPERM (1) Operation not permitted: refused although"
                    + " kernel.io_uring_disabled = 0: a seccomp filter or security module denies io_uring_setup to "
                            + "this process";
            assertTrue(child.output.contains("reason: " + because), out);
            assertTrue(child.output.contains("server io_uring: server(" + dir.resolve("child.sock")
                    + ") backend io_uring: ENOTSUP (95) Operation not supported: "
                    + because), out);
            assertTrue(child.output.contains("client io_uring: client(" + dir.resolve("child.sock")
                    + ") backend io_uring: ENOTSUP (95) Operation not supported: "
                    + because), out);
            assertTrue(out.contains("server(" + dir.resolve("child.sock") + "): backend auto falls back to epoll: "
                    + because), out);
            assertTrue(out.contains("client(" + dir.resolve("child.sock") + "): backend auto falls back to epoll: "
                    + because), out);
            assertTrue(child.output.contains("auto: server epoll, client epoll, ping 32 bytes"), out);
        }
    }

    /** The child: what each backend does where io_uring_setup is refused. */
    public static final class Child {
        public static void main(String[] args) throws Exception {
            String path = args[0];
            System.out.println("reason: " + UringSupport.unavailableReason());
            try (GroutServer s = GroutServer.start(ServerOptions.defaults().socketPath(path)
                    .backend(Backend.IO_URING))) {
                System.out.println("server io_uring: started (unexpected)");
            } catch (IOException e) {
                System.out.println("server io_uring: " + e.getMessage());
            }
            try (GroutServer s = GroutServer.start(ServerOptions.defaults().socketPath(path).backend(Backend.AUTO))) {
                try (GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path)
                        .backend(Backend.IO_URING))) {
                    System.out.println("client io_uring: connected (unexpected)");
                } catch (IOException e) {
                    System.out.println("client io_uring: " + e.getMessage());
                }
                try (GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path)
                        .backend(Backend.AUTO));
                     Arena a = Arena.ofConfined()) {
                    Response r = c.call(GroutApi.PING, a.allocate(32));
                    System.out.println("auto: server " + s.backend() + ", client " + c.backend() + ", ping "
                            + r.length() + " bytes");
                }
            }
        }
    }
}
