package org.sysframe.unix;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** SyscallCounts built by name (builder, map) equal the positional form, and print by kernel name. */
class SyscallCountsTest {
    @Test
    void builderNamesEachKindAndEqualsThePositionalForm() {
        SyscallCounts byName = SyscallCounts.builder().sendto(1000).recvfrom(1000).epollWait(1000).build();
        assertEquals(SyscallCounts.of(1000, 1000, 0, 0, 0, 0, 1000), byName);
        assertEquals("sendto=1000 recvfrom=1000 epoll_wait=1000", byName.toString());
        assertEquals(SyscallCounts.of(0, 0, 1, 2, 3, 4, 0, 5, 6),
                SyscallCounts.builder().sendmsg(1).recvmsg(2).writev(3).readv(4).read(5).write(6).build());
        assertEquals(SyscallCounts.ZERO, SyscallCounts.builder().build());
    }

    @Test
    void mapFactoryLeavesKindsNotNamedAtZero() {
        assertEquals(SyscallCounts.builder().recvfrom(7).writev(9).build(),
                SyscallCounts.of(Map.of(SyscallKind.RECVFROM, 7L, SyscallKind.WRITEV, 9L)));
    }
}
