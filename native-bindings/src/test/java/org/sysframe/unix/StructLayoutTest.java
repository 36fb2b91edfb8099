package org.sysframe.unix;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.StructLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Our MemoryLayouts against what gcc lays out on this machine. */
class StructLayoutTest {
    private static final String PROBE = """
            #define _GNU_SOURCE
            #include <stdio.h>
            #include <stddef.h>
            #include <sys/socket.h>
            #include <sys/un.h>
            #include <sys/uio.h>
            #include <sys/epoll.h>
            #define P(name, value) printf("%s=%zu\\n", name, (size_t)(value))
            int main(void) {
                P("sockaddr_un", sizeof(struct sockaddr_un));
                P("sockaddr_un.sun_path", offsetof(struct sockaddr_un, sun_path));
                P("iovec", sizeof(struct iovec));
                P("iovec.iov_len", offsetof(struct iovec, iov_len));
                P("msghdr", sizeof(struct msghdr));
                P("msghdr.msg_namelen", offsetof(struct msghdr, msg_namelen));
                P("msghdr.msg_iov", offsetof(struct msghdr, msg_iov));
                P("msghdr.msg_iovlen", offsetof(struct msghdr, msg_iovlen));
                P("msghdr.msg_control", offsetof(struct msghdr, msg_control));
                P("msghdr.msg_controllen", offsetof(struct msghdr, msg_controllen));
                P("msghdr.msg_flags", offsetof(struct msghdr, msg_flags));
                P("ucred", sizeof(struct ucred));
                P("ucred.uid", offsetof(struct ucred, uid));
                P("ucred.gid", offsetof(struct ucred, gid));
                P("epoll_event", sizeof(struct epoll_event));
                P("epoll_event.data", offsetof(struct epoll_event, data));
                return 0;
            }
            """;

    @Test
    void layoutsMatchWhatGccSays(@TempDir Path dir) throws Exception {
        Map<String, Long> c = compileAndRun(dir);
        assertStruct(c, "sockaddr_un", SockaddrUn.LAYOUT, "sun_path");
        assertStruct(c, "iovec", IovArray.IOVEC, "iov_len");
        assertStruct(c, "msghdr", IovArray.MSGHDR,
                "msg_namelen", "msg_iov", "msg_iovlen", "msg_control", "msg_controllen", "msg_flags");
        assertStruct(c, "ucred", PeerCredentials.UCRED, "uid", "gid");
        assertStruct(c, "epoll_event", Epoll.EVENT, "data");
        // The known x86-64 values, so a wrong probe cannot pass silently.
        assertEquals(110, SockaddrUn.LAYOUT.byteSize());
        assertEquals(56, IovArray.MSGHDR.byteSize());
        assertEquals(12, Epoll.EVENT.byteSize());
        assertEquals(4, Epoll.EVENT.byteOffset(groupElement("data")));
    }

    private static void assertStruct(Map<String, Long> c, String name, StructLayout layout, String... fields) {
        assertEquals(c.get(name), layout.byteSize(), "sizeof(struct " + name + ")");
        for (String f : fields) {
            assertEquals(c.get(name + "." + f), layout.byteOffset(groupElement(f)), "offsetof(" + name + ", " + f + ")");
        }
    }

    private static Map<String, Long> compileAndRun(Path dir) throws IOException, InterruptedException {
        Path src = dir.resolve("probe.c");
        Path exe = dir.resolve("probe");
        Files.writeString(src, PROBE);
        run(dir, "gcc", "-O0", "-o", exe.toString(), src.toString());
        String out = run(dir, exe.toString());
        Map<String, Long> values = new HashMap<>();
        for (String line : out.split("\n")) {
            String[] kv = line.split("=");
            values.put(kv[0], Long.parseLong(kv[1].trim()));
        }
        assertEquals(16, values.size(), out);
        return values;
    }

    static String run(Path dir, String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", cmd) + " failed:\n" + out);
        }
        return out;
    }

}
