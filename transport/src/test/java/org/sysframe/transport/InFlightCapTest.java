package org.sysframe.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.testsupport.WireBytes;
import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.LoopsIndependent;
import org.sysframe.transport.support.OneRequestPerRead;
import org.sysframe.transport.support.RawRequest;
import org.sysframe.transport.support.RawServer;
import org.sysframe.transport.support.ServerLogs;
import org.sysframe.transport.support.TestServers;
import org.sysframe.transport.support.ThreadStates;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.Self;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sysframe.transport.support.Payloads.pattern;

/**
 * The in-flight cap ({@link ClientOptions#maxInFlight}) against a server that answers one request per
 * socket read, as Grout's own API loop does: with a cap of 1, many callers (blocking, virtual, futures)
 * all get their answers and the server never finds two requests in one read; without it, the call left
 * on the wire times out with an error that names the kind of server and the option. Callers beyond the
 * cap wait in the client within their timeout; a pipeline is back-pressured by the cap.
 */
@EachBackend
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@LoopsIndependent
class InFlightCapTest {
    @TempDir Path dir;

    private ClientOptions options(String path) {
        return ClientOptions.defaults().socketPath(path).receiveTimeoutMillis(20_000);
    }

    @Test
    void aCapOfOneServesManyCallersOfEveryKindWithOneRequestOnTheWireAtATime() throws Exception {
        String path = dir.resolve("one-per-read.sock").toString();
        OneRequestPerRead script = new OneRequestPerRead();
        int threads = 8, calls = 60, futures = 40;
        try (RawServer raw = new RawServer(path, script);
             GroutClient c = GroutClient.connect(options(path).maxInFlight(1))) {
            AtomicInteger wrong = new AtomicInteger();
            List<Thread> all = new ArrayList<>();
            CountDownLatch start = new CountDownLatch(1);
            for (int t = 0; t < threads; t++) {
                int seed = t;
                Thread.Builder b = t % 2 == 0 ? Thread.ofPlatform() : Thread.ofVirtual();
                all.add(b.start(() -> {
                    try (Arena a = Arena.ofConfined()) {
                        start.await();
                        for (int k = 0; k < calls; k++) {
                            byte[] p = pattern(4 + (k % 40), seed * 1000 + k);
                            MemorySegment m = a.allocate(p.length);
                            MemorySegment.copy(p, 0, m, ValueLayout.JAVA_BYTE, 0, p.length);
                            if (!Arrays.equals(p, c.call(GroutApi.PING, m).toByteArray())) wrong.incrementAndGet();
                        }
                    } catch (Exception e) {
                        wrong.incrementAndGet();
                        throw new RuntimeException(e);
                    }
                }));
            }
            start.countDown();
            List<CompletableFuture<Response>> fs = new ArrayList<>();
            List<byte[]> sent = new ArrayList<>();
            for (int k = 0; k < futures; k++) {
                byte[] p = pattern(8, 77_000 + k);
                sent.add(p);
                fs.add(c.callAsync(GroutApi.PING, MemorySegment.ofArray(p)));
            }
            for (int k = 0; k < futures; k++) assertArrayEquals(sent.get(k),
                    fs.get(k).get(30, TimeUnit.SECONDS).toByteArray(), "future " + k);
            for (Thread t : all) t.join();
            assertEquals(0, wrong.get(), "every caller got its own answer, none timed out");
            ClientStats s = c.stats();
            assertEquals(1 + threads * calls + futures, s.calls(), "GR_HELLO and every call");
            assertEquals(0, s.inFlight());
            assertEquals(0, s.late());
            assertEquals(0, c.listedCallers());
            c.close();
            raw.awaitScript(); // the script counts an answer after it wrote it: read the counts once it ended
            assertEquals(1, script.mostInOneRead(), "never two requests in one read: one on the wire at a time");
            assertEquals(threads * calls + futures, script.answered());
        }
    }

    @Test
    void withoutACapTheCallLeftOnTheWireTimesOutNamingTheServerKindAndTheOption() throws Exception {
        String path = dir.resolve("stall.sock").toString();
        AtomicReference<GroutClient> client = new AtomicReference<>();
        OneRequestPerRead rest = new OneRequestPerRead();
        // The first request is answered once two futures wait behind it in the client's send queue: they then go out in
        // one send, as concurrent callers' requests do, and the server answers the first of them only (one read).
        RawServer.Script script = conn -> {
            RawRequest first = conn.readRequest();
            while (client.get() == null || client.get().stats().inFlight() < 3) Thread.sleep(1);
            conn.write(WireBytes.response(first.id(), 0, first.payload()));
            rest.run(conn);
        };
        try (ServerLogs logs = new ServerLogs("org.sysframe.client");
             RawServer raw = new RawServer(path, script);
             GroutClient c = GroutClient.connect(options(path).receiveTimeoutMillis(1200))) {
            client.set(c);
            // A blocking caller holds the I/O role while it waits: the futures' requests wait in the send queue behind
            // it.
            CompletableFuture<byte[]> first = new CompletableFuture<>();
            CompletableFuture<Integer> firstTid = new CompletableFuture<>();
            Thread.ofPlatform().start(() -> {
                firstTid.complete(Self.tid());
                try {
                    first.complete(c.call(GroutApi.PING, MemorySegment.ofArray(pattern(4, 0))).toByteArray());
                } catch (Throwable x) {
                    first.completeExceptionally(x);
                }
            });
            // Only once it waits in the kernel for its answer: before, its drive loop would send a queued request at
            // once, alone (a cold JVM's caller reaches it late enough for that).
            ThreadStates.awaitBlockedIn(firstTid.get(20, TimeUnit.SECONDS), ThreadStates.clientReceiveSyscall());
            CompletableFuture<Response> a = c.callAsync(GroutApi.PING, MemorySegment.ofArray(pattern(4, 1)));
            CompletableFuture<Response> b = c.callAsync(GroutApi.PING, MemorySegment.ofArray(pattern(4, 2)));
            assertArrayEquals(pattern(4, 0), first.get(20, TimeUnit.SECONDS));
            assertArrayEquals(pattern(4, 1), a.get(20, TimeUnit.SECONDS).toByteArray());
            ExecutionException e = assertThrows(ExecutionException.class, () -> b.get(20, TimeUnit.SECONDS));
            ErrnoException cause = assertInstanceOf(ErrnoException.class, e.getCause());
            assertEquals(Errno.ETIMEDOUT, cause.errno());
            assertTrue(cause.getMessage().contains("the server looks like one that answers one request per read"),
                    cause.getMessage());
            assertTrue(cause.getMessage().contains("ClientOptions.maxInFlight(1)"), cause.getMessage());
            assertEquals(1, logs.lines(l -> l.contains("answers one request per read")).size(), "one warning: "
                    + logs.lines());
            assertEquals(1, c.stats().batches(), "the two went out in one send");
            assertTrue(c.isUsable(), "a timed-out call leaves the client usable");
        }
    }

    @Test
    void aLoneCallThatTimesOutSaysNothingAboutTheServerKind() throws Exception {
        String path = dir.resolve("silent.sock").toString();
        try (ServerLogs logs = new ServerLogs("org.sysframe.client");
             RawServer raw = new RawServer(path, conn -> {
                 conn.readRequest();
                 conn.awaitEof();
             });
             GroutClient c = GroutClient.connect(options(path).receiveTimeoutMillis(500))) {
            ErrnoException e = assertThrows(ErrnoException.class, () ->
                    c.call(GroutApi.PING, MemorySegment.ofArray(pattern(4, 1))));
            assertEquals(Errno.ETIMEDOUT, e.errno());
            assertFalse(e.getMessage().contains("one request per read"), e.getMessage());
            assertEquals(List.of(), logs.lines());
        }
    }

    @Test
    void callersBeyondTheCapWaitInTheClientWithinTheirTimeoutAndCloseEndsThem() throws Exception {
        String path = dir.resolve("held.sock").toString();
        CountDownLatch firstIn = new CountDownLatch(1);
        try (RawServer raw = new RawServer(path, conn -> {
                 conn.readRequest();
                 firstIn.countDown();
                 conn.awaitEof(); // never answers: the one place stays taken
             });
             GroutClient c = GroutClient.connect(options(path).maxInFlight(1).receiveTimeoutMillis(600))) {
            CompletableFuture<Response> onWire = c.callAsync(GroutApi.PING, MemorySegment.ofArray(pattern(4, 1)));
            assertTrue(firstIn.await(10, TimeUnit.SECONDS));
            ErrnoException blocked = assertThrows(ErrnoException.class, () ->
                    c.call(GroutApi.PING, MemorySegment.ofArray(pattern(4, 2))));
            assertEquals(Errno.ETIMEDOUT, blocked.errno());
            assertTrue(blocked.getMessage().contains("no room under maxInFlight 1"), blocked.getMessage());
            assertTrue(blocked.getMessage().contains("the request was not sent"), blocked.getMessage());
            ExecutionException first = assertThrows(ExecutionException.class, () -> onWire.get(20, TimeUnit.SECONDS));
            assertEquals(Errno.ETIMEDOUT, ((ErrnoException) first.getCause()).errno());
            // The first request's id stays taken until its late answer: the place stays taken too.
            CompletableFuture<Response> held = c.callAsync(GroutApi.PING, MemorySegment.ofArray(pattern(4, 3)));
            CompletableFuture<Throwable> parked = new CompletableFuture<>();
            Thread t = Thread.ofPlatform().start(() -> {
                try {
                    c.call(GroutApi.PING, MemorySegment.ofArray(pattern(4, 4)));
                    parked.complete(null);
                } catch (Throwable x) {
                    parked.complete(x);
                }
            });
            c.close();
            t.join(10_000);
            ErrnoException closed = assertInstanceOf(ErrnoException.class, parked.get(10, TimeUnit.SECONDS));
            assertTrue(closed.errno() == Errno.ENOTCONN || closed.errno() == Errno.ETIMEDOUT, closed.toString());
            ExecutionException f = assertThrows(ExecutionException.class, () -> held.get(10, TimeUnit.SECONDS));
            assertEquals(Errno.ENOTCONN, ((ErrnoException) f.getCause()).errno(), f.getCause().toString());
        }
    }

    @Test
    void aPipelineIsBackPressuredByTheCap() throws Exception {
        String path = dir.resolve("pipe.sock").toString();
        try (GroutServer server = TestServers.start(ServerOptions.defaults().socketPath(path));
             GroutClient c = GroutClient.connect(options(path).maxInFlight(3));
             Pipeline p = c.pipeline(PipelineOptions.window(16));
             Arena a = Arena.ofConfined()) {
            MemorySegment m = a.allocate(8);
            for (int k = 0; k < 3; k++) assertTrue(p.queue(GroutApi.PING, m, 0, 8) > 0);
            assertEquals(Pipeline.BACK_PRESSURED, p.queue(GroutApi.PING, m, 0, 8), "the cap, not the window of 16");
            AtomicInteger answered = new AtomicInteger();
            while (p.inFlight() > 0) p.poll((id, status, payload, off, len, lat) -> answered.incrementAndGet(), 16,
                    true);
            assertEquals(3, answered.get());
            assertTrue(p.queue(GroutApi.PING, m, 0, 8) > 0, "room again once answered");
        }
    }

    @Test
    void badCapsAndPoolSizesAreRefusedWhereTheyAreSet() {
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () ->
                ClientOptions.defaults().maxInFlight(0));
        assertEquals("maxInFlight 0: expected 1..65535 (request ids are 16-bit)", zero.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ClientOptions.defaults().maxInFlight(65536));
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () ->
                ClientOptions.defaults().connections(0));
        assertEquals("connections 0: expected 1..64", none.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ClientOptions.defaults().connections(65));
    }
}
