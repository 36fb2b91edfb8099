package org.sysframe.bench.peer;

import org.junit.jupiter.api.Test;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.RoundRunner;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.transport.Backend;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.uring.UringSupport;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The client's I/O core alone (the backends table's "confined core" rows) on a real server, on each backend: it
 * pings with the client's exact counts (io_uring's test skipped, with the reason, where the kernel has none), and a
 * wrong echo fails the ping.
 */
class ConfinedCorePeerTest {
    @Test
    @NeedsKernelCounter
    void onEpollTheConfinedCoreCostsOneSendtoAndOneRecvfromPerCall() throws Exception {
        for (Measurement m : measure(Backend.EPOLL)) {
            // The default framings: one sendto of header and payload, one read-ahead recvfrom.
            assertEquals(501, m.clientLibrary().get(SyscallKind.SENDTO), m.cell());
            assertEquals(501, m.clientLibrary().get(SyscallKind.RECVFROM), m.cell());
            assertEquals(1002, m.clientLibrary().total(), m.cell());
        }
    }

    @Test
    @NeedsKernelCounter
    void onIoUringTheConfinedCoreCostsOneIoUringEnterPerCall() throws Exception {
        assumeTrue(UringSupport.unavailableReason() == null, () -> "io_uring: " + UringSupport.unavailableReason());
        for (Measurement m : measure(Backend.IO_URING)) {
            // The send SQE goes in the same io_uring_enter that waits for the answer.
            assertEquals(501, m.clientLibrary().get(SyscallKind.IO_URING_ENTER), m.cell());
            assertEquals(501, m.clientLibrary().total(), m.cell());
        }
    }

    /** Two rounds of 501 calls of the core on backend against a server of that backend: library == kernel. */
    private static List<Measurement> measure(Backend b) throws Exception {
        Pairing p = Pairing.named("sysframe");
        try (BenchFixture f = new BenchFixture("confined-test")) {
            String socket = f.socket("confined-" + b);
            GroutServer server = f.server(p.server(socket).backend(b).loops(1));
            PeerThread t = f.peer(new ConfinedCorePeer("core " + b, p.client(socket).backend(b)), socket);
            Cell cell = new Cell("core " + b, 32, "", 501, 50,
                    new ClientThreadsProbe(List.of(t), ServerSample.Source.of(server)));
            List<Measurement> runs = RoundRunner.run("test", List.of(cell), 2);
            assertEquals(2, runs.size());
            for (Measurement m : runs) {
                assertEquals(501, m.calls(), m.cell());
                assertTrue(m.kernelMeasured(), m.cell());
                assertEquals(m.clientLibrary(), m.clientKernel(), m.cell() + ": library vs kernel");
            }
            return runs;
        }
    }

    @Test
    void anAnswerThatIsNotTheEchoFailsThePing() throws Exception {
        Pairing p = Pairing.named("sysframe");
        try (BenchFixture f = new BenchFixture("confined-echo")) {
            String socket = f.socket("echo");
            f.server(p.server(socket).loops(1)
                    .handle(GroutApi.PING, 0, (req, reply) -> reply.ok())); // answers a ping with no payload
            try (ConfinedCorePeer core = new ConfinedCorePeer("core", p.client(socket))) {
                core.open(socket);
                core.prepare(32);
                ErrnoException e = assertThrows(ErrnoException.class, core::ping);
                assertEquals(Errno.EBADMSG, e.errno(), e.getMessage());
            }
        }
    }
}
