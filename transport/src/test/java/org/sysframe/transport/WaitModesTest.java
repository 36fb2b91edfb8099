package org.sysframe.transport;

import org.sysframe.transport.wire.GroutApi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.transport.support.RawServer;
import org.sysframe.transport.support.ServerFixture;
import org.sysframe.unix.CpuPlacement;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.ThreadSyscall;
import org.sysframe.unix.uring.UringCounts;
import org.sysframe.unix.uring.UringOp;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.BitSet;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Wait modes and CPU placement of client and server loop, with the empty calls of a spin counted apart. */
class WaitModesTest {
    @RegisterExtension
    final ServerFixture fx = new ServerFixture();

    private static final int CALLS = 1000;

    @Test
    void waitModesParseAndBadOnesSayWhatIsAccepted() {
        assertEquals(WaitMode.BLOCK, WaitMode.parse("block"));
        assertEquals(WaitMode.SPIN, WaitMode.parse("spin"));
        assertEquals(WaitMode.YIELD, WaitMode.parse("yield"));
        assertEquals(WaitMode.spinThenBlock(Duration.ofNanos(50_000)), WaitMode.parse("spin:50us"));
        assertEquals("spin:50us", WaitMode.parse("spin:50us").toString());
        assertEquals("spin:2ms", WaitMode.parse("spin:2000us").toString());
        assertEquals("wait mode 'sleep': expected block, spin, spin:DURATION (e.g. spin:50us) or yield",
                assertThrows(IllegalArgumentException.class, () -> WaitMode.parse("sleep")).getMessage());
        for (String bad : new String[] {"spin:0us", "spin:-5us", "spin:abc", "spin:11s", "spin:50", "spin:"}) {
            assertEquals("wait mode '" + bad
                    + "': the spin budget must be a whole number of ns, us, ms or s, more than 0 and at most 10 s "
                            + "(e.g. spin:50us)",
                    assertThrows(IllegalArgumentException.class, () -> WaitMode.parse(bad)).getMessage());
        }
    }

    private SyscallCounts[] pingAll(GroutClient c, KernelSyscallCounter k, int payload) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(payload);
            SyscallCounts l0 = c.counters().snapshot(), e0 = c.counters().emptySnapshot(), k0 = k == null ? null
                    : k.read();
            for (int i = 0; i < CALLS; i++) assertEquals(payload, c.call(GroutApi.PING, p).length());
            SyscallCounts l1 = c.counters().snapshot(), e1 = c.counters().emptySnapshot(), k1 = k == null ? null
                    : k.read();
            return new SyscallCounts[] {l1.minus(l0), e1.minus(e0), k == null ? null : k1.minus(k0)};
        }
    }

    @Test
    @NeedsKernelCounter
    void aSpinningClientMakesOneDataRecvPerCallAndItsEmptyRecvsAreCountedApartAndByTheKernel() throws Exception {
        String path = fx.path("spin.sock");
        fx.start(ServerOptions.defaults().socketPath(path));
        try (GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL)
                .waitMode(WaitMode.SPIN));
             KernelSyscallCounter k = KernelSyscallCounter.forCurrentThread()) {
            SyscallCounts[] r = pingAll(c, k, 32);
            SyscallCounts lib = r[0], empty = r[1], kernel = r[2];
            System.out.printf("spin client, %d x 32 B: library %s (empty: %s), kernel %s%n", CALLS, lib, empty, kernel);
            assertEquals(lib, kernel, "library vs kernel");
            assertEquals(CALLS, lib.get(SyscallKind.SENDTO), "one copy+send per call");
            assertEquals(CALLS, lib.get(SyscallKind.RECVFROM) - empty.get(SyscallKind.RECVFROM),
                    "one recv with data per call");
            assertEquals(0, lib.get(SyscallKind.SCHED_YIELD), "a spin never yields");
        }
    }

    @Test
    @NeedsKernelCounter
    void aYieldingClientYieldsExactlyOnceAfterEachEmptyRecv() throws Exception {
        String path = fx.path("yield.sock");
        fx.start(ServerOptions.defaults().socketPath(path));
        try (GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL)
                .waitMode(WaitMode.YIELD));
             KernelSyscallCounter k = KernelSyscallCounter.forCurrentThread()) {
            SyscallCounts[] r = pingAll(c, k, 32);
            SyscallCounts lib = r[0], empty = r[1], kernel = r[2];
            System.out.printf("yield client, %d x 32 B: library %s (empty: %s), kernel %s%n", CALLS, lib, empty,
                    kernel);
            assertEquals(lib, kernel, "library vs kernel");
            assertEquals(CALLS, lib.get(SyscallKind.RECVFROM) - empty.get(SyscallKind.RECVFROM));
            assertEquals(empty.get(SyscallKind.RECVFROM), lib.get(SyscallKind.SCHED_YIELD),
                    "one sched_yield per empty recv");
        }
    }

    @Test
    void aBlockingClientMakesNoEmptyCall() throws Exception {
        String path = fx.path("block.sock");
        fx.start(ServerOptions.defaults().socketPath(path));
        try (GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL))) {
            SyscallCounts[] r = pingAll(c, null, 32);
            assertEquals(CALLS, r[0].get(SyscallKind.RECVFROM), "one recv per call; all calls: " + r[0] + ", empty: "
                    + r[1]);
            assertEquals(SyscallCounts.ZERO, r[1], "no empty call");
        }
    }

    @Test
    void aSpinThenBlockClientWaitingOneSecondForNothingUsesLittleCpuAndTimesOut() throws Exception {
        String path = fx.path("silent.sock");
        try (RawServer silent = new RawServer(path, conn -> {
            conn.readRequest();   // the ping, never answered
            conn.awaitEof();
        })) {
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            try (GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path)
                    .waitMode(WaitMode.parse("spin:50us")).receiveTimeoutMillis(1000))) {
                long cpu0 = threads.getCurrentThreadCpuTime();
                ErrnoException e = assertThrows(ErrnoException.class, () -> c.call(GroutApi.PING));
                long cpuNs = threads.getCurrentThreadCpuTime() - cpu0;
                System.out.printf("spin:50us client waiting 1 s for nothing: %.1f ms of CPU%n", cpuNs / 1e6);
                assertEquals(Errno.ETIMEDOUT, e.errno(), e.getMessage());
                assertTrue(cpuNs <= 60_000_000L, "CPU used while waiting: " + cpuNs / 1_000_000 + " ms");
            }
        }
    }

    @Test
    void theReceiveTimeoutHoldsWhileSpinningAndYielding() throws Exception {
        for (WaitMode mode : new WaitMode[] {WaitMode.SPIN, WaitMode.YIELD}) {
            String path = fx.path("timeout-" + mode + ".sock");
            try (RawServer silent = new RawServer(path, conn -> {
                conn.readRequest();
                conn.awaitEof();
            }); GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL)
                    .waitMode(mode).receiveTimeoutMillis(200))) {
                ErrnoException e = assertThrows(ErrnoException.class, () -> c.call(GroutApi.PING));
                assertEquals(Errno.ETIMEDOUT, e.errno(), mode + ": " + e.getMessage());
                assertTrue(c.counters().emptySnapshot().get(SyscallKind.RECVFROM) > 0, mode
                        + " tried without blocking");
            }
        }
    }

    @Test
    void aSpinningServerLoopAnswersWithOneRecvAndOneSendPerRequestAndCountsItsEmptyPolls() throws Exception {
        // Spin for 1 ms after the last event, then sleep: between the client's requests the loop spins,
        // and once the client is done it parks in epoll_wait, where both counters can be read exactly
        // (a loop that never sleeps has no instant where its total and empty counts agree).
        String path = fx.path("spin-server.sock");
        // epoll's counts
        GroutServer s = fx.startEpoll("spin-server.sock",
                ServerOptions.defaults().waitMode(WaitMode.parse("spin:1ms")));
        SyscallCounters loop = s.counters();
        try (GroutClient c = GroutClient.connect(path)) {
            ThreadSyscall.awaitParked(s.loopThreadId(), Duration.ofSeconds(10));
            SyscallCounts l0 = loop.snapshot(), e0 = loop.emptySnapshot();
            pingAll(c, null, 32);
            ThreadSyscall.awaitParked(s.loopThreadId(), Duration.ofSeconds(10));
            SyscallCounts lib = loop.snapshot().minus(l0), empty = loop.emptySnapshot().minus(e0);
            System.out.printf("spin:1ms server loop, %d x 32 B: %s (empty: %s)%n", CALLS, lib, empty);
            assertEquals(CALLS, lib.get(SyscallKind.RECVFROM), "one recv per request");
            assertEquals(0, empty.get(SyscallKind.RECVFROM), "readiness means data: no empty recv");
            assertEquals(CALLS, lib.get(SyscallKind.SENDTO), "one copy+send per answer");
            assertEquals(CALLS, lib.get(SyscallKind.EPOLL_WAIT) - empty.get(SyscallKind.EPOLL_WAIT),
                    "one poll with an event per request");
            assertTrue(empty.get(SyscallKind.EPOLL_WAIT) > 0, "a spinning loop polls in vain between requests");
        }
    }

    /**
     * The io_uring counterpart: a spinning io_uring loop spins on its completion queue in user space
     * (an empty spin is no syscall) and enters the kernel only to submit each answer's SEND, and once
     * to sleep when its budget is spent (parked, where the counts are read).
     */
    @Test
    void aSpinningIoUringServerLoopEntersTheKernelOnlyToSubmitAndToSleep() throws Exception {
        String path = fx.path("spin-uring.sock");
        GroutServer s = GroutServer.start(ServerOptions.defaults().socketPath(path).backend(Backend.IO_URING)
                .waitMode(WaitMode.parse("spin:1ms")));
        fx.track(s);
        SyscallCounters loop = s.counters();
        try (GroutClient c = GroutClient.connect(path)) {
            c.call(GroutApi.PING);
            ThreadSyscall.awaitParked(s.loopThreadId(), Duration.ofSeconds(10));
            SyscallCounts l0 = loop.snapshot();
            UringCounts u0 = s.loopUringCounts(0);
            pingAll(c, null, 32);
            ThreadSyscall.awaitParked(s.loopThreadId(), Duration.ofSeconds(10));
            SyscallCounts lib = loop.snapshot().minus(l0);
            UringCounts u = s.loopUringCounts(0).minus(u0);
            long enters = lib.get(SyscallKind.IO_URING_ENTER);
            System.out.printf("spin:1ms io_uring server loop, %d x 32 B: %s | %s%n", CALLS, lib, u);
            assertEquals(enters, lib.total(), "nothing but io_uring_enter: " + lib);
            assertEquals(CALLS, u.sqes(UringOp.SEND), "one SEND per answer");
            // One enter per answer to submit it, plus one per sleep: at least once at the end, and
            // once per gap between requests longer than the 1 ms budget (not counted on, not a timing assertion).
            assertTrue(enters >= CALLS + 1 && enters <= 2L * CALLS + 1, enters + " io_uring_enter for " + CALLS
                    + " requests");
        }
    }

    @Test
    void aSpinThenBlockServerLoopSleepsInEpollWaitOnceItsBudgetIsSpent() throws Exception {
        String path = fx.path("spin-block.sock");
        GroutServer s = fx.start(ServerOptions.defaults().socketPath(path).waitMode(WaitMode.parse("spin:1ms")));
        try (GroutClient c = GroutClient.connect(path)) {
            c.call(GroutApi.PING);
            ThreadSyscall.awaitParked(s.loopThreadId(), Duration.ofSeconds(10));
            long sleeping = s.counters().snapshot().total(); // epoll_wait, or io_uring_enter on io_uring
            Thread.sleep(50);
            assertEquals(sleeping, s.counters().snapshot().total(), "an idle loop past its budget makes no call");
        }
    }

    private static String cpusAllowed(int tid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/task/" + tid + "/status"))) {
            if (line.startsWith("Cpus_allowed_list:")) return line.substring(line.indexOf(':') + 1).trim();
        }
        throw new IOException("no Cpus_allowed_list for thread " + tid);
    }

    @Test
    void loopsAndClientsArePinnedWhereAsked() throws Exception {
        BitSet allowed = CpuPlacement.allowedCpus();
        int last = allowed.length() - 1;
        String path = fx.path("pinned.sock");
        GroutServer s = fx.start(ServerOptions.defaults().socketPath(path).loops(2).cpus(last));
        assertEquals(Integer.toString(last), cpusAllowed(s.loopThreadId(0)));
        assertEquals(Integer.toString(last), cpusAllowed(s.loopThreadId(1)), "cpus repeat over the loops");
        CompletableFuture<String> clientCpus = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try (GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).cpu(0))) {
                c.call(GroutApi.PING);
                clientCpus.complete(CpuPlacement.describe(CpuPlacement.allowedCpus()) + " on "
                        + CpuPlacement.currentCpu());
            } catch (Throwable e) {
                clientCpus.completeExceptionally(e);
            }
        });
        t.start();
        assertEquals("{0} on 0", clientCpus.get());
    }

    @Test
    void aCpuOutsideTheAllowedSetIsRefusedWithOneLineAndChangesNothing() throws Exception {
        BitSet before = CpuPlacement.allowedCpus();
        String set = CpuPlacement.describe(before);
        String path = fx.path("badcpu.sock");
        fx.start(ServerOptions.defaults().socketPath(path));
        ErrnoException client = assertThrows(ErrnoException.class,
                () -> GroutClient.connect(ClientOptions.defaults().socketPath(path).cpu(999)).close());
        assertEquals(Errno.EINVAL, client.errno());
        assertTrue(client.getMessage().endsWith("CPU 999 is not in this process's allowed set " + set),
                client.getMessage());
        assertEquals(before, CpuPlacement.allowedCpus(), "the thread's placement is unchanged");
        String other = fx.path("badcpu-server.sock");
        IOException server = assertThrows(IOException.class, () ->
                GroutServer.start(ServerOptions.defaults().socketPath(other).cpus(999)));
        assertTrue(server.getMessage()
                .startsWith("server loop 0 failed to start: sched_setaffinity(CPU 999): EINVAL (22)"),
                        server.getMessage());
        assertTrue(!Files.exists(Path.of(other)), "the socket file of the server that did not start is removed");
    }
}
