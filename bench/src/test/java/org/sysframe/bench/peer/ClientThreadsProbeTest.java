package org.sysframe.bench.peer;

import org.junit.jupiter.api.Test;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.RoundRunner;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.transport.GroutServer;
import org.sysframe.unix.SyscallKind;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The probe on a real embedded server: concurrent clients, exact counts of both sides, through the runner. */
class ClientThreadsProbeTest {
    @Test
    void threeConcurrentClientsAreCountedExactlyOnBothSides() throws Exception {
        Pairing p = Pairing.named("sysframe");
        try (BenchFixture f = new BenchFixture("probe-test")) {
            String socket = f.socket("probe");
            GroutServer server = f.server(p.server(socket).loops(1));
            List<PeerThread> clients = new ArrayList<>();
            for (int i = 0; i < 3; i++) clients.add(f.peer(new SysframePeer("client " + i, p.client(socket)), socket));
            Cell cell = new Cell("1 loop", 32, "", 301, 30,
                    new ClientThreadsProbe(clients, ServerSample.Source.of(server)));
            List<Measurement> runs = RoundRunner.run("test", List.of(cell), 2);
            assertEquals(2, runs.size());
            for (Measurement m : runs) {
                assertEquals(3, m.clients());
                assertEquals(301, m.calls());
                // copygather:1024 / readahead: one send and one receive per call on the client side.
                assertEquals(301, m.clientLibrary().get(SyscallKind.SENDTO));
                assertEquals(301, m.clientLibrary().get(SyscallKind.RECVFROM));
                // One response per request, sent by itself: one sendto per call on the server side.
                assertEquals(301, m.serverLibrary().get(SyscallKind.SENDTO));
                long recv = m.serverLibrary().get(SyscallKind.RECVFROM);
                assertTrue(recv >= 301 / 3 && recv <= 2 * 301, "server recvfrom " + recv);
                assertNotNull(m.clientCpu());
                assertNotNull(m.serverCpu());
                assertTrue(m.cpus().startsWith("client cpu "), m.cpus());
                if (m.kernelMeasured()) {
                    assertEquals(m.clientLibrary(), m.clientKernel(), "client, kernel vs library");
                    assertEquals(m.serverLibrary(), m.serverKernel(), "server, kernel vs library");
                }
            }
        }
    }
}
