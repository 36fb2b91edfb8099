package org.sysframe.unix;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** SyscallCounts are built by name (builder, map) and print by kernel name. */
class SyscallCountsTest {
    @Test
    void builderNamesEachKindAndEachNamedKindIsTheOneCounted() {
        SyscallCounts byName = SyscallCounts.builder().sendto(1000).recvfrom(1000).epollWait(1000).build();
        assertEquals(1000, byName.get(SyscallKind.SENDTO));
        assertEquals(1000, byName.get(SyscallKind.RECVFROM));
        assertEquals(1000, byName.get(SyscallKind.EPOLL_WAIT));
        assertEquals(3000, byName.total());
        assertEquals("sendto=1000 recvfrom=1000 epoll_wait=1000", byName.toString());
        SyscallCounts each = SyscallCounts.builder().sendmsg(1).recvmsg(2).writev(3).readv(4).schedYield(7).read(5)
                .write(6).build();
        assertEquals("sendmsg=1 recvmsg=2 writev=3 readv=4 sched_yield=7 read=5 write=6", each.toString());
        assertEquals(SyscallCounts.ZERO, SyscallCounts.builder().build());
    }

    @Test
    void mapFactoryLeavesKindsNotNamedAtZero() {
        assertEquals(SyscallCounts.builder().recvfrom(7).writev(9).build(),
                SyscallCounts.of(Map.of(SyscallKind.RECVFROM, 7L, SyscallKind.WRITEV, 9L)));
    }

    @Test
    void withoutSetsOneKindToZeroAndLeavesTheRest() {
        SyscallCounts c = SyscallCounts.builder().sendto(2).recvfrom(2).schedYield(3).build();
        assertEquals(SyscallCounts.builder().sendto(2).recvfrom(2).build(), c.without(SyscallKind.SCHED_YIELD));
        assertEquals(c, c.without(SyscallKind.FUTEX));
        assertEquals(3, c.get(SyscallKind.SCHED_YIELD), "this stays as it was");
    }
}
