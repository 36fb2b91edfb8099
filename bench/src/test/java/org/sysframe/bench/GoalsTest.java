package org.sysframe.bench;

import org.sysframe.transport.Backend;

import org.junit.jupiter.api.Test;
import org.sysframe.unix.SyscallCounts;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The goals table evaluated on known runs: met, not settled and missed, and the computed explanation. */
class GoalsTest {
    static final Goal AT_LEAST = new Goal("+10 %", "t", "a", "b", 32, Goal.Metric.CALLS_RATIO, true, 1.10);
    static final Goal AT_MOST = new Goal("15 % less CPU", "t", "a", "b", 32, Goal.Metric.CPU_RATIO, false, 0.85);

    @Test
    void metOnlyWhenTheWholeSpreadClearsTheThreshold() {
        assertEquals(Goal.Status.MET, AT_LEAST.judge(Spread.of(1.10, 1.15, 1.30)));
        assertEquals(Goal.Status.NOT_SETTLED, AT_LEAST.judge(Spread.of(1.09, 1.15, 1.30)));
        assertEquals(Goal.Status.NOT_SETTLED, AT_LEAST.judge(Spread.of(0.90, 1.00, 1.10)));
        assertEquals(Goal.Status.MISSED, AT_LEAST.judge(Spread.of(0.90, 1.00, 1.0999)));

        assertEquals(Goal.Status.MET, AT_MOST.judge(Spread.of(0.60, 0.70, 0.85)));
        assertEquals(Goal.Status.NOT_SETTLED, AT_MOST.judge(Spread.of(0.60, 0.70, 0.86)));
        assertEquals(Goal.Status.MISSED, AT_MOST.judge(Spread.of(0.851, 0.90, 1.0)));
        assertEquals(">= 1.10x", AT_LEAST.want());
        assertEquals("<= 0.85x", AT_MOST.want());
    }

    /**
     * Cell a against b, three rounds: a makes aCalls[i] calls in 0.1 s, b 1000; a's CPU per call is
     * 10 us client (4 us of it system time) + 8 us server (6 us system), b's 12 + 9 us (5 + 7 system).
     */
    static BenchTable table(long... aCalls) {
        List<Measurement> runs = new ArrayList<>();
        for (int i = 0; i < aCalls.length; i++) {
            runs.add(run("a", i + 1, aCalls[i], 10, 4, 8, 6, 1));
            runs.add(run("b", i + 1, 1000, 12, 5, 9, 7, 2));
        }
        List<Cell> cells = List.of(new Cell("a", 32, "", 1000, 0, null), new Cell("b", 32, "", 1000, 0, null));
        return BenchTable.of("t", "t", "pairing", "b", false, aCalls.length, cells, runs, List.of());
    }

    static Measurement run(String cell, int round, long calls, long clientUs, long clientSysUs, long serverUs, long serverSysUs,
                           int clientSends) {
        SyscallCounts client = SyscallCounts.builder().sendto(clientSends * calls).recvfrom(calls).build();
        SyscallCounts server = SyscallCounts.builder().sendto(calls).recvfrom(calls).epollWait(calls).build();
        return new Measurement(cell, 32, round, 1, calls, 0.1, 1, 1, 1, 1, 1, client, client, server, server,
                new ThreadCpu(clientUs * 1000 * calls, 0, clientSysUs * calls, 0, 0),
                new ThreadCpu(serverUs * 1000 * calls, 0, serverSysUs * calls, 0, 0), "client cpu 0; server cpu 1");
    }

    @Test
    void aGoalIsEvaluatedRoundByRoundOnTheTable() {
        GoalVerdict met = GoalVerdict.of(AT_LEAST, table(1150, 1200, 1250));
        assertEquals(Goal.Status.MET, met.status());
        assertEquals(1.20, met.value().median(), 1e-9);
        assertEquals(1.15, met.value().min(), 1e-9);
        assertNull(met.explanation());
        assertEquals("goal +10 % (a vs b at 32 B): calls/s 1.200x [1.150-1.250] (want >= 1.10x): met", met.text());

        assertEquals(Goal.Status.NOT_SETTLED, GoalVerdict.of(AT_LEAST, table(1050, 1200, 1250)).status());
        assertEquals(Goal.Status.MISSED, GoalVerdict.of(AT_LEAST, table(1000, 1050, 1090)).status());
        // CPU per call: a 18 us, b 21 us every round: 0.857, above 0.85.
        GoalVerdict cpu = GoalVerdict.of(AT_MOST, table(1000, 1000, 1000));
        assertEquals(Goal.Status.MISSED, cpu.status());
        assertEquals(18.0 / 21.0, cpu.value().median(), 1e-9);
    }

    @Test
    void aMissedGoalIsExplainedWithThisRunsFigures() {
        GoalVerdict v = GoalVerdict.of(AT_LEAST, table(1000, 1050, 1090));
        assertEquals("goal +10 % (a vs b at 32 B): calls/s 1.050x [1.000-1.090] (want >= 1.10x): MISSED", v.line());
        assertEquals("why, from this run: per round 1.000 1.050 1.090; the spread [1.000-1.090] lies wholly below 1.10. "
                + "a: round trip 95.2 us, CPU per call 10.00 us client + 8.00 us server (medians), 56 % of it in the kernel"
                + " (system time over all rounds, 10 ms ticks); syscalls per call: client 1 sendto + 1 recvfrom, server 1 sendto + 1 recvfrom + 1 epoll_wait. "
                + "b: round trip 100.0 us, CPU per call 12.00 us client + 9.00 us server (medians), 57 % of it in the kernel"
                + " (system time over all rounds, 10 ms ticks); syscalls per call: client 2 sendto + 1 recvfrom, server 1 sendto + 1 recvfrom + 1 epoll_wait. "
                + "Difference a - b: -3.00 us CPU per call, -2.00 us of it in the kernel, -1.00 us in user space.", v.explanation());
        // Other figures, other text: nothing in it is canned.
        GoalVerdict w = GoalVerdict.of(AT_LEAST, table(1040, 1060, 1120));
        assertEquals(Goal.Status.NOT_SETTLED, w.status());
        assertTrue(w.explanation().startsWith("why, from this run: per round 1.040 1.060 1.120; the spread [1.040-1.120] straddles 1.10. "
                + "a: round trip 94.3 us,"), w.explanation());
        assertTrue(w.text().endsWith("NOT SETTLED\n  " + w.explanation()), w.text());
    }

    @Test
    void goalsWhoseTableOrCellsAreAbsentAreLeftOut() {
        Goal other = new Goal("x", "t", "a", "c", 32, Goal.Metric.CALLS_RATIO, true, 1.0);
        Goal elsewhere = new Goal("y", "u", "a", "b", 32, Goal.Metric.CALLS_RATIO, true, 1.0);
        List<GoalVerdict> v = Goals.evaluate(List.of(AT_LEAST, other, elsewhere), List.of(table(1150, 1200, 1250)));
        assertEquals(1, v.size());
        assertEquals(AT_LEAST, v.get(0).goal());
    }

    @Test
    void theDeclaredTableNamesCellsTheBenchHas() {
        List<String> pairings = Pairing.standard().stream().map(Pairing::name).toList();
        List<String> peers = List.of(PeerTable.REFERENCE, "jdk-gather", "jdk-2write", "jnr", "c-split", "c-sendmsg", PeerTable.C_LEAN);
        assertFalse(Goals.TABLE.isEmpty());
        for (Goal g : Goals.TABLE) {
            List<String> names = switch (g.table()) {
                case PairingTable.NAME -> pairings;
                case PeerTable.NAME -> peers;
                case WaitTable.NAME -> WaitTable.TELLING.stream()
                        .flatMap(w -> java.util.stream.Stream.of(WaitTable.name(w.client(), w.server(), w.sameCore()),
                                WaitTable.C_PREFIX + WaitTable.name(w.client(), w.server(), w.sameCore()),
                                WaitTable.C_LEAN_PREFIX + WaitTable.name(w.client(), w.server(), w.sameCore())))
                        .toList();
                case DepthTable.NAME -> java.util.Arrays.stream(DepthTable.DEPTHS)
                        .boxed().flatMap(d -> java.util.stream.Stream.of(DepthTable.name(d), DepthTable.C_PREFIX + DepthTable.name(d),
                                DepthTable.C_LEAN_PREFIX + DepthTable.name(d)))
                        .toList();
                case BackendTable.NAME -> List.of(BackendTable.BASELINE, BackendTable.name(Backend.IO_URING, Backend.IO_URING),
                        BackendTable.name(Backend.IO_URING, Backend.EPOLL), BackendTable.name(Backend.EPOLL, Backend.IO_URING));
                case ConnectionsTable.NAME -> ConnectionsTable.SERVERS.stream()
                        .flatMap(c -> java.util.stream.Stream.of(c.cell(), ConnectionsTable.C_LEAN_PREFIX + c.cell())).toList();
                default -> List.of(LoopsTable.cellName(1), LoopsTable.cellName(2));
            };
            assertTrue(names.contains(g.subject()) && names.contains(g.versus()), g.toString());
            assertNotNull(g.metric());
        }
    }
}
