package org.sysframe.transport;

import org.sysframe.testsupport.Gc;
import org.sysframe.testsupport.ProcessProbe;
import org.sysframe.transport.support.LoopsIndependent;
import org.sysframe.transport.wire.GroutApi;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.transport.support.RawServer;
import org.sysframe.transport.support.ServerFixture;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.uring.UringCounts;
import org.sysframe.unix.uring.UringOp;
import org.sysframe.unix.uring.UringSupport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The io_uring client: exact io_uring_enter counts per call (library == kernel), SQEs by opcode for
 * every send framing, wait modes, pipelining, timeouts and a server that goes away.
 */
@LoopsIndependent
class UringClientTest {
    static final int CALLS = 1000;
    static final int PAYLOAD = 32;

    @RegisterExtension final ServerFixture fx = new ServerFixture();

    @BeforeAll
    static void ioUringWorksHere() {
        assertNull(UringSupport.unavailableReason());
    }

    private int servers;

    record Cost(SyscallCounts library, SyscallCounts kernel, UringCounts uring, SyscallCounts empty) {}

    /** CALLS pings of PAYLOAD bytes, every answer checked byte by byte, measured on this thread. */
    private Cost pings(ClientOptions options, int payloadLen) throws Exception {
        String path = fx.path("uring-client-" + (++servers) + ".sock");
        fx.start(ServerOptions.defaults().socketPath(path));
        try (GroutClient c = GroutClient.connect(options.socketPath(path).backend(Backend.IO_URING));
             Arena a = Arena.ofConfined(); KernelSyscallCounter k = KernelSyscallCounter.forCurrentThread()) {
            assertEquals(Backend.IO_URING, c.backend());
            MemorySegment payload = a.allocate(payloadLen);
            SyscallCounts l0 = c.counters().snapshot(), k0 = k.read(), e0 = c.counters().emptySnapshot();
            UringCounts u0 = c.uringCounts();
            for (int i = 0; i < CALLS; i++) {
                payload.set(JAVA_INT_UNALIGNED, 0, i);
                payload.set(JAVA_BYTE, payloadLen - 1, (byte) i);
                Response r = c.call(GroutApi.PING, payload, 0, payloadLen);
                assertEquals(payloadLen, r.length());
                assertEquals(i, r.buffer().get(JAVA_INT_UNALIGNED, r.offset()));
                assertEquals((byte) i, r.getByte(payloadLen - 1));
            }
            Cost cost = new Cost(c.counters().snapshot().minus(l0), k.read().minus(k0), c.uringCounts().minus(u0),
                    c.counters().emptySnapshot().minus(e0));
            System.out.printf("io_uring client %s, %d x %d B: library %s, kernel %s, %s per call%n",
                    c.config(), CALLS, payloadLen, cost.library, cost.kernel, cost.uring.describe(CALLS));
            // The JVM itself may call sched_yield on this thread (a safepoint's spin): compare the rest, on both sides
            // (the library counts a yield of its own, for the client's lock, which one caller alone never makes).
            assertEquals(cost.library.without(SyscallKind.SCHED_YIELD), cost.kernel.without(SyscallKind.SCHED_YIELD),
                    "library vs kernel");
            return cost;
        }
    }

    @Test
    @NeedsKernelCounter
    void aPingIsExactlyOneIoUringEnterAndNoSendOrRecvSyscall() throws Exception {
        Cost c = pings(ClientOptions.defaults(), PAYLOAD);
        assertEquals(SyscallCounts.builder().ioUringEnter(CALLS).build(), c.library);
        assertEquals(CALLS, c.uring.sqes(UringOp.SEND));
        assertEquals(CALLS, c.uring.sqes(UringOp.RECV));
        assertEquals(2L * CALLS, c.uring.totalSqes());
        assertEquals(2L * CALLS, c.uring.cqes());
        assertEquals("1 SEND + 1 RECV", c.uring.describe(CALLS));
    }

    @Test
    @NeedsKernelCounter
    void splitSendsTwoLinkedSqesAndGatherOneSendmsgStillOneEnterPerCall() throws Exception {
        Cost split = pings(ClientOptions.defaults().send(SendFraming.SPLIT), PAYLOAD);
        assertEquals(SyscallCounts.builder().ioUringEnter(CALLS).build(), split.library);
        assertEquals("2 SEND + 1 RECV", split.uring.describe(CALLS));
        Cost gather = pings(ClientOptions.defaults().send(SendFraming.GATHER), PAYLOAD);
        assertEquals(SyscallCounts.builder().ioUringEnter(CALLS).build(), gather.library);
        assertEquals("1 SENDMSG + 1 RECV", gather.uring.describe(CALLS));
    }

    @Test
    @NeedsKernelCounter
    void exactReceiveFramingReadsHeaderThenPayloadTwoEntersPerCall() throws Exception {
        Cost c = pings(ClientOptions.defaults().recv(RecvFraming.EXACT), PAYLOAD);
        assertEquals(SyscallCounts.builder().ioUringEnter(2 * CALLS).build(), c.library);
        assertEquals("1 SEND + 2 RECV", c.uring.describe(CALLS));
    }

    @Test
    @NeedsKernelCounter
    void largePayloadsGoByteExactThroughEveryFraming() throws Exception {
        for (SendFraming f : new SendFraming[] {SendFraming.SPLIT, SendFraming.COPY, SendFraming.GATHER,
                SendFraming.COPY_GATHER}) {
            Cost c = pings(ClientOptions.defaults().send(f), 60_000);
            assertEquals(0, c.library.get(SyscallKind.SENDTO) + c.library.get(SyscallKind.RECVFROM)
                    + c.library.get(SyscallKind.SENDMSG));
        }
    }

    @Test
    @NeedsKernelCounter
    void aSpinningClientSubmitsOnceAndWatchesTheCompletionQueueWithoutEmptySyscalls() throws Exception {
        Cost c = pings(ClientOptions.defaults().waitMode(WaitMode.SPIN), PAYLOAD);
        // One enter submits; a second runs the work the kernel flagged when the answer came, unless
        // the answer was already there while the first ran (then it is posted in that one).
        long enters = c.library.get(SyscallKind.IO_URING_ENTER);
        assertTrue(enters >= CALLS && enters <= 2L * CALLS, "io_uring_enter " + enters);
        assertEquals(enters, c.library.total(), "nothing but io_uring_enter");
        assertEquals(SyscallCounts.ZERO, c.empty, "no empty call");
        assertEquals("1 SEND + 1 RECV", c.uring.describe(CALLS));
    }

    @Test
    @NeedsKernelCounter
    void withSqpollAKernelThreadTakesTheSubmissionsAndTheEnterOnlyWaits() throws Exception {
        // The submission costs no syscall (the SQ thread polls the ring; a wake-up, when it sleeps, rides
        // on the waiting enter), so a blocking round trip is still exactly one io_uring_enter.
        Cost c = pings(ClientOptions.defaults().sqpoll(true), PAYLOAD);
        assertEquals(SyscallCounts.builder().ioUringEnter(CALLS).build(), c.library);
        assertEquals("1 SEND + 1 RECV", c.uring.describe(CALLS));
    }

    @Test
    @NeedsKernelCounter
    void aPipelinedBatchIsOneSendSqeAndEveryReceiveOneEnter() throws Exception {
        String path = fx.path("uring-pipeline.sock");
        fx.start(ServerOptions.defaults().socketPath(path));
        int batches = 200, depth = 32;
        try (GroutClient c = GroutClient.connect(ServerFixture.clientOptions(path).backend(Backend.IO_URING));
             Arena a = Arena.ofConfined(); KernelSyscallCounter k = KernelSyscallCounter.forCurrentThread();
             Pipeline p = c.pipeline(PipelineOptions.window(depth))) {
            MemorySegment payload = a.allocate(32);
            int[] answers = new int[1];
            Pipeline.AnswerHandler h = (id, status, seg, off, len, latency) -> answers[0]++;
            SyscallCounts l0 = c.counters().snapshot(), k0 = k.read();
            UringCounts u0 = c.uringCounts();
            for (int b = 0; b < batches; b++) {
                for (int i = 0; i < depth; i++) p.queue(GroutApi.PING, payload, 0, 32);
                p.flush();
                while (p.inFlight() > 0) p.poll(h, depth, true);
            }
            SyscallCounts lib = c.counters().snapshot().minus(l0), kern = k.read().minus(k0);
            UringCounts u = c.uringCounts().minus(u0);
            System.out.printf("io_uring pipeline depth %d: %d pings, library %s, kernel %s, %s%n", depth,
                    batches * depth, lib, kern, u);
            assertEquals(batches * depth, answers[0]);
            assertEquals(lib, kern);
            assertEquals(batches, u.sqes(UringOp.SEND), "one SEND per batch");
            long recvs = u.sqes(UringOp.RECV);
            assertEquals(batches + recvs, lib.get(SyscallKind.IO_URING_ENTER),
                    "one enter per batch's send and one per receive");
            assertEquals(lib.get(SyscallKind.IO_URING_ENTER), lib.total());
        }
    }

    @Test
    void messagesLargerThanTheSocketBuffersGoThroughInPartsWithoutStalling() throws Exception {
        // A send the kernel must retry in parts while the same enter waits for the answer too (the
        // case DEFER_TASKRUN stalls on): 4 KiB socket buffers on both sides, messages up to 128 KiB.
        String path = fx.path("small-buffers.sock");
        fx.start(ServerOptions.defaults().socketPath(path).socketBufferSize(4096));
        for (SendFraming f : new SendFraming[] {SendFraming.SPLIT, SendFraming.COPY_GATHER, SendFraming.GATHER}) {
            try (GroutClient c = GroutClient.connect(ServerFixture.clientOptions(path).backend(Backend.IO_URING)
                    .send(f).socketBufferSize(4096));
                 Arena a = Arena.ofConfined()) {
                for (int len : new int[] {20_000, 65_536, GroutApi.MAX_MSG_LEN, 1}) {
                    MemorySegment m = a.allocate(len);
                    for (int i = 0; i < len; i += 997) m.set(JAVA_BYTE, i, (byte) (i ^ len));
                    Response r = c.call(GroutApi.PING, m, 0, len);
                    assertEquals(len, r.length());
                    for (int i = 0; i < len; i += 997) assertEquals((byte) (i ^ len), r.getByte(i), f + " " + len
                            + " byte " + i);
                }
            }
        }
    }

    @Test
    void aServerThatNeverAnswersTimesOutTheReceiveAndItIsCancelled() throws Exception {
        String path = fx.path("silent.sock");
        try (RawServer server = new RawServer(path, conn -> {
            conn.readRequest();
            conn.awaitEof();
        })) {
            GroutClient c = GroutClient.connect(ServerFixture.clientOptions(path).backend(Backend.IO_URING)
                    .receiveTimeoutMillis(200));
            ErrnoException e = assertThrows(ErrnoException.class, () -> c.call(GroutApi.PING));
            assertEquals(Errno.ETIMEDOUT, e.errno());
            assertTrue(c.isUsable(), "a call's timeout leaves the client usable: its late answer is dropped");
            assertEquals(1, c.stats().inFlight(), "the abandoned call keeps its id until its answer comes");
            c.close();
        }
    }

    @Test
    void theReceiveTimeoutHoldsWhileSpinningAndYieldingWithoutEmptySyscalls() throws Exception {
        for (WaitMode mode : new WaitMode[] {WaitMode.SPIN, WaitMode.YIELD}) {
            String path = fx.path("silent-" + mode + ".sock");
            try (RawServer server = new RawServer(path, conn -> {
                conn.readRequest();
                conn.awaitEof();
            }); GroutClient c = GroutClient.connect(ServerFixture.clientOptions(path).backend(Backend.IO_URING)
                    .waitMode(mode).receiveTimeoutMillis(200))) {
                SyscallCounts before = c.counters().snapshot();
                ErrnoException e = assertThrows(ErrnoException.class, () -> c.call(GroutApi.PING));
                assertEquals(Errno.ETIMEDOUT, e.errno(), mode + ": " + e.getMessage());
                SyscallCounts spent = c.counters().snapshot().minus(before);
                // One enter submits the request and its receive; the spin watches the CQ from user
                // space; one more submits the cancel of the receive and waits for both to end.
                assertEquals(2, spent.get(SyscallKind.IO_URING_ENTER), mode + ": " + spent);
                if (mode.equals(WaitMode.YIELD)) assertTrue(spent.get(SyscallKind.SCHED_YIELD) > 0, spent.toString());
                else assertEquals(0, spent.get(SyscallKind.SCHED_YIELD));
            }
        }
    }

    @Test
    void aServerThatGoesAwayGivesEconnresetNotAHang() throws Exception {
        String path = fx.path("gone.sock");
        try (RawServer server = new RawServer(path, conn -> conn.readRequest())) {
            ServerFixture.guard(() -> {
                try (GroutClient c = GroutClient.connect(ServerFixture.clientOptions(path).backend(Backend.IO_URING))) {
                    ErrnoException e = assertThrows(ErrnoException.class, () -> c.call(GroutApi.PING));
                    assertEquals(Errno.ECONNRESET, e.errno(), e.getMessage());
                }
            });
        }
    }

    @Test
    void twoThousandClientsOpenedAndClosedLeaveDescriptorsAndMappingsAsTheyWere() throws Exception {
        // Each io_uring client has a ring: a descriptor and two mappings (rings, SQEs), freed by close().
        String path = fx.path("churn.sock");
        GroutServer server = fx.start(ServerOptions.defaults().socketPath(path));
        ClientOptions o = ServerFixture.clientOptions(path).backend(Backend.IO_URING);
        for (int i = 0; i < 100; i++) try (GroutClient c = GroutClient.connect(o)) { c.call(GroutApi.PING); }
        ServerFixture.awaitConnectionCount(server, 0);
        Gc.settle();
        long fds = ProcessProbe.openFds(), maps = ProcessProbe.mappings();
        for (int i = 0; i < 2000; i++) try (GroutClient c = GroutClient.connect(o)) { c.call(GroutApi.PING); }
        ServerFixture.awaitConnectionCount(server, 0);
        Gc.settle();
        long fdsAfter = ProcessProbe.openFds(), mapsAfter = ProcessProbe.mappings();
        System.out.printf("2,000 io_uring clients: fds %d -> %d, mappings %d -> %d%n", fds, fdsAfter, maps, mapsAfter);
        assertEquals(fds, fdsAfter, "descriptors");
        // The JVM maps and unmaps a few regions of its own (heap, code cache); a leaked ring would add 4,000.
        assertTrue(mapsAfter - maps < 50, "mappings " + maps + " -> " + mapsAfter);
    }

    @Test
    void backendNamesParseAndBadOnesSayWhatIsAccepted() {
        assertEquals(Backend.IO_URING, Backend.parse("io_uring"));
        assertEquals(Backend.EPOLL, Backend.parse("EPOLL"));
        assertEquals(Backend.AUTO, Backend.parse("auto"));
        assertEquals("backend 'kqueue': expected epoll, io_uring or auto",
                assertThrows(IllegalArgumentException.class, () -> Backend.parse("kqueue")).getMessage());
    }
}
