package org.sysframe.bench.peer;

import org.junit.jupiter.api.Test;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.RoundRunner;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.measure.ThreadCpu;
import org.sysframe.transport.GroutServer;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;

import java.io.IOException;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The peers table's Java peers in child JVMs against a real embedded server of this JVM: exact counts, rounds spread
 * over forks.
 */
class PeerForksTest {
    @Test
    void roundsGoToTheForksInTurn() {
        int[] forks = new int[7];
        for (int r = 1; r <= 7; r++) forks[r - 1] = PeerForks.forkOf(r, 3);
        assertArrayEquals(new int[] {0, 1, 2, 0, 1, 2, 0}, forks);
        assertEquals(0, PeerForks.forkOf(5, 1));
    }

    @Test
    void aClientSideCrossesTheForkLineUnchanged() throws IOException {
        SyscallCounts lib = SyscallCounts.builder().sendmsg(600).recvfrom(600).build();
        SyscallCounts kernel = SyscallCounts.builder().sendmsg(600).recvfrom(601).futex(3).build();
        SortedSet<Integer> cpus = new TreeSet<>(List.of(1, 3));
        PeerFork.ClientSide side = new PeerFork.ClientSide(1, 600, 0.041234567,
                new long[] {50_000, 60_000, 90_000, 120_000, 700_000},
                lib, kernel, new ThreadCpu(12_345_678, 1_000, 11_000, 601, 2), cpus, null);
        PeerFork.ClientSide back = PeerFork.ClientSide.parse(side.format());
        assertEquals(1, back.clients());
        assertEquals(600, back.calls());
        assertEquals(0.041234567, back.seconds());
        assertArrayEquals(side.latency(), back.latency());
        assertEquals(lib, back.library());
        assertEquals(kernel, back.kernel());
        assertNull(back.empty());
        assertEquals(side.cpu(), back.cpu());
        assertEquals(cpus, back.cpus());
        assertEquals(new TreeSet<>(List.of(1)), PeerFork.ClientSide.clientCpus("client cpu 1; server cpu 0"));
        IOException bad = assertThrows(IOException.class, () -> PeerFork.ClientSide.parse("run 1 2"));
        assertEquals("a fork's answer is not a run: run 1 2", bad.getMessage());
    }

    @Test
    void javaPeersInTwoForksAreCountedExactlyOnBothSides() throws Exception {
        Pairing p = Pairing.named("sysframe");
        try (BenchFixture f = new BenchFixture("forks-test")) {
            String socket = f.socket("forks");
            GroutServer server = f.server(p.server(socket).loops(1));
            ServerSample.Source side = ServerSample.Source.of(server);
            PeerForks forks = f.closing(PeerForks.start(2, PeerFork.Peers.PEER_TABLE, socket, -1));
            assertEquals(2, forks.count());
            IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () ->
                    forks.probe("nobody", side));
            assertEquals("no peer nobody in a fork (sysframe, jdk-gather, jdk-2write, jnr)", unknown.getMessage());
            Cell sysframe = new Cell("sysframe", 32, "", 301, 10, forks.probe("sysframe", side));
            Cell jdk = new Cell("jdk-gather", 1024, "", 200, 0, forks.probe("jdk-gather", side));
            List<Measurement> runs = RoundRunner.run("test", List.of(sysframe, jdk), 4);
            assertEquals(8, runs.size());
            for (Measurement m : runs) {
                assertEquals(1, m.clients());
                if (m.cell().equals("sysframe")) {
                    assertEquals(301, m.calls());
                    // copygather:1024 / readahead: one sendto and one recvfrom per call, as in this JVM.
                    assertEquals(SyscallCounts.builder().sendto(301).recvfrom(301).build(), m.clientLibrary());
                } else {
                    assertEquals(200, m.calls());
                    assertNull(m.clientLibrary(), "the JDK's channel keeps no counts");
                }
                // The server is this JVM's: one response per request, each sent by itself.
                long sent = m.serverLibrary().get(SyscallKind.SENDTO) + m.serverLibrary().get(SyscallKind.WRITEV);
                assertEquals(m.calls(), sent);
                assertNotNull(m.clientCpu());
                assertTrue(m.clientCpu().cpuNanos() > 0, "client CPU from the fork");
                assertNotNull(m.serverCpu());
                assertTrue(m.cpus().startsWith("client cpu "), m.cpus());
                if (m.clientKernel() != null && m.clientLibrary() != null) assertEquals(m.clientLibrary(),
                        m.clientKernel());
            }
            // A bad request fails in the fork with one line, and the fork answers the next one.
            Cell tooBig = new Cell("sysframe", 200_000, "", 1, 0, forks.probe("sysframe", side));
            IOException e = assertThrows(IOException.class, () -> tooBig.probe().measure(tooBig, 1, 1));
            assertTrue(e.getMessage().startsWith("fork 1, sysframe: "), e.getMessage());
            assertEquals(5, sysframe.probe().measure(sysframe, 5, 1).calls());
        }
    }
}
