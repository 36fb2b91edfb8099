package org.sysframe.bench;

import org.junit.jupiter.api.Test;
import org.sysframe.unix.SyscallCounts;

import java.util.List;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The server side of a measurement covers every event loop: counts and CPU summed over loops. */
class ServerSampleTest {
    static ServerSample loop(long sends, SyscallCounts kernel, long cpuNs, int cpu) {
        return new ServerSample(SyscallCounts.of(sends, sends, 0, 0, 0, 0, sends), kernel,
                new ThreadCpu(cpuNs, 0, 0, 1, 0), new TreeSet<>(List.of(cpu)));
    }

    @Test
    void loopsAreSummed() {
        ServerSample a = loop(100, SyscallCounts.of(100, 100, 0, 0, 0, 0, 100), 1000, 0);
        ServerSample b = loop(30, SyscallCounts.of(30, 30, 0, 0, 0, 0, 30), 500, 1);
        ServerSample c = loop(7, SyscallCounts.of(7, 7, 0, 0, 0, 0, 7), 250, 1);
        ServerSample sum = ServerSample.sum(List.of(a, b, c));
        assertEquals(SyscallCounts.of(137, 137, 0, 0, 0, 0, 137), sum.library());
        assertEquals(SyscallCounts.of(137, 137, 0, 0, 0, 0, 137), sum.kernel());
        assertEquals(new ThreadCpu(1750, 0, 0, 3, 0), sum.cpu());
        assertEquals(List.of(0, 1), List.copyOf(sum.cpus()));

        ServerSample later = ServerSample.sum(List.of(loop(150, SyscallCounts.of(150, 150, 0, 0, 0, 0, 150), 2000, 1),
                b, loop(9, SyscallCounts.of(9, 9, 0, 0, 0, 0, 9), 300, 0)));
        ServerSample d = later.minus(sum);
        assertEquals(SyscallCounts.of(52, 52, 0, 0, 0, 0, 52), d.library());
        assertEquals(d.library(), d.kernel());
        assertEquals(1050, d.cpu().cpuNanos());
    }

    @Test
    void oneLoopWithoutAKernelCounterLeavesTheKernelCountOut() {
        ServerSample sum = ServerSample.sum(List.of(loop(10, SyscallCounts.of(10, 10, 0, 0, 0, 0, 10), 1, 0), loop(5, null, 1, 1)));
        assertEquals(SyscallCounts.of(15, 15, 0, 0, 0, 0, 15), sum.library());
        assertNull(sum.kernel());
        assertNull(sum.minus(sum).kernel());
    }

    @Test
    void theCpusThreadsRanOnAreNamed() {
        assertEquals("client cpu 0,1; server cpu 1", ClientThreadsProbe.cpus(new TreeSet<>(List.of(1, 0, -1)), new TreeSet<>(List.of(1))));
        assertEquals("client cpu ?; server cpu ?", ClientThreadsProbe.cpus(new TreeSet<>(), null));
    }
}
