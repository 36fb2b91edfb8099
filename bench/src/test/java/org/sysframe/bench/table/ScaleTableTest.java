package org.sysframe.bench.table;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.CellSummary;
import org.sysframe.bench.measure.Goal;
import org.sysframe.bench.measure.GoalVerdict;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.RoundRunner;
import org.sysframe.bench.peer.BenchFixture;
import org.sysframe.bench.peer.CPeerModesTest;
import org.sysframe.bench.peer.CServerTest;
import org.sysframe.bench.peer.FileLimit;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The scale table on small counts: 50 connections, 1 and 5 of them active, against sysframe's server
 * in a child JVM and the C server, each with its own server process, driven by the C load generator's
 * many-connections mode; the servers' request counts and syscall counts exact, the client's too. Then
 * the table itself: its rows, a count over the open-files limit skipped with a note naming its cells,
 * and the rows' memory figures. No timing is asserted.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ScaleTableTest {
    static String oldPeer, oldServe;

    @BeforeAll
    static void binaries() {
        oldPeer = System.getProperty("sysframe.cpeer");
        oldServe = System.getProperty("sysframe.cserve");
        System.setProperty("sysframe.cpeer", CPeerModesTest.binary().toString()); // make test builds them first
        System.setProperty("sysframe.cserve", CServerTest.binary().toString());
    }

    @AfterAll
    static void restore() {
        restore("sysframe.cpeer", oldPeer);
        restore("sysframe.cserve", oldServe);
    }

    private static void restore(String key, String value) {
        if (value == null) System.clearProperty(key);
        else System.setProperty(key, value);
    }

    static final int N = 50;

    @Test
    void fiftyConnectionsOneOrFiveActiveCountExactlyOnBothServers() throws Exception {
        try (BenchFixture f = new BenchFixture("scale-test")) {
            List<Cell> cells = new ArrayList<>();
            List<ScaleTable.Probe> probes = new ArrayList<>();
            for (ScaleTable.Server s : ScaleTable.SHORT) {
                for (int active : new int[] {1, 5}) {
                    ScaleTable.Probe p = f.closing(new ScaleTable.Probe(s, N, active, f.socket("s" + cells.size())));
                    probes.add(p);
                    long calls = active == 1 ? 300 : 1000;
                    cells.add(new Cell(s.label() + " " + N + " " + (active == 1 ? "idle" : "active"),
                            ScaleTable.PAYLOAD, "", calls, calls / 2, p));
                }
            }
            List<Measurement> runs = RoundRunner.run(ScaleTable.NAME, cells, 2);
            assertEquals(2 * cells.size(), runs.size());
            for (int i = 0; i < cells.size(); i++) {
                Cell cell = cells.get(i);
                boolean c = cell.name().startsWith(ScaleTable.C_SERVER);
                int active = cell.name().endsWith("idle") ? 1 : 5;
                long called = cell.warmUpCalls(); // the warm-up run: one, without a plan
                for (Measurement m : runs) {
                    if (!m.cell().equals(cell.name())) continue;
                    String what = cell.name() + ", round " + m.round();
                    called += m.calls();
                    assertEquals(cell.calls(), m.calls(), what);
                    assertEquals(active, m.clients(), what + ": requests in flight at once");
                    assertFalse(Double.isNaN(m.serverRssPerConnection()), what);
                    // The load generator: one send() per call; its go line's one read, its summary's one write.
                    SyscallCounts client = m.clientKernel();
                    if (client != null) {
                        assertEquals(m.calls(), client.get(SyscallKind.SENDTO), what + ": " + client);
                        assertEquals(1, client.get(SyscallKind.READ), what + ": " + client);
                        assertEquals(1, client.get(SyscallKind.WRITE), what + ": " + client);
                    }
                    SyscallCounts server = m.serverLibrary();
                    if (c) {
                        // One readiness, one recv() and one writev() per request (one request in flight per
                        // connection); with one active connection, one epoll_wait each too (the stats commands' wakes
                        // taken out).
                        assertEquals(m.calls(), server.get(SyscallKind.RECVFROM), what + ": " + server);
                        assertEquals(m.calls(), server.get(SyscallKind.WRITEV), what + ": " + server);
                        long waits = server.get(SyscallKind.EPOLL_WAIT);
                        if (active == 1) assertEquals(m.calls(), waits, what + ": " + server);
                        else assertTrue(waits >= m.calls() / active && waits <= m.calls(), what + ": " + server);
                        assertEquals(3, countKinds(server), what + ": recvfrom, writev, epoll_wait only: " + server);
                    } else {
                        long empty = m.serverEmpty() == null ? 0 : m.serverEmpty().get(SyscallKind.RECVFROM);
                        assertEquals(m.calls(), server.get(SyscallKind.RECVFROM) - empty, what + ": " + server);
                    }
                    if (m.serverKernel() != null) {
                        assertTrue(m.kernelAgrees(), what + ": library " + m.serverLibrary() + ", kernel "
                                + m.serverKernel());
                    }
                }
                // Every request the server answered: the warm-up run's 8 connections (GR_HELLO, one GR_PING, then
                // 20,000 pings), the 50 connections' GR_HELLO and GR_PING, then every call of every run.
                long expected = 2L * ScaleTable.WARM_CONNECTIONS + ScaleTable.WARM_PINGS + 2L * N + called;
                assertEquals(expected, probes.get(i).serverRequests(), cell.name());
                String note = probes.get(i).memoryNote(cell.name());
                assertTrue(note.startsWith(cell.name() + ": server RSS ") && note.contains(" KiB with 50: "), note);
            }
            // The C server's idle connections hold a small struct each and no buffer.
            for (Measurement m : runs) {
                if (m.cell().startsWith(ScaleTable.C_SERVER)) assertTrue(m.serverRssPerConnection() <= 1024, m.cell()
                        + ": " + m.serverRssPerConnection());
            }
        }
    }

    private static int countKinds(SyscallCounts c) {
        int n = 0;
        for (SyscallKind k : SyscallKind.values()) if (c.get(k) > 0) n++;
        return n;
    }

    @Test
    void theTableHasARowPerServerCountAndModeAndSkipsACountOverTheLimitNamingItsCells() throws Exception {
        // A limit of 300 descriptors per process: 30 connections fit (with the 256 spare), 1,000 do not.
        FileLimit limit = new FileLimit(300, 300, 300, null);
        BenchTable t = ScaleTable.run(1, true, ScaleTable.SHORT, new int[] {1, 30, 1000}, 5, limit, null);
        assertEquals(List.of("epoll 1 loop 1 active", "C server 1 active", "epoll 1 loop 30 idle", "C server 30 idle",
                "epoll 1 loop 30 active", "C server 30 active"), t.names());
        assertEquals(limit.describe(), t.notes().get(0));
        assertTrue(t.notes()
                .contains("skipped, not measured: epoll 1 loop 1000 idle, C server 1000 idle, epoll 1 loop 1000 active,"
                + " C server 1000 active: 1000 connections need 1000 descriptors and more in one process (the client's,"
                        + " and the server's),"
                + " over the open-files limit of 300 here (raise the hard limit as root: ulimit -Hn, or LimitNOFILE)"),
                t.notes().toString());
        for (String name : t.names()) {
            CellSummary row = t.row(name, ScaleTable.PAYLOAD);
            assertEquals(1, row.rounds(), name);
            assertFalse(Double.isNaN(row.serverRssPerConnection().median()), name);
            assertTrue(row.toMap("server", t.reference()).containsKey("server_rss_bytes_per_connection_median"), name);
            assertTrue(t.notes().stream().anyMatch(n -> n.startsWith(name + ": server RSS ")), name);
            assertEquals(name.startsWith(ScaleTable.C_SERVER) ? name : ScaleTable.C_SERVER
                    + name.substring("epoll 1 loop".length()),
                    ScaleTable.cRowBeside(name));
            assertEquals(name.endsWith("idle") || name.endsWith(" 1 active") ? 1 : 5,
                    t.runs(name, ScaleTable.PAYLOAD).get(0).clients(), name);
        }
        assertNull(ScaleTable.cRowBeside("1 loop"));
        // No 10,000 cell: the memory goal is left out, not judged.
        Goal memory = new ScaleTable().goals().stream().filter(g ->
                g.metric() == Goal.Metric.SERVER_RSS_KIB_PER_CONNECTION).findFirst().orElseThrow();
        assertNull(GoalVerdict.of(memory, t));
        assertTrue(t.title().startsWith("Scale: one server holding 1, 30, 1,000 connections"), t.title());
    }
}
