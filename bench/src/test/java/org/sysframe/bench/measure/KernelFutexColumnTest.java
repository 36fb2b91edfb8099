package org.sysframe.bench.measure;

import org.junit.jupiter.api.Test;
import org.sysframe.unix.SyscallCounts;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The k=l column: yes only when every count, futex too, is the kernel's exactly; and the p50 goal's figure. */
class KernelFutexColumnTest {
    static final ThreadCpu CPU = new ThreadCpu(1_000_000, 1000, 0, 0, 0);

    static Measurement run(int round, SyscallCounts clientLib, SyscallCounts clientKernel, SyscallCounts serverLib,
            SyscallCounts serverKernel) {
        return new Measurement("shm", 32, round, 1, 1000, 0.01, 900, 1000, 2000, 3000, 4000, clientLib, clientKernel,
                serverLib, serverKernel, CPU, CPU, "client cpu 1; server cpu 0");
    }

    static SyscallCounts futex(long n) { return SyscallCounts.builder().futex(n).build(); }

    @Test
    void equalCountsAreYesAndAnyDifferenceIsNoFutexToo() {
        Measurement same = run(1, futex(5), futex(5), futex(4), futex(4));
        assertTrue(same.kernelAgrees());
        assertEquals("yes", CellSummary.of("shm", 32, List.of(same), List.of(same)).kernelColumn());

        // The kernel counts shared futex calls only, as the library makes them: any difference is a counting bug.
        Measurement above = run(1, futex(5), futex(6), SyscallCounts.ZERO, SyscallCounts.ZERO);
        Measurement below = run(2, futex(5), futex(4), SyscallCounts.ZERO, SyscallCounts.ZERO);
        Measurement server = run(3, futex(5), futex(5), futex(4), futex(5));
        Measurement other = run(4, futex(5), SyscallCounts.builder().futex(5).recvfrom(1).build(), SyscallCounts.ZERO,
                SyscallCounts.ZERO);
        for (Measurement m : List.of(above, below, server, other)) {
            assertFalse(m.kernelAgrees());
            assertEquals("NO", CellSummary.of("shm", 32, List.of(m), List.of(m)).kernelColumn());
        }
        // One round that differs makes the row NO.
        assertEquals("NO", CellSummary.of("shm", 32, List.of(same, above), List.of(same, above)).kernelColumn());
        // No kernel counts: n/a.
        Measurement none = run(1, futex(5), null, SyscallCounts.ZERO, SyscallCounts.ZERO);
        assertEquals("n/a", CellSummary.of("shm", 32, List.of(none), List.of(none)).kernelColumn());
    }

    @Test
    void theP50GoalIsAnAbsoluteFigureInMicroseconds() {
        Goal g = new Goal("p50 at most 1 us", "wait", "shm", "shm", 32, Goal.Metric.P50_MICROS, false, 1.0);
        assertFalse(Goal.Metric.P50_MICROS.isRatio());
        assertEquals("<= 1.00 us", g.want());
        List<Measurement> runs = new ArrayList<>();
        for (int r = 1; r <= 8; r++) runs.add(run(r, futex(0), futex(0), SyscallCounts.ZERO, SyscallCounts.ZERO));
        GoalVerdict v = GoalVerdict.of(g, runs);
        assertEquals(0.9, v.value().median(), 1e-12);
        assertEquals(Goal.Status.MET, v.status());
        assertEquals("goal p50 at most 1 us (shm at 32 B): p50 latency 0.900 us [0.900-0.900], 8 rounds (want <= 1.00 "
                + "us): met", v.line());
    }
}
