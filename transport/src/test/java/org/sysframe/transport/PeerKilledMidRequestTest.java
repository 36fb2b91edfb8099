package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sysframe.testsupport.ChildProcess;
import org.sysframe.testsupport.Gc;
import org.sysframe.testsupport.ProcessProbe;
import org.sysframe.transport.support.FaultChild;
import org.sysframe.transport.support.ServerFixture;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static org.sysframe.transport.support.ServerFixture.guard;
import static org.sysframe.transport.support.ServerFixture.clientOptions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sysframe.transport.support.Pings.ping;
import static org.sysframe.transport.support.ServerFixture.awaitConnectionCount;

/**
 * A peer SIGKILLed in the middle of a request is closed and freed by the server (descriptors and native
 * memory as before), with a close reason saying so, and the server goes on serving.
 * Outcomes are exact; waits are bounded only as hang guards.
 */
@EachBackend
class PeerKilledMidRequestTest {

    @RegisterExtension
    final ServerFixture fx = new ServerFixture();

    /** NMT "Other" may grow by less than the 128 KiB read buffer a cut-off request makes the server allocate. */
    private static final long MAX_OTHER_GROWTH = 64 * 1024;

    /**
     * Starts a child that says hello, then sends the header of a 128 KiB GR_PING and 60 KiB of it, and
     * SIGKILLs it there; returns what the server recorded for its connection.
     */
    private ConnectionStats killMidRequest(GroutServer s, String path, boolean unreadResponse) throws Exception {
        int before = s.connectionCount();
        try (ChildProcess child = new ChildProcess(ChildProcess.javaCommand(FaultChild.class, "partial", path,
                Boolean.toString(unreadResponse)))) {
            String sent = child.awaitLine(l -> l.startsWith("SENT "));
            assertEquals("SENT " + (RequestHeader.SIZE + FaultChild.SENT_PAYLOAD), sent);
            // The requests it completed were handled (and answered) before it dies: the hello, and the
            // small ping whose answer it leaves unread.
            long handled = unreadResponse ? 2 : 1;
            for (int i = 0; i < 6_000 && requestsOf(s, child.pid()) != handled; i++) Thread.sleep(5);
            assertEquals(handled, requestsOf(s, child.pid()), "requests handled for the child before the kill");

            child.process.destroyForcibly(); // SIGKILL
            assertTrue(child.process.waitFor(30, TimeUnit.SECONDS), "child not reaped");
            assertEquals(128 + 9, child.process.exitValue(), "exit status of a SIGKILLed process");
            awaitConnectionCount(s, before);
            List<ConnectionStats> mine = s.closedConnections().stream().filter(c -> c.peerPid() == child.pid())
                    .toList();
            assertEquals(1, mine.size(), "closed connections of pid " + child.pid() + ": " + mine);
            return mine.get(0);
        }
    }

    private static long requestsOf(GroutServer s, int pid) throws IOException {
        return s.openConnections().stream().filter(c -> c.peerPid() == pid).mapToLong(ConnectionStats::requests).sum();
    }

    @ParameterizedTest(name = "a response left unread by the dead peer: {0}")
    @ValueSource(booleans = {false, true})
    void peerKilledInTheMiddleOfARequestIsClosedAndFreedWithAReasonSayingSo(boolean unreadResponse) throws Exception {
        String p = fx.path("killed.sock");
        guard(() -> {
            GroutServer s = fx.start(ServerOptions.defaults().socketPath(p));
            // Warm-up: one whole cycle, so that process launching, the server's paths for a large
            // request and the NMT reporting are set up before the figures are taken.
            ConnectionStats warm = killMidRequest(s, p, unreadResponse);
            System.out.println("mid-request kill (warm-up): " + warm);
            Gc.settle();
            ProcessProbe.nativeMemory();

            ProcessProbe.Nmt nmtBefore = ProcessProbe.nativeMemory();
            long fdsBefore = ProcessProbe.openFds();
            ConnectionStats killed = killMidRequest(s, p, unreadResponse);
            Gc.settle();
            ProcessProbe.Nmt nmtAfter = ProcessProbe.nativeMemory();
            long fdsAfter = ProcessProbe.openFds();

            System.out.printf(Locale.ROOT, "mid-request kill (unread response: %b): server recorded %s%n",
                    unreadResponse, killed);
            System.out.printf(Locale.ROOT,
                    "mid-request kill: connections %d, fds %d -> %d, NMT %s -> %s (Other %+,d bytes)%n",
                    s.connectionCount(), fdsBefore, fdsAfter, nmtBefore, nmtAfter,
                    nmtAfter.otherCommitted() - nmtBefore.otherCommitted());

            assertEquals(0, s.connectionCount());
            assertEquals(unreadResponse ? 2 : 1, killed.requests(), killed.toString());
            assertEquals(fdsBefore, fdsAfter, "open descriptors of this process");
            long growth = nmtAfter.otherCommitted() - nmtBefore.otherCommitted();
            assertTrue(growth <= MAX_OTHER_GROWTH, "NMT Other grew by " + growth + " bytes (" + nmtBefore + " -> "
                    + nmtAfter + ")");

            // The server goes on serving.
            try (GroutClient c = GroutClient.connect(clientOptions(p))) {
                ping(c, 5, GroutApi.MAX_MSG_LEN);
            }

            // The record says the peer went away with a request cut short. A peer that dies with bytes
            // of ours unread makes the kernel report ECONNRESET instead of EOF once the rest of its
            // data is read; it is the same event and must be reported as such.
            assertTrue(killed.closeReason().contains("middle of a request"),
                    "close reason of a peer killed mid-request: \"" + killed.closeReason() + "\"");
        });
    }
}
