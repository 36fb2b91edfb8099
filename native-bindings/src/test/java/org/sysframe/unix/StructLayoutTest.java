package org.sysframe.unix;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

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
            #include <sys/stat.h>
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
                P("stat", sizeof(struct stat));
                P("stat.st_dev", offsetof(struct stat, st_dev));
                P("stat.st_ino", offsetof(struct stat, st_ino));
                P("stat.st_mode", offsetof(struct stat, st_mode));
                P("stat.st_uid", offsetof(struct stat, st_uid));
                P("stat.st_ctime", offsetof(struct stat, st_ctim.tv_sec));
                P("stat.st_ctime_nsec", offsetof(struct stat, st_ctim.tv_nsec));
                return 0;
            }
            """;

    @Test
    void layoutsMatchWhatGccSays(@TempDir Path dir) throws Exception {
        Map<String, Long> c = GccLayouts.of(dir, PROBE, 23);
        GccLayouts.assertStruct(c, "sockaddr_un", SockaddrUn.LAYOUT, "sun_path");
        GccLayouts.assertStruct(c, "iovec", IovArray.IOVEC, "iov_len");
        GccLayouts.assertStruct(c, "msghdr", IovArray.MSGHDR,
                "msg_namelen", "msg_iov", "msg_iovlen", "msg_control", "msg_controllen", "msg_flags");
        GccLayouts.assertStruct(c, "ucred", PeerCredentials.UCRED, "uid", "gid");
        GccLayouts.assertStruct(c, "epoll_event", Epoll.EVENT, "data");
        GccLayouts.assertStruct(c, "stat", FileStat.LAYOUT, "st_dev", "st_ino", "st_mode", "st_uid", "st_ctime",
                "st_ctime_nsec");
        // The known x86-64 values, so a wrong probe cannot pass silently.
        assertEquals(110, SockaddrUn.LAYOUT.byteSize());
        assertEquals(56, IovArray.MSGHDR.byteSize());
        assertEquals(12, Epoll.EVENT.byteSize());
        assertEquals(144, FileStat.LAYOUT.byteSize());
        assertEquals(4, Epoll.EVENT.byteOffset(groupElement("data")));
    }
}
