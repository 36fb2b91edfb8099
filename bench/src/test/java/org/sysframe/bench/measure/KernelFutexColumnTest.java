package org.sysframe.bench.measure;

import org.junit.jupiter.api.Test;
import org.sysframe.unix.SyscallCounts;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The k=l column and its note on known counts: exact, above by futex only (the JVM's own), or not equal. */
class KernelFutexColumnTest {
    static final ThreadCpu CPU = new ThreadCpu(1_000_000, 1000, 0, 0, 0);

    static Measurement run(int round, SyscallCounts clientLib, SyscallCounts clientKernel, SyscallCounts serverLib,
            SyscallCounts serverKernel) {
        return new Measurement("shm", 32, round, 1, 1000, 0.01, 900, 1000, 2000, 3000, 4000, clientLib, clientKernel,
                serverLib, serverKernel, CPU, CPU, "client cpu 1; server cpu 0");
    }

    static SyscallCounts futex(long n) { return SyscallCounts.builder().futex(n).build(); }

    @Test
    void onlyTheFutexCountHigherInTheKernelIsShownWithBothCountsAndWhy() {
        Measurement a = run(1, futex(2000), futex(2004), futex(1998), futex(1998));
        Measurement b = run(2, futex(1990), futex(1990), futex(1990), futex(1993));
        assertFalse(a.kernelAgrees());
        assertTrue(a.kernelAboveByJvmFutex());
        assertTrue(b.kernelAboveByJvmFutex());
        CellSummary c = CellSummary.of("shm", 32, List.of(a, b), List.of(a, b));
        assertEquals("k>=l", c.kernelColumn());
        assertEquals("futex calls in 2000 calls: client library 3990, kernel 3994, server library 3988, kernel 3991;"
                + " kernel >= library: the JVM's own futex calls", c.kernelFutexNote());
        BenchTable t = BenchTable.of("wait", "t", "wait", "shm", false, 2,
                List.of(new Cell("shm", 32, "", 1000, 100, null)), List.of(a, b), List.of());
        assertEquals(
                List.of("shm (32 B), k>=l: futex calls in 2000 calls: client library 3990, kernel 3994, server library "
                + "3988, kernel 3991;"
                + " kernel >= library: the JVM's own futex calls"), t.notes());
    }

    @Test
    void equalCountsAreYesAndAnyOtherDifferenceIsNo() {
        Measurement same = run(1, futex(5), futex(5), SyscallCounts.ZERO, SyscallCounts.ZERO);
        assertTrue(same.kernelAgrees());
        assertFalse(same.kernelAboveByJvmFutex());
        CellSummary yes = CellSummary.of("shm", 32, List.of(same), List.of(same));
        assertEquals("yes", yes.kernelColumn());
        assertNull(yes.kernelFutexNote());

        // Fewer futex calls in the kernel than the library counted: a counting bug, not the JVM.
        Measurement below = run(1, futex(5), futex(4), SyscallCounts.ZERO, SyscallCounts.ZERO);
        // Another kind differing is never excused by futex.
        Measurement other = run(2, futex(5), SyscallCounts.builder().futex(6).recvfrom(1).build(), SyscallCounts.ZERO,
                SyscallCounts.ZERO);
        for (Measurement m : List.of(below, other)) {
            assertFalse(m.kernelAboveByJvmFutex());
            CellSummary no = CellSummary.of("shm", 32, List.of(m), List.of(m));
            assertEquals("NO", no.kernelColumn());
            assertNull(no.kernelFutexNote());
        }
        // One round above by futex, one with another difference: NO for the row.
        Measurement above = run(1, futex(5), futex(6), SyscallCounts.ZERO, SyscallCounts.ZERO);
        assertEquals("NO", CellSummary.of("shm", 32, List.of(above, other), List.of(above, other)).kernelColumn());
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
