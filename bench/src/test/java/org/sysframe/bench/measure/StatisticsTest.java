package org.sysframe.bench.measure;

import org.junit.jupiter.api.Test;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Medians, spreads and per-round ratios on known inputs. */
class StatisticsTest {
    @Test
    void medianOfOddAndEvenCountsAndTheRange() {
        Spread odd = Spread.of(5, 1, 4, 2, 3);
        assertEquals(3.0, odd.median());
        assertEquals(1.0, odd.min());
        assertEquals(5.0, odd.max());
        assertEquals(5, odd.n());
        Spread even = Spread.of(10, 40, 20, 30);
        assertEquals(25.0, even.median());
        assertEquals(60.0, even.halfRangePercent(), 1e-9); // (40 - 10) / 2 / 25
        assertTrue(Double.isNaN(Spread.of().median()));
    }

    /** A result with fixed figures: calls in seconds, cpu ns client and server. */
    static Measurement result(String label, long calls, double seconds, long clientCpuNs, long serverCpuNs,
            SyscallCounts client, SyscallCounts server) {
        return result(label, 1, calls, seconds, clientCpuNs, serverCpuNs, client, server);
    }

    static Measurement result(String label, int round, long calls, double seconds, long clientCpuNs, long serverCpuNs,
                              SyscallCounts client, SyscallCounts server) {
        return new Measurement(label, 32, round, 1, calls, seconds, 20_000, 30_000, 50_000, 90_000, 100_000,
                client, client, server, server,
                new ThreadCpu(clientCpuNs, 0, 0, 0, 0), new ThreadCpu(serverCpuNs, 0, 0, 0, 0),
                        "client cpu 0; server cpu 1");
    }

    @Test
    void ratiosAreTakenPerRoundThenSummarised() {
        SyscallCounts split = SyscallCounts.builder().sendto(2000).recvfrom(2000).build();
        SyscallCounts server = SyscallCounts.builder().sendto(1000).recvfrom(1000).epollWait(1000).build();
        // Baseline: 1000 calls in 0.1 s, 0.2 s, 0.1 s (10000, 5000, 10000 calls/s).
        List<Measurement> base = List.of(
                result("b", 1, 1000, 0.1, 20_000_000, 10_000_000, split, server),
                result("b", 2, 1000, 0.2, 20_000_000, 10_000_000, split, server),
                result("b", 3, 1000, 0.1, 20_000_000, 10_000_000, split, server));
        // Candidate: 12000, 5500, 13000 calls/s: per-round ratios 1.2, 1.1, 1.3.
        List<Measurement> cand = List.of(
                result("c", 1, 1200, 0.1, 12_000_000, 6_000_000,
                SyscallCounts.builder().recvfrom(1200).sendmsg(1200).build(), server),
                result("c", 2, 1100, 0.2, 11_000_000, 5_500_000,
                        SyscallCounts.builder().recvfrom(1100).sendmsg(1100).build(), server),
                result("c", 3, 1300, 0.1, 13_000_000, 6_500_000,
                        SyscallCounts.builder().recvfrom(1300).sendmsg(1300).build(), server));
        CellSummary c = CellSummary.of("c", 32, cand, base);
        assertEquals(12000.0, c.callsPerSec().median(), 1e-6);
        assertEquals(1.2, c.ratio().median(), 1e-9);
        assertEquals(1.1, c.ratio().min(), 1e-9);
        assertEquals(1.3, c.ratio().max(), 1e-9);
        // CPU per call: candidate 10 + 5 us, baseline 20 + 10 us, every round: ratio 0.5.
        assertEquals(0.5, c.cpuRatio().median(), 1e-9);
        assertEquals(10.0, c.clientCpuMicros().median(), 1e-9);
        assertEquals(15.0, c.cpuMicrosPerCall(), 1e-9);
        assertEquals(1.0, c.clientSyscalls().get(SyscallKind.SENDMSG));
        assertEquals(1.0, c.clientSyscalls().get(SyscallKind.RECVFROM));
        assertEquals(0.0, c.clientSyscalls().get(SyscallKind.SENDTO));
        assertEquals("1 recvfrom + 1 sendmsg", CellSummary.describe(c.clientSyscalls()));
        assertTrue(c.kernelAgrees());
        assertEquals(20.0, c.p50Micros().median(), 1e-9);
        // The other direction, for peer tables: reference over row, per round.
        assertEquals(1 / 1.2, c.referenceRatio().median(), 1e-9);
        assertEquals(1 / 1.3, c.referenceRatio().min(), 1e-9);
        assertEquals(2.0, c.clientCpuReferenceRatio().median(), 1e-9);
        assertEquals("client cpu 0; server cpu 1", c.cpus());
    }

    @Test
    void aKernelCountThatDiffersFromTheLibraryIsFlagged() {
        SyscallCounts lib = SyscallCounts.builder().sendto(1000).recvfrom(1000).build();
        SyscallCounts ker = SyscallCounts.builder().sendto(1000).recvfrom(1001).build();
        Measurement r = new Measurement("x", 32, 1, 1, 1000, 0.1, 1, 1, 1, 1, 1, lib, ker, null, null,
                new ThreadCpu(1000, 0, 0, 0, 0), null, null);
        CellSummary c = CellSummary.of("x", 32, List.of(r), List.of(r));
        assertFalse(c.kernelAgrees());
        assertTrue(c.kernelMeasured());
        assertEquals("1 sendto + 1 recvfrom", CellSummary.describe(c.clientSyscalls()));
        assertEquals("1.50 recvfrom", CellSummary.describe(Map.of(SyscallKind.RECVFROM, 1.5)));
        assertEquals("1.0003 recvfrom", CellSummary.describe(Map.of(SyscallKind.RECVFROM, 1.0003)));
    }
}
