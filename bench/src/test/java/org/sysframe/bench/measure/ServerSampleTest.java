package org.sysframe.bench.measure;

import org.junit.jupiter.api.Test;
import org.sysframe.bench.peer.ClientThreadsProbe;
import org.sysframe.unix.SyscallCounts;

import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The server side of a measurement covers every event loop: counts and CPU summed over loops. */
class ServerSampleTest {
    static ServerSample loop(long sends, SyscallCounts kernel, long cpuNs, int cpu) {
        return new ServerSample(SyscallCounts.builder().sendto(sends).recvfrom(sends).epollWait(sends).build(), kernel,
                new ThreadCpu(cpuNs, 0, 0, 1, 0), new TreeSet<>(List.of(cpu)));
    }

    @Test
    void loopsAreSummed() {
        ServerSample a = loop(100, SyscallCounts.builder().sendto(100).recvfrom(100).epollWait(100).build(), 1000, 0);
        ServerSample b = loop(30, SyscallCounts.builder().sendto(30).recvfrom(30).epollWait(30).build(), 500, 1);
        ServerSample c = loop(7, SyscallCounts.builder().sendto(7).recvfrom(7).epollWait(7).build(), 250, 1);
        ServerSample sum = ServerSample.sum(List.of(a, b, c));
        assertEquals(SyscallCounts.builder().sendto(137).recvfrom(137).epollWait(137).build(), sum.library());
        assertEquals(SyscallCounts.builder().sendto(137).recvfrom(137).epollWait(137).build(), sum.kernel());
        assertEquals(new ThreadCpu(1750, 0, 0, 3, 0), sum.cpu());
        assertEquals(List.of(0, 1), List.copyOf(sum.cpus()));

        ServerSample later = ServerSample.sum(List.of(loop(150,
                SyscallCounts.builder().sendto(150).recvfrom(150).epollWait(150).build(), 2000, 1),
                b, loop(9, SyscallCounts.builder().sendto(9).recvfrom(9).epollWait(9).build(), 300, 0)));
        ServerSample d = later.minus(sum);
        assertEquals(SyscallCounts.builder().sendto(52).recvfrom(52).epollWait(52).build(), d.library());
        assertEquals(d.library(), d.kernel());
        assertEquals(1050, d.cpu().cpuNanos());
    }

    @Test
    void oneLoopWithoutAKernelCounterLeavesTheKernelCountOut() {
        ServerSample sum = ServerSample.sum(List.of(loop(10,
                SyscallCounts.builder().sendto(10).recvfrom(10).epollWait(10).build(), 1, 0), loop(5, null, 1, 1)));
        assertEquals(SyscallCounts.builder().sendto(15).recvfrom(15).epollWait(15).build(), sum.library());
        assertNull(sum.kernel());
        assertNull(sum.minus(sum).kernel());
    }

    @Test
    void theCpusThreadsRanOnAreNamed() {
        assertEquals("client cpu 0,1; server cpu 1",
                ClientThreadsProbe.cpus(new TreeSet<>(List.of(1, 0, -1)), new TreeSet<>(List.of(1))));
        // A server whose CPU is not known (another process, its loop threads not found): the field is left out, not
        // "?".
        assertEquals("client cpu ?", ClientThreadsProbe.cpus(new TreeSet<>(), null));
        assertEquals("client cpu 1", ClientThreadsProbe.cpus(new TreeSet<>(List.of(1)), new TreeSet<>()));
        assertEquals("client cpu 1; server cpu unknown (why)",
                ClientThreadsProbe.cpus(new TreeSet<>(List.of(1)), null, "why"));
    }

    @Test
    void theServerCpusOfAServerInAnotherProcessAreItsLoopThreads() throws Exception {
        // This JVM as "another process": a thread named like an event loop (its name reaches /proc before it runs) is
        // found.
        CountDownLatch running = new CountDownLatch(1);
        Thread loop = new Thread(() -> {
            running.countDown();
            LockSupport.park();
        }, "sysframe-server-0 test");
        loop.setDaemon(true);
        loop.start();
        try {
            running.await();
            SortedSet<Integer> cpus = ThreadCpu.loopCpus(ProcessHandle.current().pid());
            assertFalse(cpus.isEmpty(), "the loop thread's CPU");
            assertTrue(cpus.first() >= 0, cpus.toString());
        } finally {
            LockSupport.unpark(loop);
        }
        assertEquals(new TreeSet<>(), ThreadCpu.loopCpus(Long.MAX_VALUE), "no such process: none known");
    }
}
