package org.sysframe.bench.table;

import org.junit.jupiter.api.Assertions;
import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Goal;
import org.sysframe.bench.measure.GoalVerdict;
import org.sysframe.bench.measure.Interval;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.ThreadCpu;

import org.junit.jupiter.api.Test;
import org.sysframe.transport.Backend;
import org.sysframe.unix.SyscallCounts;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The goals table evaluated on known runs: met, not settled and missed, and the computed explanation. */
class GoalsTest {
    static final Goal AT_LEAST = new Goal("+10 %", "t", "a", "b", 32, Goal.Metric.CALLS_RATIO, true, 1.10);
    static final Goal AT_MOST = new Goal("15 % less CPU", "t", "a", "b", 32, Goal.Metric.CPU_RATIO, false, 0.85);

    static Interval ci(double estimate, double lo, double hi) { return new Interval(estimate, lo, hi, 10, true); }

    @Test
    void metOnlyWhenTheWholeIntervalClearsTheThreshold() {
        assertEquals(Goal.Status.MET, AT_LEAST.judge(ci(1.15, 1.10, 1.30)));
        assertEquals(Goal.Status.NOT_SETTLED, AT_LEAST.judge(ci(1.15, 1.09, 1.30)));
        assertEquals(Goal.Status.NOT_SETTLED, AT_LEAST.judge(ci(1.00, 0.90, 1.10)));
        assertEquals(Goal.Status.MISSED, AT_LEAST.judge(ci(1.00, 0.90, 1.0999)));

        assertEquals(Goal.Status.MET, AT_MOST.judge(ci(0.70, 0.60, 0.85)));
        assertEquals(Goal.Status.NOT_SETTLED, AT_MOST.judge(ci(0.70, 0.60, 0.86)));
        assertEquals(Goal.Status.MISSED, AT_MOST.judge(ci(0.90, 0.851, 1.0)));
        assertEquals(Goal.Status.NOT_SETTLED, AT_LEAST.judge(new Interval(Double.NaN, Double.NaN, Double.NaN, 3,
                true)));
        assertEquals(">= 1.10x", AT_LEAST.want());
        assertEquals("<= 0.85x", AT_MOST.want());
    }

    static final Goal LEVEL = Goal.level("level with c", "t", "a", "b", 32, Goal.Metric.CALLS_RATIO, 0.03);

    @Test
    void aLevelGoalIsLevelInsideItsBandMetAboveItAndMissedBelow() {
        assertEquals(Goal.Status.LEVEL, LEVEL.judge(ci(1.00, 0.97, 1.03)));
        assertEquals(Goal.Status.LEVEL, LEVEL.judge(ci(0.99, 0.98, 1.01)));
        assertEquals(Goal.Status.NOT_SETTLED, LEVEL.judge(ci(1.10, 0.98, 1.20)),
                "level or better: which is not known yet");
        assertEquals(Goal.Status.MET, LEVEL.judge(ci(1.30, 1.20, 1.40)));
        assertEquals(Goal.Status.NOT_SETTLED, LEVEL.judge(ci(1.00, 0.96, 1.02)));
        assertEquals(Goal.Status.MISSED, LEVEL.judge(ci(0.90, 0.85, 0.969)));
        assertEquals("level 0.97-1.03x, above: met", LEVEL.want());
        assertEquals(0.97, LEVEL.threshold(), 1e-12);
        IllegalArgumentException e = Assertions.assertThrows(IllegalArgumentException.class,
                () -> new Goal("x", "t", "a", "b", 32, Goal.Metric.CALLS_RATIO, false, 0.97, 0.03));
        assertEquals("a level goal is at least 1 - margin: use Goal.level", e.getMessage());
    }

    @Test
    void theRoundsAnUnsettledGoalNeedsFollowFromTheWidthAndTheDistance() {
        // log-width: half-width ln(1.2/1.0)/2 ~ 0.0912 around e^0.0912 ~ 1.0954, 10 rounds; the
        // estimate lies ln(1.0954/1.05) = 0.0423 from the threshold: 10 x (0.0912 / 0.0423)^2 = 47 rounds.
        Goal g = new Goal("+5 %", "t", "a", "b", 32, Goal.Metric.CALLS_RATIO, true, 1.05);
        Interval i = new Interval(Math.sqrt(1.2), 1.0, 1.2, 10, true);
        assertEquals(Goal.Status.NOT_SETTLED, g.judge(i));
        assertEquals(47, g.roundsNeeded(i));
        assertEquals(Integer.MAX_VALUE, g.roundsNeeded(new Interval(1.05, 1.0, 1.1, 10, true)),
                "an estimate on the bound never settles");
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

    static Measurement run(String cell, int round, long calls, long clientUs, long clientSysUs, long serverUs,
            long serverSysUs, int clientSends) {
        SyscallCounts client = SyscallCounts.builder().sendto(clientSends * calls).recvfrom(calls).build();
        SyscallCounts server = SyscallCounts.builder().sendto(calls).recvfrom(calls).epollWait(calls).build();
        return new Measurement(cell, 32, round, 1, calls, 0.1, 1, 1, 1, 1, 1, client, client, server, server,
                new ThreadCpu(clientUs * 1000 * calls, 0, clientSysUs * calls, 0, 0),
                new ThreadCpu(serverUs * 1000 * calls, 0, serverSysUs * calls, 0, 0), "client cpu 0; server cpu 1");
    }

    @Test
    void theWaitTablesFloorNoteSplitsTheChannelsGapToCIntoTheLanguagesTheRingsAndTheLibrarysPartsFromTheSameRounds() {
        List<Measurement> runs = new ArrayList<>();
        for (int r = 1; r <= 8; r++) {
            // The machine doubles every row's speed in the even rounds: paired by round, each ratio stays exact.
            long c = r % 2 == 1 ? 8000 : 16000;
            runs.add(run(WaitTable.C_SHM, r, c, 1, 0, 1, 0, 0));
            runs.add(run(WaitTable.JAVA_SHM, r, c / 2, 1, 0, 1, 0, 0));
            runs.add(run(WaitTable.JAVA_RING_SHM, r, c / 5, 1, 0, 1, 0, 0));
            runs.add(run(WaitTable.SHM_PREFIX + WaitTable.name("spin", "spin", false), r, c / 8, 1, 0, 1, 0, 0));
        }
        assertEquals("32 B: the C ping-pong's loop in Java runs at 0.500x [0.500-0.500] of the C one; the Java loop"
                + " through rings at 0.400x [0.400-0.400] of the one through fixed slots; the shared-memory channel at"
                + " 0.625x [0.625-0.625] of the Java ring loop (calls/s, estimate [95 % interval] over the rounds)",
                        WaitTable.floorNote(runs, 32));
        // Without either Java row (or the C one: the program not built) there is no note.
        assertNull(WaitTable.floorNote(runs.stream().filter(m -> !m.cell().equals(WaitTable.JAVA_SHM)).toList(), 32));
        assertNull(WaitTable.floorNote(runs.stream().filter(m -> !m.cell().equals(WaitTable.JAVA_RING_SHM)).toList(),
                32));
        assertNull(WaitTable.floorNote(runs.stream().filter(m -> !m.cell().equals(WaitTable.C_SHM)).toList(), 32));
        assertNull(WaitTable.floorNote(runs, 1024));
    }

    @Test
    void theWaitTablesSocketNoteSplitsTheSpinningSocketsGapToCLeanIntoTheLanguagesAndTheLibrarysParts() {
        List<Measurement> runs = new ArrayList<>();
        String spin = WaitTable.name("spin", "spin", false);
        for (int r = 1; r <= 8; r++) {
            long c = r % 2 == 1 ? 20000 : 40000; // paired by round: each ratio stays exact
            runs.add(run(WaitTable.C_LEAN_PREFIX + spin, r, c, 1, 0, 1, 0, 1));
            runs.add(run(WaitTable.C_PREFIX + spin, r, c * 9 / 10, 1, 0, 1, 0, 1));
            runs.add(run(WaitTable.JAVA_LEAN, r, c * 4 / 5, 1, 0, 1, 0, 1));
            runs.add(run(spin, r, c / 2, 1, 0, 1, 0, 1));
        }
        assertEquals("32 B, socket spin/spin: the C lean client's loop in Java runs at 0.800x [0.800-0.800] of the C"
                + " one; sysframe's client (timing every call, as its row does) at 0.625x [0.625-0.625] of the Java"
                + " loop; the C client timing every call at 0.900x [0.900-0.900] of C lean (calls/s, estimate [95 %"
                + " interval] over the rounds)", WaitTable.socketFloorNote(runs, 32));
        // Without the Java loop's row or a C one (the program not built) there is no note.
        assertNull(WaitTable.socketFloorNote(runs.stream().filter(m -> !m.cell().equals(WaitTable.JAVA_LEAN))
                .toList(), 32));
        assertNull(WaitTable.socketFloorNote(runs.stream().filter(m -> !m.cell().startsWith(WaitTable.C_LEAN_PREFIX))
                .toList(), 32));
        assertNull(WaitTable.socketFloorNote(runs.stream().filter(m -> !m.cell().equals(WaitTable.C_PREFIX + spin))
                .toList(), 32));
    }

    @Test
    void theDepthTablesNoteSplitsThePipelinedClientsGapToCLeanIntoTheLanguagesAndTheLibrarysParts() {
        List<Measurement> runs = new ArrayList<>();
        String depth = DepthTable.name(DepthTable.SPINNING_DEPTH);
        for (int r = 1; r <= 8; r++) {
            long c = r % 2 == 1 ? 64_000 : 128_000; // paired by round: each ratio stays exact
            runs.add(run(DepthTable.C_LEAN_PREFIX + depth, r, c, 1, 0, 1, 0, 1));
            runs.add(run(DepthTable.C_PREFIX + depth, r, c * 3 / 4, 1, 0, 1, 0, 1));
            runs.add(run(DepthTable.JAVA_LEAN_PREFIX + depth, r, c / 2, 1, 0, 1, 0, 1));
            runs.add(run(depth, r, c / 4, 1, 0, 1, 0, 1));
        }
        assertEquals("32 B, depth 64 across cores: the C lean client's loop in Java runs at 0.500x [0.500-0.500] of the"
                + " C one; sysframe's pipelined client at 0.500x [0.500-0.500] of the Java loop; the C client timing"
                + " every request at 0.750x [0.750-0.750] of C lean (calls/s, estimate [95 % interval] over the"
                + " rounds)",
                DepthTable.floorNote(runs, 32));
        // Without the Java loop's row or a C one (the program not built) there is no note; none at 1 KiB.
        for (String row : List.of(DepthTable.JAVA_LEAN_PREFIX + depth, DepthTable.C_LEAN_PREFIX + depth,
                DepthTable.C_PREFIX + depth)) {
            assertNull(DepthTable.floorNote(runs.stream().filter(m -> !m.cell().equals(row)).toList(), 32), row);
        }
        assertNull(DepthTable.floorNote(runs, 1024));
    }

    @Test
    void theWaitTablesCellsWhereBothSidesSpinAcrossCoresRunTenTimesTheCallsOfTheOthers() {
        assertEquals(60_000, WaitTable.socketCalls(new WaitTable.Setting("spin", "spin", false), false));
        assertEquals(60_000, WaitTable.socketCalls(new WaitTable.Setting("spin:50us", "spin", false), false));
        assertEquals(15_000, WaitTable.socketCalls(new WaitTable.Setting("spin", "spin", false), true));
        // a sleeping side, or both on one core: a call lasts a wake-up or a context switch
        assertEquals(6_000, WaitTable.socketCalls(new WaitTable.Setting("spin", "block", false), false));
        assertEquals(6_000, WaitTable.socketCalls(new WaitTable.Setting("block", "spin", false), false));
        assertEquals(6_000, WaitTable.socketCalls(new WaitTable.Setting("yield", "spin", false), false));
        assertEquals(6_000, WaitTable.socketCalls(new WaitTable.Setting("spin", "spin", true), false));
        assertEquals(1_500, WaitTable.socketCalls(new WaitTable.Setting("block", "block", false), true));
    }

    @Test
    void aGoalIsEvaluatedRoundByRoundOnTheTable() {
        GoalVerdict met = GoalVerdict.of(AT_LEAST, table(1150, 1200, 1250, 1180, 1220, 1160, 1240, 1210));
        assertEquals(Goal.Status.MET, met.status());
        assertEquals(1.205, met.value().median(), 1e-9);
        assertEquals(1.15, met.value().min(), 1e-9);
        assertEquals(8, met.ci().n());
        assertTrue(met.ci().lo() >= 1.15 && met.ci().hi() <= 1.25 && met.ci().lo() < met.ci().estimate(),
                met.ci().toString());
        assertNull(met.explanation());
        assertEquals("goal +10 % (a vs b at 32 B): calls/s " + met.figure() + " (want >= 1.10x): met", met.text());
        assertEquals(String.format(Locale.ROOT, "%.3fx [%.3f-%.3f], 8 rounds", met.ci().estimate(), met.ci().lo(),
                met.ci().hi()), met.figure());

        assertEquals(Goal.Status.MISSED, GoalVerdict.of(AT_LEAST,
                table(1000, 1050, 1090, 1020, 1060, 1040, 1010, 1070)).status());
        // CPU per call: a 18 us, b 21 us every round: 0.857, above 0.85; an interval of width 0.
        GoalVerdict cpu = GoalVerdict.of(AT_MOST, table(1000, 1000, 1000, 1000, 1000, 1000));
        assertEquals(Goal.Status.MISSED, cpu.status());
        assertEquals(18.0 / 21.0, cpu.ci().estimate(), 1e-9);
        assertEquals(18.0 / 21.0, cpu.ci().lo(), 1e-9);
        assertEquals(18.0 / 21.0, cpu.ci().hi(), 1e-9);
    }

    @Test
    void roundsArePairedByTheirNumber() {
        // Rounds are paired by their number: a cell given added rounds has more than the other.
        List<Measurement> runs = new ArrayList<>(table(1150, 1200, 1250, 1180, 1220, 1160).runs());
        runs.add(run("a", 7, 2000, 10, 4, 8, 6, 1));
        GoalVerdict v = GoalVerdict.of(AT_LEAST, runs);
        assertEquals(6, v.perRound().length);
        assertEquals(1.25, v.value().max(), 1e-9);
    }

    @Test
    void aGoalNotMetIsExplainedWithThisRunsFiguresAndTotalCpuWhenTicksAreFew() {
        GoalVerdict v = GoalVerdict.of(AT_LEAST, table(1000, 1050, 1090, 1020, 1060, 1040, 1010, 1070));
        assertEquals("goal +10 % (a vs b at 32 B): calls/s " + v.figure() + " (want >= 1.10x): MISSED", v.line());
        assertEquals("why, from this run: per round 1.000 1.050 1.090 1.020 1.060 1.040 1.010 1.070; the 95 % interval "
                + "["
                + GoalVerdict.number(v.ci().lo()) + "-" + GoalVerdict.number(v.ci().hi()) + "] lies wholly below 1.10. "
                + "a: round trip 95.7 us, CPU per call 10.00 us client + 8.00 us server (medians); syscalls per call: "
                        + "client 1 sendto"
                + " + 1 recvfrom, server 1 sendto + 1 recvfrom + 1 epoll_wait. "
                + "b: round trip 100.0 us, CPU per call 12.00 us client + 9.00 us server (medians); syscalls per call: "
                        + "client 2 sendto"
                + " + 1 recvfrom, server 1 sendto + 1 recvfrom + 1 epoll_wait. "
                + "Difference a - b: -3.00 us CPU per call (total on-CPU time, exact; no user/kernel split: 8 and 9 "
                        + "ticks of 10 ms, too few).",
                v.explanation());
        GoalVerdict w = GoalVerdict.of(AT_LEAST, table(1040, 1060, 1120, 1200, 1090, 1150));
        assertEquals(Goal.Status.NOT_SETTLED, w.status());
        assertTrue(w.explanation()
                .startsWith("why, from this run: per round 1.040 1.060 1.120 1.200 1.090 1.150; the 95 % interval "
                        + "[1.040-1.200]"
                + " straddles 1.10. a: round trip 90.5 us,"), w.explanation());
        assertTrue(w.line().endsWith("NOT SETTLED; budget or round cap reached, about " + w.roundsNeeded()
                + " rounds would settle it"), w.line());
        assertTrue(w.text().endsWith("\n  " + w.explanation()), w.text());
    }

    @Test
    void theUserKernelSplitIsStatedOnlyFromEnoughTicksWithItsUncertainty() {
        // a: 100 calls per round at 10 ms of CPU each, 40 % system time; b: the same at 12 ms, 50 %.
        List<Measurement> runs = new ArrayList<>();
        for (int r = 1; r <= 8; r++) {
            runs.add(ticks("a", r, 10_000, 0.4));
            runs.add(ticks("b", r, 12_000, 0.5));
        }
        GoalVerdict v = GoalVerdict.of(new Goal("less CPU", "t", "a", "b", 32, Goal.Metric.CPU_RATIO, false, 0.5),
                runs);
        assertEquals(Goal.Status.MISSED, v.status());
        // a: 800 ticks, kernel 4000 us per call; b: 960 ticks, kernel 6000 us per call. Uncertainty:
        // 10000 sqrt(0.24/800) = 173.2, 12000 sqrt(0.25/960) = 193.6; together 259.8.
        assertTrue(v.explanation()
                .endsWith("Difference a - b: -2000.00 us CPU per call, of it -2000.00 ± 259.81 us in the kernel"
                + " (system share from 800 and 960 ticks of 10 ms)."), v.explanation());
    }

    /** 100 calls in 1 s, each cpuUs of client CPU (share of it system time), no server. */
    static Measurement ticks(String cell, int round, long cpuUs, double share) {
        long total = cpuUs * 100;
        return new Measurement(cell, 32, round, 1, 100, 1.0, 1, 1, 1, 1, 1, SyscallCounts.ZERO, null, null, null,
                new ThreadCpu(total * 1000, Math.round(total * (1 - share)), Math.round(total * share), 0, 0), null,
                null);
    }

    /** A scale-table run of one cell at 10,000 connections: its server's RSS per connection, the same every round. */
    static Measurement memory(String cell, int round, double bytesPerConnection) {
        return run(cell, round, 1000, 10, 4, 8, 6, 1).withServerRss(bytesPerConnection);
    }

    @Test
    void theMemoryGoalJudgesTheSysframeServersFigureAndShowsTheCServersBesideIt() {
        Goal g = Tables.MATRIX.goals().stream().filter(x -> x.metric() == Goal.Metric.SERVER_RSS_KIB_PER_CONNECTION)
                .findFirst().orElseThrow();
        assertEquals("scale", g.table());
        assertEquals("epoll 1 loop 10000 idle", g.subject());
        assertEquals("C server 10000 idle", g.versus());
        assertFalse(g.metric().isRatio());
        assertEquals("<= 4.00 KiB", g.want());
        List<Measurement> runs = new ArrayList<>();
        for (int r = 1; r <= 8; r++) {
            runs.add(memory(g.subject(), r, 39_936)); // 39 KiB
            runs.add(memory(g.versus(), r, 64));
        }
        GoalVerdict missed = GoalVerdict.of(g, runs);
        assertEquals(Goal.Status.MISSED, missed.status());
        assertEquals(39.0, missed.ci().estimate(), 1e-9);
        assertEquals(39.0, missed.ci().lo(), 1e-9);
        assertEquals(0.0625, missed.versusFigure(), 1e-12);
        assertEquals("goal idle connection memory <= 4 KiB per connection (epoll 1 loop 10000 idle vs C server 10000 "
                + "idle at 32 B):"
                + " server resident memory per connection 39.000 KiB [39.000-39.000], 8 rounds; C server 10000 idle: "
                        + "0.063 KiB"
                + " (want <= 4.00 KiB): MISSED", missed.line());
        runs.replaceAll(m -> m.cell().equals(g.subject()) ? m.withServerRss(3_000) : m);
        GoalVerdict met = GoalVerdict.of(g, runs);
        assertEquals(Goal.Status.MET, met.status());
        assertTrue(met.line().endsWith("; C server 10000 idle: 0.063 KiB (want <= 4.00 KiB): met"), met.line());
        // A goal on a cell's own figure against itself shows no second figure (the syscall goals).
        GoalVerdict own = GoalVerdict.of(new Goal("x", "scale", g.subject(), g.subject(), 32,
                Goal.Metric.SERVER_RSS_KIB_PER_CONNECTION, false, 4.0), runs);
        assertTrue(Double.isNaN(own.versusFigure()));
        assertFalse(own.line().contains("; C server"), own.line());
        // Every other table's runs carry no memory figure: the metric reads NaN there, not judged.
        assertTrue(Double.isNaN(Goal.Metric.SERVER_RSS_KIB_PER_CONNECTION.of(run("a", 1, 1000, 10, 4, 8, 6, 1),
                run("a", 1, 1000, 10, 4, 8, 6, 1))));
    }

    @Test
    void theServerSideGoalsCompareSysframesServerWithTheCServerUnderTheSameClients() {
        List<Goal> anchor = Tables.MATRIX.goals().stream().filter(x -> x.versus().contains(ConnectionsTable.C_SERVER)
                && x.table().equals("connections")).toList();
        assertEquals(2, anchor.size());
        for (Goal g : anchor) {
            assertEquals(Goal.Metric.SERVER_CPU_RATIO, g.metric());
            assertFalse(g.atLeast());
            assertEquals(1.10, g.threshold(), 1e-12);
            assertEquals(g.subject().replace(ConnectionsTable.REFERENCE, ConnectionsTable.C_SERVER), g.versus(),
                    "the same clients and connections");
            assertTrue(g.subject().startsWith(ConnectionsTable.C_LEAN_PREFIX), g.toString());
        }
        assertEquals(List.of("C lean epoll 1 loop", "C lean epoll 1 loop (1 conn)"),
                anchor.stream().map(Goal::subject).toList());
    }

    @Test
    void theOnePerReadGoalsPutThePoolOfFourBesideTheCClientAndBesideOneConnection() {
        List<Goal> pool = Tables.MATRIX.goals().stream().filter(x ->
                x.subject().equals(ConcurrencyTable.onePerRead(64, 4))).toList();
        assertEquals(2, pool.size());
        assertEquals(ConcurrencyTable.cOnePerRead(4), pool.get(0).versus());
        assertEquals(">= 0.90x", pool.get(0).want());
        assertEquals(ConcurrencyTable.onePerRead(64, 1), pool.get(1).versus());
        assertEquals(">= 1.00x", pool.get(1).want());
        for (Goal g : pool) {
            assertEquals(ConcurrencyTable.NAME, g.table());
            assertEquals(Goal.Metric.CALLS_RATIO, g.metric());
        }
    }

    /** One caller on the client against its own I/O core alone, on each backend, in the same table's rounds. */
    @Test
    void oneCallerGoalsSetTheClientAgainstItsConfinedCoreOnEachBackend() {
        for (Backend b : BackendTable.BOTH) {
            List<Goal> g = Tables.MATRIX.goals().stream()
                    .filter(x -> x.versus().equals(BackendTable.confined(b))).toList();
            assertEquals(1, g.size(), b.toString());
            assertEquals(BackendTable.name(b, b), g.get(0).subject());
            assertEquals(BackendTable.NAME, g.get(0).table());
            assertEquals(Goal.Metric.CALLS_RATIO, g.get(0).metric());
            assertEquals(">= 0.97x", g.get(0).want());
            assertTrue(new BackendTable().cells().contains(BackendTable.confined(b)), b.toString());
        }
    }

    /**
     * A goal states what the code controls. Spinning's calls/s over blocking's is the machine's price of
     * a wake-up (17.6x on one guest, 2.4x on another): it is judged on CPU per call and p99, its calls/s
     * against the C client spinning on the same machine. io_uring one call at a time goes through task
     * work and has no calls/s goal against epoll; its calls/s goals are where it should win.
     */
    @Test
    void noGoalJudgesTheMachinesWakeUpCostOrIoUringOneCallAtATime() {
        String spin = WaitTable.name("spin", "spin", false), block = WaitTable.name("block", "block", false);
        for (Goal g : Tables.MATRIX.goals()) {
            boolean spinOverBlock = g.subject().equals(spin) && g.versus().equals(block);
            assertFalse(spinOverBlock && g.metric() == Goal.Metric.CALLS_RATIO, g.name());
            // (the client against its own confined I/O core runs the same backend on both rows: not such a goal)
            String versusPair = g.versus().replace(BackendTable.confined(Backend.EPOLL), BackendTable.BASELINE)
                    .replace(BackendTable.confined(Backend.IO_URING), BackendTable.name(Backend.IO_URING,
                            Backend.IO_URING));
            boolean uringOneAtATime = g.table().equals(BackendTable.NAME) && !g.subject().equals(versusPair);
            assertFalse(uringOneAtATime && g.metric() == Goal.Metric.CALLS_RATIO, g.name());
        }
        Goal cpu = Tables.MATRIX.goals().stream().filter(g -> g.subject().equals(spin) && g.versus().equals(block)
                && g.metric() == Goal.Metric.CPU_RATIO).findFirst().orElseThrow();
        assertEquals("<= 1.00x", cpu.want());
        assertTrue(Tables.MATRIX.goals().stream().anyMatch(g -> g.subject().equals(spin)
                && g.versus().equals(WaitTable.C_LEAN_PREFIX + spin)
                && g.metric() == Goal.Metric.CALLS_RATIO), "spinning's calls/s is judged against C lean spinning");
    }

    @Test
    void goalsWhoseTableOrCellsAreAbsentAreLeftOut() {
        Goal other = new Goal("x", "t", "a", "c", 32, Goal.Metric.CALLS_RATIO, true, 1.0);
        Goal elsewhere = new Goal("y", "u", "a", "b", 32, Goal.Metric.CALLS_RATIO, true, 1.0);
        List<GoalVerdict> v = Goals.evaluate(List.of(AT_LEAST, other, elsewhere), List.of(table(1150, 1200, 1250)));
        assertEquals(1, v.size());
        assertEquals(AT_LEAST, v.get(0).goal());
    }
}
