package org.sysframe.transport;

import org.sysframe.transport.wire.GroutApi;

import org.sysframe.transport.support.PipelinedPings;
import org.sysframe.transport.support.TestServers;
import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.ThreadSyscall;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Exact syscalls per transaction (32-byte GR_PING, 1000 calls after the hello) for the pairings the
 * seed patch and Grout's merged change compare, client and server, each library count checked
 * against the kernel's count of the same thread. Epoll clients and epoll servers, whatever the default
 * backend: it pins both sides, so it runs once, outside the behaviour suite ({@code @EachBackend}); the
 * io_uring client's counts are in {@code UringClientTest}, the io_uring server's in {@code UringServerTest}.
 */
@NeedsKernelCounter
class ExactCountsTest {
    static final int CALLS = 1000;
    static final int PAYLOAD = 32;

    @TempDir Path dir;

    @BeforeAll
    static void kernelCountersOpenHere() {
        assertNull(KernelSyscallCounter.unavailableReason());
    }

    /** One side's cost of the CALLS transactions, library and kernel. */
    record Cost(SyscallCounts library, SyscallCounts kernel) {}

    record Run(Cost client, Cost server) {}

    Run run(ClientOptions client, ServerOptions server) throws Exception {
        String path = dir.resolve("counts.sock").toString();
        // epoll's counts: io_uring's are in UringServerTest
        try (GroutServer s = TestServers.startEpoll(server.socketPath(path));
             GroutClient c = GroutClient.connect(client.socketPath(path).backend(Backend.EPOLL));
             Arena a = Arena.ofConfined();
             KernelSyscallCounter ck = KernelSyscallCounter.forCurrentThread();
             KernelSyscallCounter sk = KernelSyscallCounter.forThread(s.loopThreadId())) {
            MemorySegment payload = a.allocate(PAYLOAD);
            for (int i = 0; i < PAYLOAD; i++) payload.set(JAVA_BYTE, i, (byte) (i * 7));
            ThreadSyscall.awaitParked(s.loopThreadId(), Duration.ofSeconds(10));
            SyscallCounts cl0 = c.counters().snapshot(), ck0 = ck.read();
            SyscallCounts sl0 = s.counters().snapshot(), sk0 = sk.read();
            for (int i = 0; i < CALLS; i++) {
                Response r = c.call(GroutApi.PING, payload, 0, PAYLOAD);
                assertEquals(PAYLOAD, r.length());
                assertEquals((byte) 217, r.getByte(31));
            }
            SyscallCounts cl1 = c.counters().snapshot(), ck1 = ck.read();
            ThreadSyscall.awaitParked(s.loopThreadId(), Duration.ofSeconds(10));
            SyscallCounts sl1 = s.counters().snapshot(), sk1 = sk.read();
            Run run = new Run(new Cost(cl1.minus(cl0), ck1.minus(ck0)), new Cost(sl1.minus(sl0), sk1.minus(sk0)));
            System.out.printf("client %s/%s, server %s/%s, %d x %d B: client library %s kernel %s | server library %s "
                    + "kernel %s%n",
                    client.freeze().send(), client.freeze().recv(), server.freeze().send(), server.freeze().flush(),
                            CALLS, PAYLOAD,
                    run.client.library, run.client.kernel, run.server.library, run.server.kernel);
            assertEquals(run.client.library, run.client.kernel, "client: library vs kernel");
            assertEquals(run.server.library, run.server.kernel, "server: library vs kernel");
            return run;
        }
    }

    @Test
    void twoSyscallBaselineCostsTwoSendtoAndTwoRecvfromPerCall() throws Exception {
        Run r = run(ClientOptions.defaults().send(SendFraming.SPLIT).recv(RecvFraming.EXACT),
                ServerOptions.defaults().send(SendFraming.SPLIT).flush(FlushMode.IMMEDIATE));
        assertEquals(SyscallCounts.builder().sendto(2000).recvfrom(2000).build(), r.client.library);
        // Server: two sendto per response, always. Its reads depend on whether it wakes between the
        // client's header and payload sends: one recvfrom per wake-up, one epoll_wait per recvfrom.
        SyscallCounts srv = r.server.library;
        assertEquals(2000, srv.get(SyscallKind.SENDTO));
        long reads = srv.get(SyscallKind.RECVFROM);
        assertTrue(reads >= 1000 && reads <= 2000, "recvfrom " + reads);
        assertEquals(reads, srv.get(SyscallKind.EPOLL_WAIT));
        assertEquals(2000 + 2 * reads, srv.total());
    }

    @Test
    void seedPatchPairingCostsOneSendtoAndOneRecvfromPerCall() throws Exception {
        Run r = run(ClientOptions.defaults().send(SendFraming.copy(1024)).recv(RecvFraming.readAhead(1024)),
                ServerOptions.defaults().send(SendFraming.COPY).flush(FlushMode.IMMEDIATE));
        assertEquals(SyscallCounts.builder().sendto(1000).recvfrom(1000).build(), r.client.library);
        assertEquals(SyscallCounts.builder().sendto(1000).recvfrom(1000).epollWait(1000).build(), r.server.library);
    }

    @Test
    void mergedChangePairingCostsOneSendmsgAndOneRecvfromPerCall() throws Exception {
        Run r = run(ClientOptions.defaults().send(SendFraming.GATHER).recv(RecvFraming.READAHEAD),
                ServerOptions.defaults().send(SendFraming.GATHER).flush(FlushMode.DEFERRED));
        assertEquals(SyscallCounts.builder().recvfrom(1000).sendmsg(1000).build(), r.client.library);
        assertEquals(SyscallCounts.builder().recvfrom(1000).writev(1000).epollWait(1000).build(), r.server.library);
    }

    @Test
    void sysframeDefaultsCostOneSendtoAndOneRecvfromPerCallOnBothSides() throws Exception {
        Run r = run(ClientOptions.defaults(), ServerOptions.defaults());
        assertEquals(SyscallCounts.builder().sendto(1000).recvfrom(1000).build(), r.client.library);
        // Deferred, but a batch of one 44-byte response is copied and sent once.
        assertEquals(SyscallCounts.builder().sendto(1000).recvfrom(1000).epollWait(1000).build(), r.server.library);
    }

    @Test
    void immediateGatherServerWritesEachResponseWithOneSendmsg() throws Exception {
        Run r = run(ClientOptions.defaults().send(SendFraming.GATHER).recv(RecvFraming.READAHEAD),
                ServerOptions.defaults().send(SendFraming.GATHER).flush(FlushMode.IMMEDIATE));
        assertEquals(SyscallCounts.builder().recvfrom(1000).sendmsg(1000).build(), r.client.library);
        assertEquals(SyscallCounts.builder().recvfrom(1000).sendmsg(1000).epollWait(1000).build(), r.server.library);
    }

    /** 50 pings written with one send, all read by the server in one recv; the answers' cost by flush mode. */
    SyscallCounts pipelined(ServerOptions options) throws Exception {
        String path = dir.resolve("pipe.sock").toString();
        int n = 50;
        try (GroutServer s = TestServers.startEpoll(options.socketPath(path));
             UnixSocket raw = UnixSocket.connect(path);
             Arena a = Arena.ofConfined()) {
            PipelinedPings pings = PipelinedPings.helloThenStage(raw, a, n, PAYLOAD);
            ThreadSyscall.awaitParked(s.loopThreadId(), Duration.ofSeconds(10));
            SyscallCounts before = s.counters().snapshot();
            pings.sendAllAndCheckAnswers();
            ThreadSyscall.awaitParked(s.loopThreadId(), Duration.ofSeconds(10));
            return s.counters().snapshot().minus(before);
        }
    }

    @Test
    void deferredFlushAnswersFiftyPipelinedPingsWithOneWritev() throws Exception {
        assertEquals(SyscallCounts.builder().recvfrom(1).writev(1).epollWait(1).build(),
                pipelined(ServerOptions.defaults().send(SendFraming.COPY_GATHER).flush(FlushMode.DEFERRED)));
    }

    @Test
    void immediateFlushAnswersFiftyPipelinedPingsWithFiftySends() throws Exception {
        assertEquals(SyscallCounts.builder().sendto(50).recvfrom(1).epollWait(1).build(),
                pipelined(ServerOptions.defaults().send(SendFraming.COPY_GATHER).flush(FlushMode.IMMEDIATE)));
    }
}
