package org.sysframe.transport;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sysframe.testsupport.Awaits;
import org.sysframe.testsupport.ProcessProbe;
import org.sysframe.transport.support.TestServers;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.unix.ErrnoException;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A GroutClient belongs to the thread that connected it: a call from any other thread fails with the
 * library's own message (the client, both threads, the rule) and leaves the client usable by its owner;
 * close() works from any thread, once, and gives the descriptors back.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ClientConfinementTest {
    @TempDir Path dir;

    private static Throwable onOtherThread(String name, ThrowingRunnable r) throws Exception {
        CompletableFuture<Throwable> got = new CompletableFuture<>();
        Thread t = Thread.ofPlatform().name(name).start(() -> {
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

    interface ThrowingRunnable { void run() throws Exception; }

    @ParameterizedTest
    @ValueSource(strings = {"epoll", "io_uring"})
    void aCallFromAnotherThreadSaysWhoseClientItIsAndTheOwnerGoesOn(String backend) throws Exception {
        String path = dir.resolve("confined.sock").toString();
        try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath(path));
             GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(Backend.parse(backend)))) {
            String owner = Thread.currentThread().getName();
            String expected = "GroutClient(" + path + ") was used from thread \"worker-1\" but is confined to thread \"" + owner
                    + "\", which connected it: use one GroutClient per thread, connected on the thread that uses it, or one SharedGroutClient for all threads";
            Throwable call = onOtherThread("worker-1", () -> c.sendRecv(GroutApi.PING));
            assertInstanceOf(WrongThreadException.class, call);
            assertEquals(expected, call.getMessage());
            for (ThrowingRunnable r : new ThrowingRunnable[] {
                    () -> c.pipeline(PipelineOptions.window(4)), c::nextEvent, c::pendingEvents, () -> c.send(GroutApi.PING, java.lang.foreign.MemorySegment.NULL, 0, 0)}) {
                Throwable e = onOtherThread("worker-1", r);
                assertInstanceOf(WrongThreadException.class, e);
                assertEquals(expected, e.getMessage());
            }
            assertTrue(c.isUsable(), "a refused call does not break the client");
            assertEquals(0, c.sendRecv(GroutApi.PING).length(), "the owner goes on");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"epoll", "io_uring"})
    void closeFromAnotherThreadClosesTheSocketAndFreesTheDescriptors(String backend) throws Exception {
        String path = dir.resolve("closer.sock").toString();
        try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath(path))) {
            long before = ProcessProbe.openFds();
            GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(Backend.parse(backend)));
            c.sendRecv(GroutApi.PING);
            assertTrue(ProcessProbe.openFds() > before, "the client holds descriptors");
            assertEquals(null, onOtherThread("closer", c::close));
            // The server's side of the connection closes when its loop sees the hang-up, a moment later: wait for
            // that (bounded); a descriptor the client kept would keep the count above before.
            Awaits.awaitEquals(before, ClientConfinementTest::openFds, Awaits.HANG_GUARD, "descriptors after close() from another thread");
            assertFalse(c.isUsable());
            assertEquals(null, onOtherThread("closer-2", c::close), "a second close does nothing");
            c.close();
            ErrnoException e = assertThrows(ErrnoException.class, () -> c.sendRecv(GroutApi.PING));
            assertEquals("client(" + path + "): ENOTCONN (107) Transport endpoint is not connected: the client was closed", e.getMessage());
        }
    }

    private static long openFds() {
        try {
            return ProcessProbe.openFds();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
