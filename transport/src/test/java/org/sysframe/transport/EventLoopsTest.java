package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.LoopsIndependent;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.testsupport.ProcessProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.ThreadSyscall;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A server with several event loops: connections spread over them, events cross them, close stops them all. */
@EachBackend
@LoopsIndependent
class EventLoopsTest {
    @TempDir Path dir;

    private static final int PUBLISH = GroutApi.type(0x5e11, 1);
    private static final int EV = GroutApi.type(0x5e11, 0x100);

    private static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (seed + 31 * i);
        return b;
    }

    private static void awaitConnections(GroutServer s, int n) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (s.connectionCount() != n && System.nanoTime() < deadline) Thread.sleep(1);
        assertEquals(n, s.connectionCount(), "open connections");
    }

    @Test
    void sixtyFourClientsOverFourLoopsAreAllAnsweredByteExact() throws Exception {
        String path = dir.resolve("loops.sock").toString();
        try (GroutServer s = GroutServer.start(ServerOptions.defaults().socketPath(path).loops(4))) {
            assertEquals(4, s.loopCount());
            Set<Integer> tids = new HashSet<>();
            for (int i = 0; i < 4; i++) tids.add(s.loopThreadId(i));
            assertEquals(4, tids.size(), "one thread per loop");
            // Clients are thread-confined: each of 8 threads connects and drives 8 of them.
            ExecutorService pool = Executors.newFixedThreadPool(8);
            CyclicBarrier allConnected = new CyclicBarrier(9);
            CountDownLatch checked = new CountDownLatch(1);
            List<Future<Long>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int seed = t;
                done.add(pool.submit(() -> {
                    List<GroutClient> mine = new ArrayList<>();
                    long answered = 0;
                    try (Arena a = Arena.ofConfined()) {
                        for (int i = 0; i < 8; i++) mine.add(GroutClient.connect(path));
                        allConnected.await();
                        checked.await();
                        for (int round = 0; round < 200; round++) {
                            for (GroutClient c : mine) {
                                byte[] want = pattern(1 + (round * 37 + seed) % 3000, round + seed);
                                MemorySegment p = a.allocate(want.length);
                                MemorySegment.copy(want, 0, p, JAVA_BYTE, 0, want.length);
                                assertArrayEquals(want, c.call(GroutApi.PING, p).toByteArray());
                                answered++;
                            }
                        }
                    } finally {
                        for (GroutClient c : mine) c.close();
                    }
                    return answered;
                }));
            }
            allConnected.await();
            awaitConnections(s, 64);
            assertEquals(64, s.openConnections().size());
            checked.countDown();
            long total = 0;
            for (Future<Long> f : done) total += f.get();
            pool.shutdown();
            assertEquals(64 * 200, total);
            awaitConnections(s, 0);
            List<ConnectionStats> closed = s.closedConnections();
            assertEquals(64, closed.size());
            long requests = 0;
            for (ConnectionStats c : closed) requests += c.requests();
            assertEquals(64 * 201, requests, "every ping and every hello reached a handler once");
        }
    }

    @Test
    void connectionsGoToTheLeastLoadedLoop() throws Exception {
        String path = dir.resolve("balance.sock").toString();
        // counts sendto per loop
        try (GroutServer s = GroutServer.start(ServerOptions.defaults().socketPath(path).backend(Backend.EPOLL)
                .loops(4))) {
            List<GroutClient> clients = new ArrayList<>();
            try {
                for (int i = 0; i < 8; i++) clients.add(GroutClient.connect(path));
                awaitConnections(s, 8);
                // Each loop's counters saw exactly two connections' hellos: 2 recvfrom + 2 sendto of data per loop.
                // The library counts a send when it returns, after the client may already have the answer.
                for (int i = 0; i < 4; i++) ThreadSyscall.awaitParked(s.loopThreadId(i), Duration.ofSeconds(10));
                StringBuilder all = new StringBuilder();
                for (int i = 0; i < 4; i++) all.append(" loop ").append(i).append(": ")
                        .append(s.loopCounters(i).snapshot());
                for (int i = 0; i < 4; i++) {
                    SyscallCounts c = s.loopCounters(i).snapshot();
                    assertEquals(2, c.get(SyscallKind.SENDTO), "loop " + i + " answered two hellos;" + all);
                }
            } finally {
                for (GroutClient c : clients) c.close();
            }
        }
    }

    @Test
    void anEventPublishedOnOneLoopReachesTheSubscribersOfEveryLoopExactlyOnce() throws Exception {
        String path = dir.resolve("fanout.sock").toString();
        ServerOptions o = ServerOptions.defaults().socketPath(path).loops(3)
                .handle(PUBLISH, 4, (req, reply) -> {
                    reply.publish(EV, req.buffer(), req.offset(), req.length());
                    reply.ok();
                });
        try (GroutServer s = GroutServer.start(o); Arena a = Arena.ofConfined()) {
            List<GroutClient> subscribers = new ArrayList<>();
            try {
                for (int i = 0; i < 6; i++) {
                    GroutClient c = GroutClient.connect(path);
                    c.subscribe(EV, false);
                    subscribers.add(c);
                }
                try (GroutClient publisher = GroutClient.connect(path)) {
                    for (int k = 0; k < 20; k++) {
                        byte[] ev = pattern(16 + k, k);
                        MemorySegment p = a.allocate(ev.length);
                        MemorySegment.copy(ev, 0, p, JAVA_BYTE, 0, ev.length);
                        publisher.call(PUBLISH, p);
                    }
                }
                for (GroutClient c : subscribers) {
                    for (int k = 0; k < 20; k++) {
                        Event e = c.nextEvent(Duration.ofSeconds(10));
                        assertEquals(EV, e.type());
                        assertArrayEquals(pattern(16 + k, k), e.toByteArray(), "event " + k + " in order, once");
                    }
                    assertEquals(0, c.pendingEvents());
                    c.call(GroutApi.PING); // no further event was waiting before this answer
                    assertEquals(0, c.pendingEvents(), "no event twice");
                }
            } finally {
                for (GroutClient c : subscribers) c.close();
            }
        }
    }

    @Test
    @NeedsKernelCounter
    void libraryAndKernelCountsAgreeOnEveryLoopThread() throws Exception {
        String path = dir.resolve("counts.sock").toString();
        // epoll counts
        try (GroutServer s = GroutServer.start(ServerOptions.defaults().socketPath(path).backend(Backend.EPOLL)
                .loops(2))) {
            List<KernelSyscallCounter> kernel = new ArrayList<>();
            for (int i = 0; i < 2; i++) kernel.add(KernelSyscallCounter.forThread(s.loopThreadId(i)));
            try (GroutClient a = GroutClient.connect(path); GroutClient b = GroutClient.connect(path); Arena arena =
                    Arena.ofConfined()) {
                MemorySegment p = arena.allocate(32);
                SyscallCounts[] lib0 = new SyscallCounts[2], ker0 = new SyscallCounts[2];
                for (int i = 0; i < 2; i++) {
                    ThreadSyscall.awaitParked(s.loopThreadId(i), Duration.ofSeconds(10));
                    lib0[i] = s.loopCounters(i).snapshot();
                    ker0[i] = kernel.get(i).read();
                }
                for (int n = 0; n < 500; n++) {
                    a.call(GroutApi.PING, p);
                    b.call(GroutApi.PING, p);
                }
                for (int i = 0; i < 2; i++) {
                    ThreadSyscall.awaitParked(s.loopThreadId(i), Duration.ofSeconds(10));
                    SyscallCounts lib = s.loopCounters(i).snapshot().minus(lib0[i]);
                    SyscallCounts ker = kernel.get(i).read().minus(ker0[i]);
                    assertEquals(lib, ker, "loop " + i + ": library vs kernel");
                    assertEquals(500, lib.get(SyscallKind.RECVFROM), "loop " + i + " served one client: " + lib);
                    assertEquals(500, lib.get(SyscallKind.SENDTO), "loop " + i + ": " + lib);
                }
            } finally {
                for (KernelSyscallCounter k : kernel) k.close();
            }
        }
    }

    @Test
    void closeWhileEveryLoopHasTrafficInFlightLeavesFdsAndNativeMemoryWhereTheyStarted() throws Exception {
        String path = dir.resolve("busy.sock").toString();
        // Warm up once so that class loading and first-use allocations are not counted.
        runBusyAndClose(path, 16);
        long fds0 = ProcessProbe.openFds();
        ProcessProbe.Nmt nmt0 = ProcessProbe.nativeMemory();
        for (int round = 0; round < 10; round++) runBusyAndClose(path, 16);
        long fds1 = ProcessProbe.openFds();
        ProcessProbe.Nmt nmt1 = ProcessProbe.nativeMemory();
        System.out.printf("close under traffic x10 (4 loops, 16 clients): fds %d -> %d, NMT Other %d -> %d bytes%n",
                fds0, fds1, nmt0.otherCommitted(), nmt1.otherCommitted());
        assertEquals(fds0, fds1, "open fds");
        // One leaked loop (its epoll event array alone is 3 KiB) per server would add over 120 KiB here.
        assertTrue(nmt1.otherCommitted() - nmt0.otherCommitted() < 32 * 1024,
                "native memory (NMT Other) grew after 10 closes");
    }

    private static void runBusyAndClose(String path, int clients) throws Exception {
        GroutServer s = GroutServer.start(ServerOptions.defaults().socketPath(path).loops(4));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong answered = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < clients; t++) {
            Thread th = new Thread(() -> {
                try (GroutClient c = GroutClient.connect(path); Arena a = Arena.ofConfined()) {
                    MemorySegment p = a.allocate(2048);
                    while (!stop.get()) {
                        c.call(GroutApi.PING, p);
                        answered.incrementAndGet();
                    }
                } catch (Exception expected) {
                    // the server closes under it: ECONNRESET or EPIPE
                }
            });
            th.start();
            threads.add(th);
        }
        while (answered.get() < 2000) Thread.sleep(1);
        s.close();
        stop.set(true);
        for (Thread th : threads) th.join(10_000);
        for (Thread th : threads) assertTrue(!th.isAlive(), "a client hangs after the server closed");
        assertEquals(0, s.connectionCount());
        assertNotEquals(0, answered.get());
        assertTrue(!Files.exists(Path.of(path)), "socket file removed");
    }
}
