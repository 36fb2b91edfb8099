package org.sysframe.transport;

import org.sysframe.transport.support.BackendSuite;
import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.TestClients;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.transport.support.TestServers;
import org.sysframe.transport.support.ServerFixture;
import org.sysframe.unix.Self;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Many clients at once on one server: every response must reach the thread that asked, with exactly
 * the bytes it sent, and the server must account for every connection once they are all closed.
 */
@EachBackend(alsoOverSharedMemory = true)
class ConcurrentClientsTest {
    private static final int THREADS = 64;
    private static final int PINGS = 2_000;
    /**
     * Pings per client over the shared-memory channel: a quarter, to keep the suite's third invocation
     * short (64 channels served by the server's loops, and 64 client threads, on this machine's two cores); every
     * ping takes the same path.
     */
    private static final int PINGS_OVER_CHANNELS = 500;

    @TempDir
    Path dir;

    private GroutServer server;

    @AfterEach
    void tearDown() {
        // Closing the server also unblocks any client thread still waiting (hang case).
        if (server != null) server.close();
    }

    /**
     * The payload of (thread, iteration): 8..64 bytes, starting with the thread and iteration numbers,
     * the rest derived from both, so that any response delivered to the wrong client or out of step
     * differs.
     */
    static int fill(MemorySegment seg, int thread, int iteration) {
        int len = 8 + Math.floorMod(thread * 7919 + iteration * 31, 57); // 8..64
        seg.set(JAVA_INT_UNALIGNED, 0, thread);
        seg.set(JAVA_INT_UNALIGNED, 4, iteration);
        for (int i = 8; i < len; i++) seg.set(JAVA_BYTE, i, (byte) (thread * 13 + iteration * 7 + i * 3));
        return len;
    }

    @Test
    void sixtyFourClientThreadsEachGetExactlyTheirOwnTwoThousandEchoesAndTheServerAccountsForEveryConnection()
            throws Exception {
        String path = dir.resolve("concurrent.sock").toString();
        server = TestServers.start(ServerOptions.defaults().socketPath(path));
        int pings = BackendSuite.overSharedMemory() ? PINGS_OVER_CHANNELS : PINGS;

        AtomicLong matched = new AtomicLong();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        CountDownLatch ready = new CountDownLatch(THREADS);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();

        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            for (int t = 0; t < THREADS; t++) {
                final int thread = t;
                Thread th = new Thread(() -> {
                    try (GroutClient c = TestClients.connect(TestClients.options(path).receiveTimeoutMillis(60_000));
                         Arena a = Arena.ofConfined()) {
                        MemorySegment req = a.allocate(64, 8);
                        ready.countDown();
                        go.await();
                        for (int i = 0; i < pings; i++) {
                            int len = fill(req, thread, i);
                            Response r = c.call(GroutApi.PING, req, 0, len);
                            if (r.status() != 0 || r.length() != len
                                    || MemorySegment.mismatch(r.buffer(), r.offset(), r.offset() + len, req, 0, len)
                                            != -1) {
                                throw new AssertionError("thread " + thread + " iteration " + i + ": sent " + len
                                        + " bytes, got " + r + " with bytes "
                                        + HexFormat.of().formatHex(r.toByteArray()));
                            }
                            matched.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                        ready.countDown();
                    }
                }, "ping-client-" + t);
                th.setDaemon(true);
                threads.add(th);
                th.start();
            }
            assertTrue(ready.await(60, TimeUnit.SECONDS), "clients did not connect");
            assertEquals(List.of(), List.copyOf(failures), "failures while connecting");
            // Every client said hello and was answered: all 64 are connected at once.
            assertEquals(THREADS, server.connectionCount());
            go.countDown();
            for (Thread th : threads) th.join();
        });

        if (!failures.isEmpty()) {
            AssertionError e = new AssertionError(failures.size() + " client threads failed; first: "
                    + failures.peek());
            failures.forEach(e::addSuppressed);
            throw e;
        }
        assertEquals((long) THREADS * pings, matched.get(), "responses matched");

        // The clients closed their sockets; the server sees each EOF on its loop thread.
        ServerFixture.awaitConnectionCount(server, 0);

        // Over the channel a client has two records: its socket's (GR_HELLO and SHM_OPEN), and its channel's (the
        // pings), which the socket's loop records soon after the channel ended.
        boolean shm = BackendSuite.overSharedMemory();
        int records = shm ? 2 * THREADS : THREADS;
        long until = System.nanoTime() + 20_000_000_000L;
        List<ConnectionStats> closed = server.closedConnections();
        while (closed.size() < records && System.nanoTime() - until < 0) {
            Thread.sleep(5);
            closed = server.closedConnections();
        }
        assertEquals(records, closed.size(), closed.toString());
        int pid = (int) ProcessHandle.current().pid();
        int channels = 0;
        for (ConnectionStats s : closed) {
            assertEquals(pid, s.peerPid(), s.toString());
            assertEquals(Self.uid(), s.peerUid(), s.toString());
            if (s.closeReason().startsWith("shared-memory channel: ")) {
                channels++;
                assertEquals(pings, s.requests(), "the pings of " + s);
            } else {
                assertEquals(shm ? 2 : pings + 1, s.requests(), "requests of " + s + " (hello included)");
                assertEquals("peer closed", s.closeReason(), s.toString());
            }
        }
        assertEquals(shm ? THREADS : 0, channels, "a channel's record per client over the channel");
        assertEquals(List.of(), server.openConnections());
    }
}
