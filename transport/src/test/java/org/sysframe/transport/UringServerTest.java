package org.sysframe.transport;

import org.sysframe.testsupport.Awaits;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.ThreadSyscall;
import org.sysframe.unix.UnixSocket;
import org.sysframe.unix.uring.UringCounts;
import org.sysframe.unix.uring.UringOp;
import org.sysframe.unix.uring.UringSupport;
import org.sysframe.transport.support.PipelinedPings;
import org.sysframe.transport.support.ServerFixture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.text.MessageFormat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;




import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The io_uring server driver on real sockets, whatever -Dsysframe.backend says (every server here
 * states its backend): exact io_uring_enter counts against the kernel's, SQEs and CQEs per request,
 * a peer gone with operations in flight, a full completion queue, and the backend's choice and fallback.
 */
class UringServerTest {
    static final int CALLS = 1000;
    static final int PAYLOAD = 32;

    @TempDir Path dir;

    private static ServerOptions uring(String path) {
        return ServerOptions.defaults().socketPath(path).backend(Backend.IO_URING);
    }

    @Test
    void ioUringIsAvailableHere() {
        assertNull(UringSupport.unavailableReason());
    }

    @Test
    @NeedsKernelCounter
    void oneClientCostsTheServerOneIoUringEnterAndOneSendPerRequestAsTheKernelCountsIt() throws Exception {
        String path = dir.resolve("one.sock").toString();
        try (GroutServer s = GroutServer.start(uring(path));
             GroutClient c = GroutClient.connect(ServerFixture.clientOptions(path));
             Arena a = Arena.ofConfined();
             KernelSyscallCounter sk = KernelSyscallCounter.forThread(s.loopThreadId())) {
            assertEquals(Backend.IO_URING, s.backend());
            MemorySegment payload = a.allocate(PAYLOAD);
            for (int i = 0; i < PAYLOAD; i++) payload.set(JAVA_BYTE, i, (byte) (i * 7));
            c.call(GroutApi.PING, payload, 0, PAYLOAD); // the connection's receive is armed and its area made
            ThreadSyscall.awaitParked(s.loopThreadId(), Duration.ofSeconds(10));
            SyscallCounts l0 = s.loopCounters(0).snapshot(), k0 = sk.read();
            UringCounts u0 = s.loopUringCounts(0);
            for (int i = 0; i < CALLS; i++) {
                Response r = c.call(GroutApi.PING, payload, 0, PAYLOAD);
                assertEquals(PAYLOAD, r.length());
                assertEquals((byte) 217, r.getByte(31));
            }
            ThreadSyscall.awaitParked(s.loopThreadId(), Duration.ofSeconds(10));
            SyscallCounts library = s.loopCounters(0).snapshot().minus(l0), kernel = sk.read().minus(k0);
            UringCounts u = s.loopUringCounts(0).minus(u0);
            System.out.printf("io_uring server, 1 client, %d x %d B: library %s kernel %s | %s%n", CALLS, PAYLOAD,
                    library, kernel, u);
            assertEquals(library, kernel, "server loop: library vs kernel");
            assertEquals(SyscallCounts.builder().ioUringEnter(CALLS).build(), library,
                    "one io_uring_enter per request, nothing else");
            assertEquals(0, kernel.get(SyscallKind.RECVFROM) + kernel.get(SyscallKind.SENDTO)
                    + kernel.get(SyscallKind.EPOLL_WAIT));
            assertEquals(CALLS, u.sqes(UringOp.SEND));
            assertEquals(CALLS, u.sqes(UringOp.NOP), "each SEND's linked NOP (it completes only for a short send)");
            assertEquals("1 SEND + 1 NOP", u.describe(CALLS).replace("1 NOP + 1 SEND", "1 SEND + 1 NOP"),
                    "no other SQE: " + u);
            assertEquals(2L * CALLS, u.cqes(), "a receive and a send completion per request");
        }
    }

    @Test
    @NeedsKernelCounter
    void fourClientsCostTheServerAtMostOneIoUringEnterPerRequest() throws Exception {
        String path = dir.resolve("four.sock").toString();
        int clients = 4;
        try (GroutServer s = GroutServer.start(uring(path));
             KernelSyscallCounter sk = KernelSyscallCounter.forThread(s.loopThreadId())) {
            CyclicBarrier connected = new CyclicBarrier(clients + 1);
            CyclicBarrier go = new CyclicBarrier(clients + 1);
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int k = 0; k < clients; k++) {
                Thread t = new Thread(() -> {
                    try (GroutClient c = GroutClient.connect(ServerFixture.clientOptions(path)); Arena a =
                            Arena.ofConfined()) {
                        MemorySegment p = a.allocate(PAYLOAD);
                        c.call(GroutApi.PING, p, 0, PAYLOAD);
                        connected.await();
                        go.await();
                        for (int i = 0; i < CALLS; i++) {
                            if (c.call(GroutApi.PING, p, 0, PAYLOAD).length()
                                    != PAYLOAD) throw new AssertionError("short echo");
                        }
                        connected.await(); // the window ends before anyone closes
                        go.await();
                    } catch (Throwable e) {
                        failures.add(e);
                        connected.reset();
                        go.reset();
                    }
                });
                threads.add(t);
                t.start();
            }
            connected.await();
            ThreadSyscall.awaitParked(s.loopThreadId(), Duration.ofSeconds(10));
            SyscallCounts l0 = s.loopCounters(0).snapshot(), k0 = sk.read();
            UringCounts u0 = s.loopUringCounts(0);
            go.await();
            connected.await();
            ThreadSyscall.awaitParked(s.loopThreadId(), Duration.ofSeconds(10));
            SyscallCounts library = s.loopCounters(0).snapshot().minus(l0), kernel = sk.read().minus(k0);
            UringCounts u = s.loopUringCounts(0).minus(u0);
            go.await();
            for (Thread t : threads) t.join();
            assertEquals(List.of(), failures);
            long requests = (long) clients * CALLS;
            long enters = library.get(SyscallKind.IO_URING_ENTER);
            System.out.printf("io_uring server, %d clients, %d requests: library %s kernel %s (%.3f io_uring_enter per "
                    + "request) | %s%n",
                    clients, requests, library, kernel, (double) enters / requests, u);
            assertEquals(library, kernel, "server loop: library vs kernel");
            assertTrue(enters <= requests, enters + " io_uring_enter for " + requests + " requests");
            assertEquals(enters, library.total(), "nothing but io_uring_enter: " + library);
            assertEquals(requests, u.sqes(UringOp.SEND), "one SEND per answer: " + u);
        }
    }

    /**
     * 50 pings written with one send: the server finds them in one receive completion and answers all
     * with one SEND at the end of the turn, in either flush mode (IMMEDIATE's 50 writes go into the
     * connection's area): one io_uring_enter (the next one is still waiting when the window closes, as
     * epoll's next epoll_wait would be), 1 SEND + its NOP, two CQEs.
     */
    @Test
    @NeedsKernelCounter
    void fiftyPipelinedPingsCostOneEnterAndOneSendInEitherFlushMode() throws Exception {
        int n = 50;
        for (FlushMode flush : FlushMode.values()) {
            String path = dir.resolve("pipe-" + flush + ".sock").toString();
            try (GroutServer s = GroutServer.start(uring(path).flush(flush));
                 UnixSocket raw = UnixSocket.connect(path);
                 Arena a = Arena.ofConfined();
                 KernelSyscallCounter sk = KernelSyscallCounter.forThread(s.loopThreadId())) {
                PipelinedPings pings = PipelinedPings.helloThenStage(raw, a, n, PAYLOAD);
                ThreadSyscall.awaitParked(s.loopThreadId(), Duration.ofSeconds(10));
                SyscallCounts l0 = s.counters().snapshot(), k0 = sk.read();
                UringCounts u0 = s.loopUringCounts(0);
                pings.sendAllAndCheckAnswers();
                ThreadSyscall.awaitParked(s.loopThreadId(), Duration.ofSeconds(10));
                SyscallCounts library = s.counters().snapshot().minus(l0), kernel = sk.read().minus(k0);
                UringCounts u = s.loopUringCounts(0).minus(u0);
                System.out.printf("io_uring server, %s, 50 pipelined pings: library %s kernel %s | %s%n", flush,
                        library, kernel, u);
                assertEquals(library, kernel, flush + ": library vs kernel");
                assertEquals(SyscallCounts.builder().ioUringEnter(1).build(), library, flush.toString());
                assertEquals(1, u.sqes(UringOp.SEND), flush + ": " + u);
                assertEquals(2, u.totalSqes(), flush + ": the SEND and its NOP only: " + u);
                // Reaped in the window: the hello answer's SEND completion (posted in the enter that was
                // waiting when it opened) and the 50 pings' receive; this SEND's is reaped by the next enter.
                assertEquals(2, u.cqes(), flush + ": the hello answer's send and the receive: " + u);
            }
        }
    }

    /** A raw client that writes requests and never reads: the server's sends fill its socket. */
    @Test
    void aPeerGoneWithReceivesAndSendsInFlightLeavesEveryBufferInTheRingAndTheServerServing() throws Exception {
        String path = dir.resolve("gone.sock").toString();
        ServerFixture.guard(() -> {
            try (GroutServer s = GroutServer.start(uring(path).socketBufferSize(4096)); Arena a = Arena.ofConfined()) {
                int rounds = 20;
                for (int round = 0; round < rounds; round++) {
                    UnixSocket raw = UnixSocket.connect(path);
                    int n = 4000;
                    MemorySegment reqs = a.allocate((long) n * (RequestHeader.SIZE + 64));
                    long at = 0;
                    for (int i = 0; i < n; i++) {
                        // answered EBADMSG (no hello): output piles up
                        RequestHeader.write(reqs, at, i, GroutApi.PING, 64);
                        at += RequestHeader.SIZE + 64;
                    }
                    raw.setNonBlocking(true);
                    long polls = s.loopUringCounts(0).sqes(UringOp.POLL_ADD);
                    long sent = raw.sendUntilFull(reqs, 0, at - 7); // the last request cut: the peer goes mid-frame
                    assertTrue(sent > 0);
                    if (round % 2 == 0) {
                        // Wait (hang guard only) until a send of this connection waits for room, then go.
                        long until = System.nanoTime() + 30_000_000_000L;
                        while (s.loopUringCounts(0).sqes(UringOp.POLL_ADD) == polls
                                && System.nanoTime() < until) Thread.sleep(1);
                        assertTrue(s.loopUringCounts(0).sqes(UringOp.POLL_ADD) > polls, "round " + round
                                + ": a send waits for room");
                    }
                    raw.close();
                }
                Awaits.awaitEquals(rounds, () -> {
                    try {
                        return s.closedConnections().size();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }, Awaits.HANG_GUARD, "connections closed");
                ServerFixture.awaitConnectionCount(s, 0);
                UringCounts u = s.loopUringCounts(0);
                System.out.println("peers gone mid-frame with output pending, " + rounds + " rounds: " + u);
                for (ConnectionStats st : s.closedConnections()) System.out.println("  closed: " + st.closeReason());
                // A connection whose receive had ended (EOF seen first) has nothing to cancel; one closed on EPIPE has.
                assertTrue(u.sqes(UringOp.ASYNC_CANCEL) > 0, "closed connections cancelled what was in flight: " + u);
                assertEquals(0, s.loopBuffersOutstanding(0), "every provided buffer back in the ring");
                try (GroutClient c = GroutClient.connect(ServerFixture.clientOptions(path))) {
                    MemorySegment p = a.allocate(PAYLOAD);
                    assertEquals(PAYLOAD, c.call(GroutApi.PING, p, 0, PAYLOAD).length());
                }
                assertEquals(0, s.loopBuffersOutstanding(0));
            }
        });
    }

    @Test
    void aFullCompletionQueueLosesNoCompletion() throws Exception {
        String path = dir.resolve("fullcq.sock").toString();
        int clients = 16, pings = 200;
        try (GroutServer s = GroutServer.start(uring(path).uringRing(8, 8))) {
            ServerFixture.guard(() -> {
                List<Throwable> failures = new CopyOnWriteArrayList<>();
                List<Thread> threads = new ArrayList<>();
                for (int k = 0; k < clients; k++) {
                    int seed = k;
                    Thread t = new Thread(() -> {
                        try (GroutClient c = GroutClient.connect(ServerFixture.clientOptions(path)); Arena a =
                                Arena.ofConfined()) {
                            MemorySegment p = a.allocate(PAYLOAD);
                            for (int i = 0; i < pings; i++) {
                                p.set(JAVA_BYTE, 0, (byte) (seed * 31 + i));
                                Response r = c.call(GroutApi.PING, p, 0, PAYLOAD);
                                if (r.length() != PAYLOAD || r.getByte(0) != (byte) (seed * 31
                                        + i)) throw new AssertionError("bad echo");
                            }
                        } catch (Throwable e) {
                            failures.add(e);
                        }
                    });
                    threads.add(t);
                    t.start();
                }
                for (Thread t : threads) t.join();
                assertEquals(List.of(), failures);
                ServerFixture.awaitConnectionCount(s, 0);
                assertEquals(0, s.loopBuffersOutstanding(0));
            });
            UringCounts u = s.loopUringCounts(0);
            System.out.println("full CQ (8 entries), " + clients + " clients x " + pings + " pings: " + u);
            assertTrue(u.sqes(UringOp.SEND) >= (long) clients * pings);
        }
    }

    @Test
    void theRingSizeIsAPowerOfTwoWithAtLeastAsManyCompletionsAsSubmissionsAndABadOneIsNamed() {
        ServerConfig dflt = ServerOptions.defaults().freeze();
        assertEquals(256, dflt.uringEntries());
        assertEquals(512, dflt.uringCompletions());
        ServerConfig small = ServerOptions.defaults().uringRing(8, 8).freeze();
        assertEquals(8, small.uringEntries());
        assertEquals(8, small.uringCompletions());
        ServerConfig big = ServerOptions.defaults().uringRing(32768, 65536).freeze();
        assertEquals(32768, big.uringEntries());
        assertEquals(65536, big.uringCompletions());
        int[][] bad = {{4, 8}, {100, 512}, {65536, 65536}, {256, 128}, {256, 1000}, {256, 131072}, {0, 0}, {-8, 8}};
        for (int[] b : bad) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () ->
                    ServerOptions.defaults().uringRing(b[0], b[1]));
            assertEquals("io_uring ring of " + b[0] + " SQEs and " + b[1]
                    + " CQEs: expected SQEs a power of two from 8 to 32768,"
                    + " CQEs a power of two from the SQEs to 65536", e.getMessage());
        }
        ServerOptions o = ServerOptions.defaults().uringRing(16, 32);
        assertThrows(IllegalArgumentException.class, () -> o.uringRing(100, 512));
        assertEquals(16, o.freeze().uringEntries(), "a refused size changes nothing");
        assertEquals(32, o.freeze().uringCompletions(), "a refused size changes nothing");
    }

    @Test
    void backendParsesItsThreeFormsAndNamesABadValue() {
        assertEquals(Backend.EPOLL, Backend.parse("epoll"));
        assertEquals(Backend.IO_URING, Backend.parse("io_uring"));
        assertEquals(Backend.AUTO, Backend.parse("auto"));
        for (String bad : new String[] {"uring", "", "epoll,io_uring", "kqueue"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Backend.parse(bad));
            assertEquals("backend '" + bad + "': expected epoll, io_uring or auto", e.getMessage());
        }
        assertEquals(System.getProperty("sysframe.backend") == null ? Backend.EPOLL
                : Backend.parse(System.getProperty("sysframe.backend")),
                ServerOptions.defaults().freeze().backend(), "the default stays epoll unless -Dsysframe.backend says");
    }

    @Test
    void autoRunsOnIoUringWhereItIsAvailable() throws Exception {
        try (GroutServer s = GroutServer.start(ServerOptions.defaults().socketPath(dir.resolve("auto.sock").toString())
                .backend(Backend.AUTO))) {
            assertEquals(Backend.IO_URING, s.backend());
        }
    }

    /**
     * What each backend does with a reason io_uring is unavailable (a real one: UringUnavailableTest's seccomp child).
     */
    @Test
    void whereIoUringIsUnavailableAutoMeansEpollAndIoUringFailsNamingTheCause() throws Exception {
        String reason =
                "io_uring unavailable: io_uring_setup: EPERM: kernel.io_uring_disabled = 2: io_uring is disabled for "
                + "every process";
        Logger backendLog = Logger.getLogger("org.sysframe.backend");
        List<String> warnings = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override public void publish(LogRecord r) {
                warnings.add(r.getLevel() + " " + MessageFormat.format(r.getMessage(), r.getParameters()));
            }
            @Override public void flush() {}
            @Override public void close() {}
        };
        boolean parents = backendLog.getUseParentHandlers();
        backendLog.setUseParentHandlers(false); // captured, not printed: a green run is quiet
        backendLog.addHandler(capture);
        try {
            assertEquals(Backend.EPOLL, Backend.AUTO.resolve("server(x)", reason));
        } finally {
            backendLog.removeHandler(capture);
            backendLog.setUseParentHandlers(parents);
        }
        assertEquals(List.of("WARNING server(x): backend auto falls back to epoll: " + reason), warnings);
        assertEquals(Backend.IO_URING, Backend.AUTO.resolve("server(x)", null));
        assertEquals(Backend.EPOLL, Backend.EPOLL.resolve("server(x)", null));
        ErrnoException e = assertThrows(ErrnoException.class, () -> Backend.IO_URING.resolve("server(x)", reason));
        assertEquals("server(x) backend io_uring: ENOTSUP (95) Operation not supported: " + reason, e.getMessage());
    }
}
