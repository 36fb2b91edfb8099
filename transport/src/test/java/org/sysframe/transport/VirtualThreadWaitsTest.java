package org.sysframe.transport;

import org.sysframe.transport.support.Heartbeat;

import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.transport.support.BackendSuite;
import org.sysframe.transport.support.LoopsIndependent;
import org.sysframe.transport.support.RawServer;
import org.sysframe.transport.support.TestServers;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.uring.UringSupport;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.util.EnumSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Virtual threads waiting for a server never pin their carriers: twice as many waiters as the
 * virtual-thread scheduler has carriers (2 on this machine's 2 cores) wait on a server that never
 * answers, on a client each and as many again on one client they share (epoll, and io_uring where it
 * is available), and a heartbeat virtual thread keeps beating all the while (with a blocking recv on
 * each carrier it would count 0 beats); 10,000 virtual threads calling one client (epoll, io_uring,
 * the shared-memory channel) record no {@code jdk.VirtualThreadPinned} event.
 */
@LoopsIndependent
class VirtualThreadWaitsTest {
    private static final int CARRIERS = Integer.getInteger("jdk.virtualThreadScheduler.parallelism",
            Runtime.getRuntime().availableProcessors());

    @TempDir Path dir;


    @Test
    void aHeartbeatKeepsBeatingWhileVirtualThreadsWaitOnAServerThatNeverAnswers() throws Exception {
        heartbeatWhileWaiting(Backend.EPOLL);
    }

    @Test
    void aHeartbeatKeepsBeatingWhileVirtualThreadsWaitOnIoUringClients() throws Exception {
        String why = BackendSuite.skipReason(Backend.IO_URING, UringSupport.unavailableReason());
        Assumptions.assumeTrue(why == null, why);
        heartbeatWhileWaiting(Backend.IO_URING);
    }

    /**
     * 2 x CARRIERS clients on backend, one per waiter, and as many callers of one client they share wait on silent
     * servers; the heartbeat beats.
     */
    private void heartbeatWhileWaiting(Backend backend) throws Exception {
        String path = dir.resolve("silent-" + backend + ".sock").toString();
        int waiters = 2 * CARRIERS;
        List<RawServer> servers = new ArrayList<>();
        try {
            // One silent server per own client (a raw server takes one connection), one for the client the others
            // share.
            for (int i = 0; i <= waiters; i++) {
                servers.add(new RawServer(path + i, conn -> {
                    while (true) conn.readRequest(); // reads, never answers, until the client goes
                }));
            }
            Heartbeat heart = new Heartbeat();
            ConcurrentLinkedQueue<Long> beatsDuringWaits = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<String> outcomes = new ConcurrentLinkedQueue<>();
            ClientOptions shared = ClientOptions.defaults().socketPath(path + waiters).backend(backend)
                    .receiveTimeoutMillis(1500);
            try (GroutClient sc = GroutClient.connect(shared)) {
                assertEquals(backend, sc.backend());
                List<Thread> threads = new ArrayList<>();
                for (int i = 0; i < waiters; i++) {
                    String p = path + i;
                    threads.add(Thread.ofVirtual().start(() -> {
                        try (GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(p).backend(backend)
                                .receiveTimeoutMillis(1500))) {
                            assertEquals(backend, c.backend());
                            long b0 = heart.beats();
                            try {
                                c.call(GroutApi.PING);
                            } finally {
                                beatsDuringWaits.add(heart.beats() - b0);
                            }
                            outcomes.add("answered");
                        } catch (Exception e) {
                            outcomes.add(e instanceof ErrnoException x ? x.errnoName() : e.toString());
                        }
                    }));
                    threads.add(Thread.ofVirtual().start(() -> {
                        long b0 = heart.beats();
                        try {
                            sc.call(GroutApi.PING);
                            outcomes.add("answered");
                        } catch (Exception e) {
                            outcomes.add(e instanceof ErrnoException x ? x.errnoName() : e.toString());
                        } finally {
                            beatsDuringWaits.add(heart.beats() - b0);
                        }
                    }));
                }
                for (Thread t : threads) t.join(20_000);
                for (Thread t : threads) assertFalse(t.isAlive(), "a waiter hangs");
            }
            heart.close();
            assertEquals(List.of("ETIMEDOUT"), outcomes.stream().distinct().toList(),
                    "every wait ended by its receive timeout");
            assertEquals(2 * waiters, outcomes.size());
            // A 1.5 s wait sees about 300 beats of 5 ms; with the waits pinning the carriers a run saw 4 beats in all.
            long fewest = beatsDuringWaits.stream().mapToLong(Long::longValue).min().orElseThrow();
            assertTrue(fewest >= 20, "the heartbeat stopped while " + 2 * waiters + " virtual threads waited on "
                    + CARRIERS + " carriers: beats during each wait " + beatsDuringWaits);
        } finally {
            for (RawServer s : servers) s.close();
        }
    }

    /** How the pinning test's client reaches its server. */
    enum Over { EPOLL, IO_URING, SHARED_MEMORY }

    @ParameterizedTest
    @EnumSource(Over.class)
    void tenThousandVirtualThreadsOnOneClientRecordNoPinning(Over over) throws Exception {
        if (over == Over.IO_URING) {
            String why = BackendSuite.skipReason(Backend.IO_URING, UringSupport.unavailableReason());
            Assumptions.assumeTrue(why == null, why);
        }
        String path = dir.resolve("pinning.sock").toString();
        Path jfr = dir.resolve("pinning.jfr");
        ServerOptions so = ServerOptions.defaults().socketPath(path).sharedMemory(over == Over.SHARED_MEMORY);
        // 10,000 requests in flight at once: on a loaded machine the last answers came after the default 5 s receive
        // timeout once (ETIMEDOUT, which this test is not about); a minute bounds every wait still.
        ClientOptions co = ClientOptions.defaults().socketPath(path).backend(over == Over.IO_URING ? Backend.IO_URING
                : Backend.EPOLL)
                .sharedMemory(over == Over.SHARED_MEMORY).receiveTimeoutMillis(60_000);
        try (GroutServer server = TestServers.startEpoll(so);
             GroutClient c = GroutClient.connect(co);
             Recording rec = new Recording()) {
            assertEquals(over == Over.SHARED_MEMORY, c.sharedMemory());
            long calls0 = c.stats().calls();
            rec.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            // Not the client's own events: committing one takes a monitor of the JDK's (JFR's string pool), which
            // pins a virtual thread that finds it contended; this test is about the client's sends, receives and waits.
            rec.disable("org.sysframe.RoundTrip");
            rec.start();
            ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
                int me = i;
                threads.add(Thread.ofVirtual().start(() -> {
                    try (Arena a = Arena.ofConfined()) {
                        MemorySegment p = a.allocate(32);
                        for (int k = 0; k < 3; k++) {
                            p.set(ValueLayout.JAVA_INT_UNALIGNED, 0, me);
                            p.set(ValueLayout.JAVA_INT_UNALIGNED, 4, k);
                            Response r = c.call(GroutApi.PING, p, 0, 32);
                            if (r.length() != 32 || p.mismatch(r.payload()) != -1) failures.add("caller " + me
                                    + " call " + k + ": " + r);
                        }
                    } catch (Exception e) {
                        failures.add(e.toString());
                    }
                }));
            }
            for (Thread t : threads) t.join(60_000);
            rec.stop();
            rec.dump(jfr);
            for (Thread t : threads) assertFalse(t.isAlive(), "a caller hangs");
            assertEquals(List.of(), List.copyOf(failures));
            assertEquals(30_000, c.stats().calls() - calls0);
            assertEquals(0, c.stats().inFlight());
            List<RecordedEvent> pinned = RecordingFile.readAllEvents(jfr).stream()
                    .filter(e -> e.getEventType().getName().equals("jdk.VirtualThreadPinned")).toList();
            assertEquals(List.of(), pinned.stream().map(RecordedEvent::toString).toList());
        }
    }

    /**
     * An io_uring client on a virtual thread, alone: exactly one io_uring_enter per call (it submits the
     * SEND and the RECV and does not wait in it; the wait is a park in the poller, whose epoll_ctl
     * pair is not a kind the library counts), no send or recv syscall; library == kernel, the kernel's
     * io_uring_enter count summed over every thread of the JVM (the thread may run on any carrier;
     * the server is an epoll one, so nothing else enters a ring).
     */
    @Test
    @NeedsKernelCounter
    void aVirtualThreadsIoUringCallIsExactlyOneIoUringEnter() throws Exception {
        String why = BackendSuite.skipReason(Backend.IO_URING, UringSupport.unavailableReason());
        Assumptions.assumeTrue(why == null, why);
        String path = dir.resolve("uring-virtual.sock").toString();
        int calls = 1000;
        try (GroutServer server = TestServers.startEpoll(ServerOptions.defaults().socketPath(path))) {
            // Every carrier started before the kernel counters are opened on the JVM's threads.
            List<Thread> warm = new ArrayList<>();
            for (int i = 0; i < 4 * CARRIERS; i++) {
                warm.add(Thread.ofVirtual().start(() -> {
                    long end = System.nanoTime() + 50_000_000L;
                    while (System.nanoTime() < end) Thread.onSpinWait();
                }));
            }
            for (Thread t : warm) t.join();
            ConcurrentLinkedQueue<Object> result = new ConcurrentLinkedQueue<>();
            Thread caller = Thread.ofVirtual().unstarted(() -> {
                try (GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path)
                        .backend(Backend.IO_URING));
                     Arena a = Arena.ofConfined()) {
                    MemorySegment payload = a.allocate(32);
                    for (int i = 0; i < 100; i++) c.call(GroutApi.PING, payload, 0, 32); // warm-up
                    try (AllThreads k = AllThreads.count()) {
                        SyscallCounts l0 = c.counters().snapshot();
                        long k0 = k.ioUringEnters();
                        for (int i = 0; i < calls; i++) {
                            payload.set(ValueLayout.JAVA_INT_UNALIGNED, 0, i);
                            Response r = c.call(GroutApi.PING, payload, 0, 32);
                            if (r.length() != 32 || r.buffer().get(ValueLayout.JAVA_INT_UNALIGNED, r.offset()) != i) {
                                throw new AssertionError("answer " + i + " wrong");
                            }
                        }
                        result.add(c.counters().snapshot().minus(l0));
                        result.add(k.ioUringEnters() - k0);
                    }
                } catch (Throwable e) {
                    result.add(e);
                }
            });
            caller.start();
            caller.join(60_000);
            assertFalse(caller.isAlive(), "the caller hangs");
            List<Object> r = List.copyOf(result);
            if (r.get(0) instanceof Throwable t) throw new AssertionError(t);
            System.out.printf("io_uring client on a virtual thread, %d pings: library %s, kernel io_uring_enter %s%n",
                    calls, r.get(0), r.get(1));
            assertEquals(SyscallCounts.builder().ioUringEnter(calls).build(), r.get(0),
                    "exactly one io_uring_enter per call, nothing else");
            assertEquals((long) calls, r.get(1), "library == kernel (io_uring_enter, every thread of the JVM)");
        }
    }

    /**
     * An interrupted virtual thread waiting in an io_uring client gets EINTR at once (its receive
     * cancelled first, so the kernel writes nothing later), not after the receive timeout.
     */
    @Test
    void anInterruptedVirtualThreadOnIoUringGetsEintr() throws Exception {
        String why = BackendSuite.skipReason(Backend.IO_URING, UringSupport.unavailableReason());
        Assumptions.assumeTrue(why == null, why);
        String path = dir.resolve("uring-interrupt.sock").toString();
        CountDownLatch requested = new CountDownLatch(1);
        try (RawServer server = new RawServer(path, conn -> {
            conn.readRequest();
            requested.countDown();
            conn.awaitEof();
        })) {
            ConcurrentLinkedQueue<String> outcome = new ConcurrentLinkedQueue<>();
            Thread caller = Thread.ofVirtual().start(() -> {
                try (GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path)
                        .backend(Backend.IO_URING)
                        .receiveTimeoutMillis(30_000))) {
                    c.call(GroutApi.PING);
                    outcome.add("answered");
                } catch (Exception e) {
                    outcome.add(e.getMessage());
                }
            });
            assertTrue(requested.await(10, TimeUnit.SECONDS), "the request never came");
            caller.interrupt();
            caller.join(10_000);
            assertFalse(caller.isAlive(), "the interrupted caller still waits");
            assertEquals(
                    List.of("GR_PING: EINTR (4) Interrupted system call: interrupted while waiting for the answer to "
                    + "request 2"),
                    List.copyOf(outcome));
        }
    }

    /** The kernel's io_uring_enter count over every thread of this JVM alive when opened. */
    private static final class AllThreads implements AutoCloseable {
        private final List<KernelSyscallCounter> counters = new ArrayList<>();

        static AllThreads count() throws Exception {
            AllThreads all = new AllThreads();
            try (var tasks = Files.list(Path.of("/proc/self/task"))) {
                for (Path t : tasks.toList()) {
                    try {
                        all.counters.add(KernelSyscallCounter.forThread(Integer.parseInt(t.getFileName().toString()),
                                EnumSet.of(SyscallKind.IO_URING_ENTER)));
                    } catch (KernelSyscallCounter.Unavailable gone) {
                        // a thread that ended meanwhile
                    }
                }
            }
            return all;
        }

        long ioUringEnters() {
            long n = 0;
            for (KernelSyscallCounter k : counters) n += k.read().get(SyscallKind.IO_URING_ENTER);
            return n;
        }

        @Override
        public void close() {
            for (KernelSyscallCounter k : counters) k.close();
        }
    }
}
