package org.sysframe.bench.table;

import org.junit.jupiter.api.Test;
import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.peer.CPeer;
import org.sysframe.bench.peer.CPeerModesTest;
import org.sysframe.bench.peer.CServerTest;
import org.sysframe.transport.Backend;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.uring.UringSupport;

import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The many-connections table, one quick round: 32 clients at depth 1 against each server (the C server's
 * process among them), and one client alone against the epoll server with 1 loop and the C server,
 * sysframe's clients in this JVM and the lean C client's processes, with exact client counts (each ping
 * one send and one recv), exact server counts (the C server: one recv and one writev per request) and
 * the servers' library counts equal to the kernel's.
 */
class ConnectionsTableTest {
    @Test
    void thirtyTwoClientsAtDepthOneAgainstEveryServerCountExactly() throws Exception {
        assumeTrue(UringSupport.unavailableReason() == null, "io_uring is unavailable here");
        String old = System.getProperty("sysframe.cpeer"), oldServe = System.getProperty("sysframe.cserve");
        System.setProperty("sysframe.cpeer", CPeerModesTest.binary().toString()); // make test builds it first
        System.setProperty("sysframe.cserve", CServerTest.binary().toString());
        try {
            assertTrue(CPeer.available());
            BenchTable t = new ConnectionsTable().run(TableRun.of(1, true, false));
            List<String> names = Stream.concat(
                            Stream.concat(ConnectionsTable.SERVERS.stream().map(ConnectionsTable.Server::cell),
                                    Stream.of(ConnectionsTable.C_SERVER)),
                            ConnectionsTable.ONE_CONNECTION.stream())
                    .flatMap(s -> Stream.of(s, ConnectionsTable.C_LEAN_PREFIX + s)).toList();
            assertEquals(names, t.names());
            assertTrue(new ConnectionsTable().cells().containsAll(t.names()), "every cell it ran is declared");
            assertEquals(List.of("epoll 1 loop", "C lean epoll 1 loop", "epoll 2 loops", "C lean epoll 2 loops",
                    "io_uring 1 loop", "C lean io_uring 1 loop", "C server", "C lean C server",
                    "epoll 1 loop (1 conn)", "C lean epoll 1 loop (1 conn)", "C server (1 conn)",
                            "C lean C server (1 conn)"), t.names());
            // Two sets of rounds, one after the other: every run of a sysframe row before any of a C row.
            List<Measurement> all = t.runs();
            int lastSysframe = -1, firstC = Integer.MAX_VALUE;
            for (int i = 0; i < all.size(); i++) {
                if (all.get(i).round() == Measurement.WARM_UP) continue;
                if (all.get(i).cell().startsWith(ConnectionsTable.C_LEAN_PREFIX)) firstC = Math.min(firstC, i);
                else lastSysframe = i;
            }
            assertTrue(lastSysframe >= 0 && lastSysframe < firstC, "sysframe runs up to " + lastSysframe
                    + ", C runs from " + firstC);
            long calls = 100L * ConnectionsTable.CLIENTS;
            for (String name : names) {
                List<Measurement> runs = t.runs(name, ConnectionsTable.PAYLOAD);
                assertEquals(1, runs.size(), name);
                Measurement m = runs.get(0);
                int clients = name.endsWith(ConnectionsTable.ONE) ? 1 : ConnectionsTable.CLIENTS;
                assertEquals(clients, m.clients(), name);
                assertEquals(calls, m.calls(), name);
                var client = m.clientSyscalls();
                assertEquals(calls, client.get(SyscallKind.SENDTO), name);
                assertEquals(calls, client.get(SyscallKind.RECVFROM), name);
                // Each C process, besides its calls: its go line's one read and its summary's one write.
                long control = name.startsWith(ConnectionsTable.C_LEAN_PREFIX) ? clients : 0;
                assertEquals(control, client.get(SyscallKind.READ), name);
                assertEquals(control, client.get(SyscallKind.WRITE), name);
                assertEquals(2 * calls + 2 * control, client.total(), name + ": " + client);
                if (m.clientKernel() != null) {
                    assertTrue(m.kernelAgrees(), name + ": library " + m.serverLibrary() + ", kernel "
                            + m.serverKernel());
                    assertEquals(client, m.clientKernel(), name);
                }
                boolean uring = name.contains(Backend.IO_URING.toString());
                long enters = m.serverSyscalls().get(SyscallKind.IO_URING_ENTER);
                assertEquals(uring, enters > 0, name + ": " + m.serverSyscalls());
                if (uring) assertEquals(enters, m.serverSyscalls().total(), name + ": io_uring_enter only, "
                        + m.serverSyscalls());
                else if (name.contains(ConnectionsTable.C_SERVER)) {
                    // The C server: one recv() and one writev() per request (one in flight per connection); with one
                    // connection one epoll_wait each too (the wakes of its stats commands taken out).
                    var server = m.serverSyscalls();
                    assertEquals(calls, server.get(SyscallKind.RECVFROM), name + ": " + server);
                    assertEquals(calls, server.get(SyscallKind.WRITEV), name + ": " + server);
                    if (clients == 1) assertEquals(3 * calls, server.total(), name + ": " + server);
                    else assertEquals(2 * calls + server.get(SyscallKind.EPOLL_WAIT), server.total(), name + ": "
                            + server);
                } else {
                    assertEquals(calls, m.serverSyscalls().get(SyscallKind.RECVFROM)
                            - m.serverEmpty().get(SyscallKind.RECVFROM), name);
                }
            }
        } finally {
            if (old == null) System.clearProperty("sysframe.cpeer");
            else System.setProperty("sysframe.cpeer", old);
            if (oldServe == null) System.clearProperty("sysframe.cserve");
            else System.setProperty("sysframe.cserve", oldServe);
        }
    }
}
