package org.sysframe.bench;

import org.junit.jupiter.api.Test;
import org.sysframe.unix.SyscallCounts;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The one runner: warm-ups first, then every cell once per round, in the cells' order. */
class RoundRunnerTest {
    @Test
    void roundsAreInterleavedCellByCell() throws Exception {
        List<String> order = new ArrayList<>();
        Cell.Probe probe = (cell, calls, round) -> {
            order.add(cell.key() + " r" + round + " n" + calls);
            return new Measurement(cell.name(), cell.payload(), round, 1, calls, 1.0, 1, 1, 1, 1, 1,
                    SyscallCounts.ZERO, null, null, null, new ThreadCpu(0, 0, 0, 0, 0), null, null);
        };
        List<Cell> cells = List.of(new Cell("A", 32, "", 100, 50, probe), new Cell("B", 32, "", 100, 0, probe),
                new Cell("A", 1024, "", 10, 5, probe));
        List<Measurement> runs = RoundRunner.run("test", cells, 3);
        assertEquals(List.of("A/32 r0 n50", "A/1024 r0 n5",
                "A/32 r1 n100", "B/32 r1 n100", "A/1024 r1 n10",
                "A/32 r2 n100", "B/32 r2 n100", "A/1024 r2 n10",
                "A/32 r3 n100", "B/32 r3 n100", "A/1024 r3 n10"), order);
        assertEquals(9, runs.size(), "warm-ups are not kept");
        assertEquals(List.of(1, 1, 1, 2, 2, 2, 3, 3, 3), runs.stream().map(Measurement::round).toList());

        BenchTable t = BenchTable.of("t", "t", "pairing", "A", false, 3, cells, runs, List.of());
        assertEquals(List.of(1, 2, 3), t.runs("B", 32).stream().map(Measurement::round).toList());
        assertEquals(List.of("A", "B"), t.names());
        assertEquals(List.of(32, 1024), t.payloads());
        assertEquals(3, t.rows().size());
        assertEquals(1.0, t.row("B", 32).ratio().median());
    }

    @Test
    void callsAreSplitEvenlyBetweenConcurrentClients() {
        assertEquals(5, ClientThreadsProbe.share(40, 8, 0));
        assertEquals(6, ClientThreadsProbe.share(43, 8, 2));
        assertEquals(5, ClientThreadsProbe.share(43, 8, 3));
        long sum = 0;
        for (int i = 0; i < 8; i++) sum += ClientThreadsProbe.share(43, 8, i);
        assertEquals(43, sum);
    }
}
