package org.sysframe.bench.peer;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.RoundRunner;
import org.sysframe.bench.measure.ThreadCpu;
import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;
import org.sysframe.transport.WaitMode;
import org.sysframe.unix.Self;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The bench's shared-memory rows on a real embedded server and a real channel: the client's kernel
 * count has its futex calls (the shared ones: not the JVM's own on its thread, such as the latches it
 * waits on between runs), the server side is the loop serving the channel; every kind, futex too, is
 * exactly the library's on both sides (a spinning loop's kernel counts are not read: it has no quiet
 * instant).
 * Also the C shared-memory ping-pong's row: no syscall of the library's kinds in either process; and
 * its loop in Java: none on either thread, and a side whose partner gave up ends.
 */
@NeedsKernelCounter
class SharedMemoryRowCountsTest {
    static final int CALLS = 3_000;

    /** Two rounds of one sysframe shared-memory client against a channel waiting as mode says. */
    static List<Measurement> rows(WaitMode mode) throws Exception {
        Pairing p = Pairing.named("sysframe");
        try (BenchFixture f = new BenchFixture("shm-row-test")) {
            String socket = f.socket("shm");
            GroutServer server = f.server(p.server(socket).sharedMemory(true).sharedMemoryWaitMode(mode)
                    .waitMode(WaitMode.BLOCK));
            PeerThread client = f.peer(new SysframePeer("shm", p.client(socket).sharedMemory(true).waitMode(mode)),
                    socket);
            assertEquals("shm", client.peer().transport());
            Cell cell = new Cell("shm " + mode, 32, "", CALLS, 300,
                    new ClientThreadsProbe(List.of(client), new ChannelSide(server)));
            return RoundRunner.run("test", List.of(cell), 2);
        }
    }

    /** Every kind equal, futex too. */
    static void kernelIsLibrary(String side, SyscallCounts library, SyscallCounts kernel) {
        assertNotNull(kernel, side + ": kernel counts");
        assertEquals(library, kernel, side + ": kernel vs library");
    }

    @Test
    void spinningBothSidesTheClientMakesNoSyscallAndTheLoopOnlyLooksAtItsSocketsAtABoundedRate() throws Exception {
        for (Measurement m : rows(WaitMode.parse("spin"))) {
            assertEquals(CALLS, m.calls());
            // The spinning client makes no futex call; its only calls are its rare looks at the socket.
            assertEquals(0, m.clientLibrary().get(SyscallKind.FUTEX));
            assertEquals(m.clientLibrary().get(SyscallKind.RECVFROM), m.clientLibrary().total(), "client: "
                    + m.clientLibrary());
            kernelIsLibrary("client", m.clientLibrary(), m.clientKernel());
            // The loop serving the channel spins: no syscall for the channel, an epoll_wait(0) for its sockets
            // at most once per 20 us of its running. Its counts are taken around the round, a little longer than
            // the client's timed calls (m.seconds()): its own CPU time measures the window it looked in. Each time
            // it was scheduled back (a context switch) it may look at once.
            long looks = m.serverLibrary().get(SyscallKind.EPOLL_WAIT);
            assertEquals(looks, m.serverLibrary().total(), "the loop: " + m.serverLibrary());
            ThreadCpu cpu = m.serverCpu();
            double window = Math.max(m.seconds(), cpu.cpuNanos() / 1e9);
            long switches = cpu.voluntarySwitches() + cpu.involuntarySwitches();
            assertTrue(looks <= (long) (window * 50_000) + switches + 2, looks + " epoll_wait in a window of "
                    + window + " s (the timed calls: " + m.seconds() + " s; the loop: " + cpu + ")");
            assertNull(m.serverKernel(), "a spinning loop's kernel counts are not read");
            // The loop spins through the whole run: its CPU clock advanced in it, however short the run.
            assertTrue(m.serverCpu().cpuNanos() > 0, "the loop's CPU: " + m.serverCpu());
        }
    }

    @Test
    void blockingBothSidesEverySleepAndWakeUpOfClientAndLoopIsCountedByTheKernelToo() throws Exception {
        for (Measurement m : rows(WaitMode.parse("block"))) {
            // The client sleeps on a futex word and wakes the loop with a write to the channel's eventfd;
            // the loop sleeps in epoll_wait and wakes the client with a futex wake. At most one of each per
            // call and side.
            long clientFutex = m.clientLibrary().get(SyscallKind.FUTEX);
            long clientWrites = m.clientLibrary().get(SyscallKind.WRITE);
            long loopWaits = m.serverLibrary().get(SyscallKind.EPOLL_WAIT);
            long loopFutex = m.serverLibrary().get(SyscallKind.FUTEX);
            assertTrue(clientFutex > 0 && clientFutex <= CALLS + CALLS / 10, "client futex " + clientFutex);
            assertTrue(clientWrites > 0 && clientWrites <= CALLS, "client writes " + clientWrites);
            assertTrue(loopFutex > 0 && loopFutex <= CALLS, "loop futex " + loopFutex);
            assertTrue(loopWaits > 0 && loopWaits <= CALLS + CALLS / 10, "loop epoll_wait " + loopWaits);
            assertEquals(clientFutex + clientWrites,
                    m.clientLibrary().total() - m.clientLibrary().get(SyscallKind.RECVFROM), "client: "
                    + m.clientLibrary());
            assertEquals(loopFutex + loopWaits, m.serverLibrary().total(), "loop: " + m.serverLibrary());
            kernelIsLibrary("client", m.clientLibrary(), m.clientKernel());
            kernelIsLibrary("loop", m.serverLibrary(), m.serverKernel());
            assertTrue(m.kernelAgrees(), m.clientKernel() + " / " + m.serverKernel());
        }
    }

    @Test
    void aThreadsCpuClockIsItsOnCpuTime() throws Exception {
        int tid = Self.tid();
        long a = ThreadClock.cpuNanos(tid);
        long x = 0;
        for (int i = 0; i < 5_000_000; i++) x += i ^ (x >>> 3); // some CPU of this thread
        long b = ThreadClock.cpuNanos(tid);
        assertTrue(b > a, a + " then " + b + " (" + x + ")");
        IllegalStateException gone = Assertions.assertThrows(IllegalStateException.class, () ->
                ThreadClock.cpuNanos(999_999_999));
        assertEquals("clock_gettime(CPU clock of thread 999999999) failed: the thread is gone", gone.getMessage());
    }

    static Path program() {
        for (Path p : List.of(Path.of("target/shm_pingpong"), Path.of("bench/target/shm_pingpong"))) {
            if (Files.isExecutable(p)) return p.toAbsolutePath();
        }
        return null;
    }

    @Test
    void theCSharedMemoryPingPongRowMakesNoSyscallOfTheLibrarysKindsInEitherProcess() throws Exception {
        Path program = program();
        assumeTrue(program != null, "bench/target/shm_pingpong is not built (make c-peer builds it)");
        CShmPingPong limit = new CShmPingPong(program, 1, 0);
        Measurement m = limit.measure(new Cell("C shm", 32, limit.describe(), 20_000, 1_000, limit), 20_000, 1);
        assertEquals(20_000, m.calls());
        assertEquals(SyscallCounts.ZERO, m.clientKernel(), "client process");
        assertEquals(SyscallCounts.ZERO, m.serverKernel(), "server process");
        assertTrue(m.kernelAgrees());
        assertTrue(m.p50Nanos() > 0 && m.p50Nanos() <= m.p99Nanos() && m.p99Nanos() <= m.maxNanos(), m.p50Nanos() + " "
                + m.p99Nanos());
        assertTrue(m.seconds() > 0);
        assertEquals("client cpu 1; server cpu 0", m.cpus());
    }

    @ParameterizedTest
    @EnumSource(JavaShmPingPong.Layout.class)
    void theJavaPingPongRowsMakeNoSyscallOfTheLibrarysKindsOnEitherThreadAndRunWhereTheyWerePinned(
            JavaShmPingPong.Layout layout) throws Exception {
        JavaShmPingPong floor = new JavaShmPingPong(1, 0, layout);
        // More calls than the ring layout's rings hold records: its loops go round them.
        long calls = 2L * JavaShmPingPong.RING_BYTES / (JavaShmPingPong.HEADER + 32) + 1_000;
        Cell cell = new Cell("Java shm", 32, floor.describe(), calls, 1_000, floor);
        for (int round = 1; round <= 2; round++) {
            Measurement m = floor.measure(cell, calls, round);
            assertEquals(calls, m.calls());
            assertEquals(SyscallCounts.ZERO, m.clientKernel(), "client thread");
            assertEquals(SyscallCounts.ZERO, m.serverKernel(), "server thread");
            assertTrue(m.kernelAgrees());
            assertTrue(m.p50Nanos() > 0 && m.p50Nanos() <= m.p99Nanos() && m.p99Nanos() <= m.maxNanos(), m.p50Nanos()
                    + " " + m.p99Nanos());
            // Both threads spin through the whole run: their CPU clocks advanced in it.
            assertTrue(m.clientCpu().cpuNanos() > 0 && m.serverCpu().cpuNanos() > 0, m.clientCpu() + " / "
                    + m.serverCpu());
            assertEquals("client cpu 1; server cpu 0", m.cpus());
        }
        IOException big = assertThrows(IOException.class, () ->
                floor.measure(new Cell("Java shm", 4097, "", 10, 1, floor), 10, 1));
        assertEquals("the Java ping-pong carries 0..4096 bytes, not 4097", big.getMessage());
    }

    @Test
    void theRingLayoutsRingsAreTheChannelsDefaultOnesAndItsRecordsStayInThem() {
        int channels = ServerOptions.defaults().socketPath("/tmp/unused.sock").sharedMemory(true).freeze()
                .sharedMemoryRing();
        assertEquals(channels, JavaShmPingPong.RING_BYTES);
        int record = JavaShmPingPong.HEADER + 32;
        long off = 0;
        int laps = 0;
        for (int i = 0; i < 3 * JavaShmPingPong.RING_BYTES / record; i++) {
            long next = JavaShmPingPong.next(off, record);
            if (next == 0) laps++;
            else assertEquals(off + record, next);
            off = next;
            assertTrue(off + record <= JavaShmPingPong.RING_BYTES, "a record at " + off);
        }
        assertEquals(3, laps);
    }

    @ParameterizedTest
    @EnumSource(JavaShmPingPong.Layout.class)
    void aJavaPingPongSideWhosePartnerGaveUpEndsInsteadOfSpinningForEver(JavaShmPingPong.Layout layout)
            throws Exception {
        boolean ring = layout == JavaShmPingPong.Layout.RING;
        String name = ring ? "java ring ping-pong" : "java ping-pong";
        try (Arena arena = Arena.ofConfined()) {
            // room for either layout
            MemorySegment page = arena.allocate(JavaShmPingPong.REQUEST_RING + 2L * JavaShmPingPong.RING_BYTES);
            page.set(ValueLayout.JAVA_LONG, JavaShmPingPong.REQUEST_SEQ, JavaShmPingPong.GAVE_UP);
            IOException server = assertThrows(IOException.class, () -> {
                if (ring) JavaShmPingPong.serveRing(page, 32, 10);
                else JavaShmPingPong.serve(page, 32, 10);
            });
            assertEquals(name + ": the client gave up", server.getMessage());
            page.set(ValueLayout.JAVA_LONG, JavaShmPingPong.ANSWER_SEQ, JavaShmPingPong.GAVE_UP);
            Histogram latency = new Histogram(1_000_000L, 2);
            IOException client = assertThrows(IOException.class, () -> {
                if (ring) JavaShmPingPong.callRing(page, 32, 10, latency);
                else JavaShmPingPong.call(page, 32, 10, latency);
            });
            assertEquals(name + ": the server gave up", client.getMessage());
        }
    }

    @Test
    void theJavaRingPingPongsServerEndsOnARequestRecordOfAnotherLength() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment page = arena.allocate(JavaShmPingPong.REQUEST_RING + 2L * JavaShmPingPong.RING_BYTES);
            // request 1 published with a record of 31 bytes, where 32 were agreed
            page.set(ValueLayout.JAVA_LONG, JavaShmPingPong.REQUEST_SEQ, 1);
            page.set(ValueLayout.JAVA_INT_UNALIGNED, JavaShmPingPong.REQUEST_RING + 8, 31);
            IOException bad = assertThrows(IOException.class, () -> JavaShmPingPong.serveRing(page, 32, 1));
            assertEquals("java ring ping-pong: request 1 is not of 32 bytes", bad.getMessage());
            assertEquals(0L, page.get(ValueLayout.JAVA_LONG, JavaShmPingPong.ANSWER_SEQ), "no answer published");
        }
    }
}
