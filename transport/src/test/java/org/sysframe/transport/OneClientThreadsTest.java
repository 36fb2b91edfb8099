package org.sysframe.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.testsupport.Awaits;
import org.sysframe.testsupport.ProcessProbe;
import org.sysframe.transport.support.BackendSuite;
import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.Pings;
import org.sysframe.transport.support.TestClients;
import org.sysframe.transport.support.TestServers;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.unix.ErrnoException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One GroutClient serves every thread: connected on one thread, it is called from another (platform or
 * virtual) and from many at once, each caller getting its own answer, on each backend and over the
 * shared-memory channel; close() works from any thread, once, and gives the descriptors back (over the
 * channel, its segment's and its server thread's too).
 */
@EachBackend(alsoOverSharedMemory = true)
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class OneClientThreadsTest {
    @TempDir Path dir;

    interface ThrowingRunnable { void run() throws Exception; }

    /** Runs r on a new thread (virtual or platform); what it threw, or null. */
    private static Throwable onOtherThread(Thread.Builder builder, ThrowingRunnable r) throws Exception {
        CompletableFuture<Throwable> got = new CompletableFuture<>();
        Thread t = builder.start(() -> {
            try {
                r.run();
                got.complete(null);
            } catch (Throwable e) {
                got.complete(e);
            }
        });
        t.join(30_000);
        return got.get(1, TimeUnit.SECONDS);
    }

    @Test
    void aClientConnectedOnOneThreadIsCalledFromAnother() throws Exception {
        String path = dir.resolve("other.sock").toString();
        try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath(path));
             GroutClient c = TestClients.connect(path)) {
            assertEquals(BackendSuite.overSharedMemory(), c.sharedMemory());
            assertNull(onOtherThread(Thread.ofPlatform().name("worker-1"), () -> Pings.ping(c, 1, 100)),
                    "a platform thread's call");
            assertNull(onOtherThread(Thread.ofVirtual().name("virtual-1"), () -> Pings.ping(c, 2, 3000)),
                    "a virtual thread's call");
            assertNull(onOtherThread(Thread.ofPlatform().name("worker-2"), () ->
                    assertEquals(0, c.call(GroutApi.PING).length())));
            Pings.ping(c, 3, 64); // the connecting thread goes on
            assertTrue(c.isUsable());
            ClientStats st = c.stats();
            assertEquals(0, st.inFlight());
            assertEquals(0, st.unmatched());
            assertEquals(0, st.late());
        }
    }

    @Test
    void manyThreadsCallOneClientAtOnceAndEachGetsItsOwnAnswers() throws Exception {
        String path = dir.resolve("many.sock").toString();
        int threads = 16, calls = 200;
        try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath(path));
             GroutClient c = TestClients.connect(path)) {
            assertEquals(BackendSuite.overSharedMemory(), c.sharedMemory());
            long before = c.stats().calls();
            CountDownLatch start = new CountDownLatch(1);
            List<CompletableFuture<Void>> done = new ArrayList<>();
            List<Thread> started = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int me = t;
                CompletableFuture<Void> f = new CompletableFuture<>();
                done.add(f);
                // Half platform, half virtual threads; each pings with payloads of its own (seed and length), checked
                // byte for byte.
                Thread.Builder b = me % 2 == 0 ? Thread.ofPlatform().name("caller-" + me)
                        : Thread.ofVirtual().name("caller-" + me);
                started.add(b.start(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < calls; i++) Pings.ping(c, me * 1000 + i, (me * 131 + i * 17) % 4096);
                        f.complete(null);
                    } catch (Throwable e) {
                        f.completeExceptionally(e);
                    }
                }));
            }
            start.countDown();
            for (CompletableFuture<Void> f : done) f.get(50, TimeUnit.SECONDS);
            for (Thread t : started) t.join(5_000);
            ClientStats st = c.stats();
            assertEquals(threads * calls, st.calls() - before, "every call counted once");
            assertEquals(0, st.inFlight());
            assertEquals(0, st.unmatched());
            assertEquals(0, st.late());
            assertEquals(0, c.listedCallers(), "no caller left parked");
            assertTrue(c.isUsable());
            Pings.ping(c, 7, 10); // and the connecting thread goes on
        }
    }

    @Test
    void closeFromAnotherThreadClosesTheSocketAndFreesTheDescriptors() throws Exception {
        String path = dir.resolve("closer.sock").toString();
        try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath(path))) {
            long before = ProcessProbe.openFds();
            GroutClient c = TestClients.connect(path);
            assertEquals(BackendSuite.overSharedMemory(), c.sharedMemory());
            c.call(GroutApi.PING);
            assertTrue(ProcessProbe.openFds() > before, "the client holds descriptors");
            assertNull(onOtherThread(Thread.ofPlatform().name("closer"), c::close));
            // The server's side of the connection closes when its loop sees the hang-up, a moment later: wait for
            // that (bounded); a descriptor the client kept would keep the count above before.
            Awaits.awaitEquals(before, OneClientThreadsTest::openFds, Awaits.HANG_GUARD,
                    "descriptors after close() from another thread");
            assertFalse(c.isUsable());
            assertNull(onOtherThread(Thread.ofPlatform().name("closer-2"), c::close), "a second close does nothing");
            c.close();
            ErrnoException e = assertThrows(ErrnoException.class, () -> c.call(GroutApi.PING));
            assertEquals("client(" + path
                    + "): ENOTCONN (107) Transport endpoint is not connected: the client was closed", e.getMessage());
        }
    }

    private static long openFds() {
        try {
            return ProcessProbe.openFds();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
