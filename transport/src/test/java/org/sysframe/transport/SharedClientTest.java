package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.TestServers;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.unix.ErrnoException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared client's API against a real server (each backend's): many platform and virtual threads
 * calling one client at once each get their own answer, byte for byte; the future variant; a heap
 * payload; an answer larger than the caller's segment; a stream type refused.
 */
@EachBackend
class SharedClientTest {
    @TempDir Path dir;
    private GroutServer server;
    private String path;

    @BeforeEach
    void start() throws Exception {
        path = dir.resolve("shared.sock").toString();
        server = TestServers.start(ServerOptions.defaults().socketPath(path));
    }

    @AfterEach
    void stop() {
        if (server != null) server.close();
    }

    /** Caller t's payload for call i: 8..64 bytes naming both, so a misrouted answer differs. */
    static int fill(MemorySegment seg, int t, int i) {
        int len = 8 + Math.floorMod(t * 7919 + i * 31, 57);
        seg.set(JAVA_INT_UNALIGNED, 0, t);
        seg.set(JAVA_INT_UNALIGNED, 4, i);
        for (int k = 8; k < len; k++) seg.set(JAVA_BYTE, k, (byte) (t * 13 + i * 7 + k * 3));
        return len;
    }

    @Test
    void platformAndVirtualCallersEachGetTheirOwnAnswer() throws Exception {
        int threads = 64, calls = 300;
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        try (SharedGroutClient c = SharedGroutClient.connect(path)) {
            List<Thread> all = new ArrayList<>();
            for (int t = 0; t < 2 * threads; t++) {
                int id = t;
                Runnable r = () -> {
                    try (Arena a = Arena.ofConfined()) {
                        MemorySegment req = a.allocate(64), answer = a.allocate(64);
                        for (int i = 0; i < calls; i++) {
                            int len = fill(req, id, i);
                            long n = c.call(GroutApi.PING, req, 0, len, answer);
                            assertEquals(len, n, "caller " + id + " call " + i);
                            assertEquals(-1, req.asSlice(0, len).mismatch(answer.asSlice(0, len)), "caller " + id + " call " + i);
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                };
                all.add(t < threads ? Thread.ofPlatform().start(r) : Thread.ofVirtual().start(r));
            }
            for (Thread t : all) t.join(60_000);
            for (Thread t : all) assertTrue(!t.isAlive(), "a caller still runs: " + t);
            assertEquals(List.of(), failures.stream().map(Throwable::toString).toList());
            SharedClientStats s = c.stats();
            assertEquals(1 + 2L * threads * calls, s.calls(), "the hello and every call");
            assertTrue(s.batches() <= s.calls(), s.toString());
            assertEquals(0, s.inFlight());
            assertEquals(0, s.unmatched());
            assertEquals(0, s.late());
            // Every caller returned: none is still listed as parked (a stale one would be offered the role, and nobody would take it).
            assertEquals(0, c.listedCallers());
            assertTrue(c.isUsable());
        }
    }

    @Test
    void futuresCompleteWithACopyOfTheirOwnAnswer() throws Exception {
        try (SharedGroutClient c = SharedGroutClient.connect(path); Arena a = Arena.ofConfined()) {
            MemorySegment req = a.allocate(64);
            List<CompletableFuture<byte[]>> futures = new ArrayList<>();
            List<byte[]> sent = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                int len = fill(req, 7, i);
                sent.add(req.asSlice(0, len).toArray(JAVA_BYTE));
                futures.add(c.callAsync(GroutApi.PING, req, 0, len));
            }
            for (int i = 0; i < futures.size(); i++) {
                assertArrayEquals(sent.get(i), futures.get(i).get(10, TimeUnit.SECONDS), "future " + i);
            }
            assertEquals(0, c.inFlight());
        }
    }

    @Test
    void heapPayloadAndCopyingCall() throws Exception {
        try (SharedGroutClient c = SharedGroutClient.connect(path)) {
            byte[] bytes = {1, 2, 3, 4, 5};
            assertArrayEquals(bytes, c.call(GroutApi.PING, MemorySegment.ofArray(bytes)));
            assertArrayEquals(new byte[0], c.call(GroutApi.PING));
        }
    }

    @Test
    void anAnswerLargerThanTheSegmentIsENOBUFSAndTheClientStaysUsable() throws Exception {
        try (SharedGroutClient c = SharedGroutClient.connect(path); Arena a = Arena.ofConfined()) {
            MemorySegment req = a.allocate(100), small = a.allocate(10);
            ErrnoException e = assertThrows(ErrnoException.class, () -> c.call(GroutApi.PING, req, 0, 100, small));
            assertEquals("GR_PING: ENOBUFS (105) No buffer space available: an answer of 100 bytes for a segment of 10", e.getMessage());
            assertEquals(10, c.call(GroutApi.PING, req, 0, 10, small));
            assertEquals(0, c.inFlight());
        }
    }

    @Test
    void aStreamTypeIsRefused() throws Exception {
        try (SharedGroutClient c = SharedGroutClient.connect(path); Arena a = Arena.ofConfined()) {
            MemorySegment req = a.allocate(1), out = a.allocate(128);
            ErrnoException e = assertThrows(ErrnoException.class, () -> c.call(GroutApi.LOG_LEVEL_LIST, req, 0, 1, out));
            assertEquals("GR_LOG_LEVEL_LIST: EINVAL (22) Invalid argument: a stream request has several answers:"
                    + " use a GroutClient for it, not a SharedGroutClient", e.getMessage());
            assertTrue(c.isUsable());
        }
    }
}
