package org.sysframe.transport.shm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.sysframe.testsupport.Awaits;
import org.sysframe.testsupport.ProcessProbe;
import org.sysframe.transport.Backend;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.Pipeline;
import org.sysframe.transport.PipelineOptions;
import org.sysframe.transport.ServerOptions;
import org.sysframe.transport.WaitMode;
import org.sysframe.transport.internal.shm.ShmSegment;
import org.sysframe.transport.internal.shm.ShmServer;
import org.sysframe.transport.support.Pings;
import org.sysframe.transport.support.ServerLogs;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SharedMemory;
import org.sysframe.unix.UnixSocket;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A hostile client of a shared-memory channel (hand-made, on a real server and socket): it may write
 * anything into the segment at any time, truncate the file it was given, die in the middle of a
 * message or stop reading. The server closes that channel and connection with one logged line at most,
 * serves its other clients on, and gives every descriptor and mapping back.
 */
class SharedMemoryHostilePeerTest {
    @TempDir Path dir;

    GroutServer start(String path, int ring) throws Exception { return start(path, ring, Backend.EPOLL); }

    GroutServer start(String path, int ring, Backend backend) throws Exception {
        // One loop: every channel and socket of a test on it. Caps well above what these tests hold at once
        // (the caps have tests of their own).
        return GroutServer.start(ServerOptions.defaults().socketPath(path).backend(backend).loops(1)
                .sharedMemoryRing(ring).sharedMemoryChannels(64).sharedMemoryChannelsPerUid(64));
    }

    static GroutClient overSocket(String path) throws Exception {
        return GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL));
    }

    static GroutClient good(String path) throws Exception {
        GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL)
                .sharedMemory(true));
        assertTrue(c.sharedMemory());
        return c;
    }

    /** Waits for the peer's end of the socket: EOF (the server closed the connection). */
    static void awaitEof(UnixSocket s) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment b = a.allocate(64);
            while (true) {
                long n = s.recv(b, 0, 64, 0);
                if (n == 0) return;
                if (n == UnixSocket.WOULD_BLOCK) throw new AssertionError("the server did not close the connection "
                        + "within the receive timeout");
            }
        }
    }

    @Test
    void ftruncateOfTheReceivedSegmentFailsAndTheChannelGoesOn() throws Exception {
        String path = dir.resolve("trunc.sock").toString();
        try (GroutServer s = start(path, 4096); RawChannel raw = RawChannel.open(path); Arena a = Arena.ofConfined()) {
            long size = ShmSegment.sizeFor(4096);
            ErrnoException shrink = assertThrows(ErrnoException.class, () -> SharedMemory.truncate(raw.fd, 0));
            assertEquals("ftruncate(fd " + raw.fd + ", 0): EPERM (1) Operation not permitted", shrink.getMessage());
            ErrnoException grow = assertThrows(ErrnoException.class, () -> SharedMemory.truncate(raw.fd, 2 * size));
            assertEquals(Errno.EPERM, grow.errno());
            assertThrows(ErrnoException.class, () -> SharedMemory.addSeals(raw.fd, SharedMemory.F_SEAL_WRITE));
            assertEquals(size, SharedMemory.size(raw.fd));
            MemorySegment p = a.allocate(32);
            p.set(JAVA_LONG, 0, 0x1234);
            raw.request(3, GroutApi.PING, p, 32);
            int[] h = raw.answer();
            assertEquals(3, h[0]);
            assertEquals(0, h[1]);
            assertEquals(32, h[2]);
        }
    }

    @Test
    void aBadIndexClosesThatChannelWithOneLineAndNoOtherClient() throws Exception {
        String path = dir.resolve("index.sock").toString();
        try (ServerLogs logs = new ServerLogs(); GroutServer s = start(path, 4096); GroutClient c =
                good(path); RawChannel raw = RawChannel.open(path)) {
            Pings.ping(c, 1, 100);
            // The request ring's tail (offset 64) moved past what the ring can hold.
            raw.segment.memory().set(JAVA_LONG, 64, 4096 + 1);
            // ... and woke the serving loop, as a publish does (asleep, the loop reads nothing).
            raw.wake();
            awaitEof(raw.socket);
            closedWithOneLine(logs, "the request ring's tail is 4097, 4097 bytes from this side's 0 (capacity 4096)",
                    c);
        }
    }

    @Test
    void aBadHeadMetWhereTheLoopClaimsRoomForAnAnswerClosesThatChannelWithOneLine() throws Exception {
        String path = dir.resolve("head.sock").toString();
        try (ServerLogs logs = new ServerLogs(); GroutServer s = start(path, 4096); GroutClient c =
                good(path); RawChannel raw = RawChannel.open(path); Arena a = Arena.ofConfined()) {
            Pings.ping(c, 1, 100);
            // The answer ring's head (its words at 320, the head 64 past them) moved past its tail. The loop reads
            // the head afresh only when the head it read last leaves too little room: at the fifth answer of 1,012
            // bytes, which it claims in place.
            raw.segment.memory().set(JAVA_LONG, 320 + 64, 4096 + 1);
            MemorySegment payload = a.allocate(1000);
            for (int i = 0; i < 5; i++) raw.request(10 + i, GroutApi.PING, payload, 1000);
            awaitEof(raw.socket);
            closedWithOneLine(logs, "the answer ring's head is 4097, 49 bytes from this side's 4048 (capacity 4096)",
                    c);
        }
    }

    /**
     * The hostile channel closed with one line, which says what was read where (why), and the good client c, on the
     * same loop, goes on: its channel is the one left open.
     */
    private static void closedWithOneLine(ServerLogs logs, String why, GroutClient c) throws Exception {
        List<String> lines = logs.lines(l -> l.contains("shared-memory channel closed"));
        assertEquals(1, lines.size(), logs.lines().toString());
        assertTrue(lines.getFirst().endsWith("shared-memory channel closed: shared memory: EPROTO (71) Protocol error: "
                + why + ": the peer wrote a bad index"), lines.getFirst());
        for (int i = 0; i < 100; i++) Pings.ping(c, i, 1 + i * 40);
        Awaits.awaitEquals(1, () -> ShmServer.channels().size(), Duration.ofSeconds(10), "channels open");
    }

    @ParameterizedTest
    @MethodSource("org.sysframe.transport.shm.SharedMemoryChannelTest#serverBackends")
    void aBadIndexOnALoopServingSeveralChannelsAndASocketClosesThatChannelOnly(Backend backend) throws Exception {
        String path = dir.resolve("shared-loop.sock").toString();
        try (ServerLogs logs = new ServerLogs(); GroutServer s = start(path, 4096, backend);
             GroutClient a = good(path); GroutClient b = good(path); GroutClient sock = overSocket(path);
             RawChannel raw = RawChannel.open(path)) {
            assertEquals(1, s.loopCount());
            assertFalse(sock.sharedMemory());
            Awaits.awaitEquals(3, () -> ShmServer.channels().size(), Duration.ofSeconds(10), "channels open");
            assertEquals(1, ShmServer.channels().stream().distinct().count(), "the three channels on one loop");
            // The good ones call while the hostile one breaks its ring.
            AtomicBoolean stop = new AtomicBoolean();
            Thread caller = Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; !stop.get(); i++) Pings.ping(b, i, 1 + i % 3000);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            Pings.ping(a, 1, 100);
            Pings.ping(sock, 1, 100);
            raw.segment.memory().set(JAVA_LONG, 64, 4096 + 1); // the request ring's tail, past the ring
            raw.wake();
            awaitEof(raw.socket);
            stop.set(true);
            caller.join();
            List<String> lines = logs.lines(l -> l.contains("shared-memory channel closed"));
            assertEquals(1, lines.size(), logs.lines().toString());
            assertTrue(lines.getFirst().contains("the request ring's tail is 4097"), lines.getFirst());
            for (int i = 0; i < 100; i++) {
                Pings.ping(a, i, 1 + i * 40);
                Pings.ping(b, i, 1 + i * 40);
                Pings.ping(sock, i, 1 + i * 40);
            }
            Awaits.awaitEquals(2, () -> ShmServer.channels().size(), Duration.ofSeconds(10), "channels open");
            assertEquals(3, s.connectionCount(), "the two good channels' connections and the socket's");
        }
    }

    @Test
    void sixtyFourChannelsCostTheServerNoThread() throws Exception {
        String path = dir.resolve("threads.sock").toString();
        List<GroutClient> clients = new ArrayList<>();
        try (GroutServer s = start(path, 4096)) {
            try (GroutClient first = good(path)) {
                Pings.ping(first, 0, 32); // the server's threads and the first client's are up
            }
            Awaits.awaitEquals(0, () -> ShmServer.channels().size(), Duration.ofSeconds(10), "channels open");
            long serverThreads = serverThreads();
            for (int i = 0; i < 64; i++) clients.add(good(path));
            assertEquals(64, ShmServer.channels().size());
            for (int i = 0; i < clients.size(); i++) Pings.ping(clients.get(i), i, 1 + i * 50);
            assertEquals(serverThreads, serverThreads(), "the server's threads with 64 channels open");
            System.out.printf("64 channels open: the server has %d threads (%d loop)%n", serverThreads, s.loopCount());
        } finally {
            for (GroutClient c : clients) c.close();
        }
    }

    /** Threads of this process that are a server's: its loops and acceptor (named sysframe-server...), any other. */
    static long serverThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("sysframe-server")
                || t.getName().startsWith("sysframe-shm")).count();
    }

    @Test
    void randomBytesInAChannelsRingsNeverReachAnotherClient() throws Exception {
        String path = dir.resolve("fuzz.sock").toString();
        SplittableRandom random = new SplittableRandom(25);
        try (ServerLogs logs = new ServerLogs(); GroutServer s = start(path, 4096); GroutClient c = good(path)) {
            for (int round = 0; round < 20; round++) {
                RawChannel raw = RawChannel.open(path);
                MemorySegment m = raw.segment.memory();
                AtomicBoolean stop = new AtomicBoolean();
                CountDownLatch done = new CountDownLatch(1);
                long seed = random.nextLong();
                Thread fuzzer = Thread.ofPlatform().start(() -> {
                    SplittableRandom r = new SplittableRandom(seed);
                    try {
                        while (!stop.get()) {
                            // Anywhere past the header: the control words or the rings' bytes.
                            long at = 64 + r.nextLong(m.byteSize() - 64 - 8);
                            if (r.nextInt(4) == 0) m.set(JAVA_LONG.withByteAlignment(1), at, r.nextLong());
                            else m.set(JAVA_BYTE, at, (byte) r.nextInt());
                        }
                    } finally {
                        done.countDown();
                    }
                });
                for (int i = 0; i < 200; i++) Pings.ping(c, i, (i * 131) % 5000);
                stop.set(true);
                done.await();
                raw.close();
                fuzzer.join();
            }
            // At most one line per fuzzed channel, none about the good one, and it still answers.
            assertTrue(logs.lines(l -> l.contains("shared-memory channel closed")).size() <= 20,
                    logs.lines().toString());
            Pings.ping(c, 99, GroutApi.MAX_MSG_LEN);
            Awaits.awaitEquals(1, () -> ShmServer.channels().size(), Duration.ofSeconds(20), "channels open");
        }
    }

    @ParameterizedTest
    @MethodSource("org.sysframe.transport.shm.SharedMemoryChannelTest#serverBackends")
    void aThousandChannelsDroppedMidMessageGiveEveryDescriptorAndMappingBack(Backend backend) throws Exception {
        String path = dir.resolve("churn.sock").toString();
        try (GroutServer s = start(path, 4096, backend); Arena a = Arena.ofConfined()) {
            // One first: the server's threads and classes are up before the baseline.
            RawChannel.open(path).close();
            Awaits.awaitEquals(0, () -> ShmServer.channels().size(), Duration.ofSeconds(20), "channels open");
            // ... and gone: its segment unmapped and its descriptors closed, as at the end.
            Awaits.awaitEquals(0, MemfdProbe::mappings, Duration.ofSeconds(20), "memfd mappings");
            Awaits.awaitEquals(0, MemfdProbe::descriptors, Duration.ofSeconds(20), "memfd descriptors");
            long fds = ProcessProbe.openFds();
            MemorySegment p = a.allocate(1000);
            for (int i = 0; i < 1000; i++) {
                RawChannel raw = RawChannel.open(path);
                // Half a request: a header announcing 1000 bytes and 300 of them, then gone.
                MemorySegment h = a.allocate(312, 8);
                RequestHeader.write(h, 0, 3, GroutApi.PING, 1000);
                raw.segment.requests().put(h, 0, 312);
                raw.segment.requests().publish();
                raw.close();
            }
            Awaits.awaitEquals(0, () -> ShmServer.channels().size(), Duration.ofSeconds(60), "channels open");
            Awaits.awaitEquals(0, MemfdProbe::mappings, Duration.ofSeconds(20), "memfd mappings");
            Awaits.awaitEquals(0, MemfdProbe::descriptors, Duration.ofSeconds(20), "memfd descriptors");
            Awaits.awaitEquals(fds, () -> {
                try {
                    return ProcessProbe.openFds();
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            }, Duration.ofSeconds(20), "descriptors");
            Awaits.awaitEquals(0, s::connectionCount, Duration.ofSeconds(20), "server connections");
        }
    }

    @Test
    void aServerThatStopsReadingMakesTheSendFailAtTheSendTimeout() throws Exception {
        String path = dir.resolve("stuck.sock").toString();
        int stuck = GroutApi.type(0x7a7a, 2);
        CountDownLatch release = new CountDownLatch(1);
        try (GroutServer s = GroutServer.start(ServerOptions.defaults().socketPath(path).backend(Backend.EPOLL)
                .sharedMemoryRing(65536)
                .handle(stuck, 0, (req, reply) -> {
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    reply.ok();
                }));
             GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL)
                     .sharedMemory(true)
                     .sendTimeoutMillis(200).waitMode(WaitMode.spinThenBlock(Duration.ofNanos(50_000))));
             Arena a = Arena.ofConfined()) {
            assertTrue(c.sharedMemory());
            MemorySegment p = a.allocate(32 * 1024);
            ErrnoException e;
            // A pipeline sends without waiting for answers: each flush is one send of one request.
            try (Pipeline pl = c.pipeline(PipelineOptions.window(128))) {
                pl.queue(stuck, MemorySegment.NULL, 0, 0);
                pl.flush(); // the loop serving the channel now waits in the handler
                e = assertThrows(ErrnoException.class, () -> {
                    for (int i = 0; i < 100; i++) {
                        pl.queue(GroutApi.PING, p, 0, p.byteSize());
                        pl.flush();
                    }
                });
            } finally {
                release.countDown();
            }
            assertFalse(c.isUsable(), "a send cut short leaves the stream out of step");
            assertEquals(Errno.ETIMEDOUT, e.errno());
            assertTrue(e.getMessage()
                    .matches("send\\(.*, shared memory\\): ETIMEDOUT \\(110\\) Connection timed out: the server took "
                            + "\\d+ of 32780 bytes"
                    + " within the send timeout of 200 ms \\(it does not read\\)"), e.getMessage());
        }
    }
}
