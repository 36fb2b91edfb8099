package org.sysframe.transport.shm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.Event;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.Pipeline;
import org.sysframe.transport.PipelineOptions;
import org.sysframe.transport.Response;
import org.sysframe.transport.ResponseStream;
import org.sysframe.transport.ServerOptions;
import org.sysframe.transport.WaitMode;
import org.sysframe.transport.Backend;
import org.sysframe.transport.support.Pings;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.internal.shm.ShmServer;
import org.sysframe.testsupport.Awaits;
import org.sysframe.unix.Errno;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.ThreadSyscall;
import org.sysframe.unix.uring.UringSupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Calls, pipelines, streams and events over a shared-memory channel, on a real server and socket. */
class SharedMemoryChannelTest {
    static final int STREAM = GroutApi.type(0x7a7a, 1);

    @TempDir Path dir;

    /** The server backends a channel is served on: epoll, and io_uring where this kernel has it. */
    static List<Backend> serverBackends() {
        return UringSupport.unavailableReason() == null ? List.of(Backend.EPOLL, Backend.IO_URING)
                : List.of(Backend.EPOLL);
    }

    ServerOptions server(String path) { return server(path, Backend.EPOLL); }

    ServerOptions server(String path, Backend backend) {
        return ServerOptions.defaults().socketPath(path).backend(backend).sharedMemory(true)
                .handle(STREAM, 4, (req, reply) -> {
                    int n = req.buffer().get(JAVA_INT_UNALIGNED, req.offset());
                    MemorySegment item = Arena.ofAuto().allocate(8);
                    for (int i = 0; i < n; i++) {
                        item.set(JAVA_INT_UNALIGNED, 0, i);
                        reply.item(item, 0, 8);
                    }
                    reply.end();
                });
    }

    ClientOptions client(String path, WaitMode mode) {
        return ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL).sharedMemory(true).waitMode(mode);
    }

    @ParameterizedTest
    @MethodSource("serverBackends")
    void pingsGoOverTheChannelInEveryWaitModeOfEitherSide(Backend backend) throws Exception {
        // A side that never sleeps (spin, yield) is published to with no fence and no wake; one that may sleep is
        // woken: every pairing of a sleeping and a never-sleeping side must go on, none waiting for a wake that does
        // not come.
        WaitMode[] modes = {WaitMode.BLOCK, WaitMode.SPIN, WaitMode.spinThenBlock(Duration.ofNanos(50_000)),
                WaitMode.YIELD};
        for (WaitMode serverMode : new WaitMode[] {WaitMode.BLOCK, WaitMode.SPIN}) {
            String path = dir.resolve("shm-" + serverMode.toString().replace(':', '-') + ".sock").toString();
            try (GroutServer s = GroutServer.start(server(path, backend).sharedMemoryWaitMode(serverMode))) {
                assertEquals(backend, s.backend());
                for (WaitMode mode : modes) {
                    try (GroutClient c = GroutClient.connect(client(path, mode))) {
                        assertTrue(c.sharedMemory(), mode + " client, " + serverMode + " server on " + backend);
                        for (int i = 0; i < 500; i++) Pings.ping(c, i, i % 3 == 0 ? 0 : 1 + (i * 37) % 2000);
                        Pings.ping(c, 7, GroutApi.MAX_MSG_LEN); // larger than nothing, smaller than the ring
                    }
                }
            }
        }
    }

    @Test
    void aServerWithoutChannelsKeepsTheClientOnTheSocket() throws Exception {
        String path = dir.resolve("plain.sock").toString();
        try (GroutServer s = GroutServer.start(ServerOptions.defaults().socketPath(path).backend(Backend.EPOLL));
             GroutClient c = GroutClient.connect(client(path, WaitMode.BLOCK))) {
            assertFalse(c.sharedMemory());
            Pings.ping(c, 1, 32);
            assertTrue(ShmServer.channels().isEmpty());
        }
    }

    @Test
    void requestsPerReadAppliesToTheSocketOnlyNotToTheChannel() throws Exception {
        // The emulation of Grout's socket reads: three pings flushed together over the channel get three answers.
        String path = dir.resolve("per-read.sock").toString();
        try (GroutServer s = GroutServer.start(server(path).requestsPerRead(1));
             GroutClient c = GroutClient.connect(client(path, WaitMode.BLOCK));
             Arena a = Arena.ofConfined();
             Pipeline pl = c.pipeline(PipelineOptions.window(3))) {
            assertTrue(c.sharedMemory());
            MemorySegment p = a.allocate(8);
            for (int i = 0; i < 3; i++) assertTrue(pl.queue(GroutApi.PING, p, 0, 8) > 0);
            pl.flush();
            int[] answered = {0};
            while (pl.inFlight() > 0) {
                pl.poll((id, status, buffer, offset, length, latency) -> {
                    assertEquals(0, status);
                    answered[0]++;
                }, 3, true);
            }
            assertEquals(3, answered[0]);
        }
    }

    @ParameterizedTest
    @MethodSource("serverBackends")
    void aSpinningChannelMakesItsBlockingLoopSpinWhileItIsOpenAndTheLoopSleepsOnceItClosed(Backend backend)
            throws Exception {
        String path = dir.resolve("eager.sock").toString();
        // Its look at its sockets: epoll_wait(0), or io_uring_enter for the completions its ring defers.
        SyscallKind look = backend == Backend.EPOLL ? SyscallKind.EPOLL_WAIT : SyscallKind.IO_URING_ENTER;
        try (GroutServer s = GroutServer.start(server(path, backend).loops(1).waitMode(WaitMode.BLOCK)
                .sharedMemoryWaitMode(WaitMode.SPIN))) {
            int loop = s.loopThreadId(0);
            ThreadSyscall.awaitParked(loop, Duration.ofSeconds(10)); // no channel: the loop sleeps
            long before = s.loopCounters(0).get(look);
            try (GroutClient c = GroutClient.connect(client(path, WaitMode.SPIN))) {
                assertTrue(c.sharedMemory());
                Pings.ping(c, 1, 100);
                // Idle, the loop still looks at its sockets now and then (at most every 20 us) while it
                // spins for the channel: its count goes on growing, with no call made.
                long open = s.loopCounters(0).get(look);
                Awaits.awaitUntil(() -> s.loopCounters(0).get(look) > open + 10,
                        Duration.ofSeconds(20), () -> "the loop serving a spinning channel looks at its sockets");
                assertTrue(open > before);
            }
            Awaits.awaitEquals(0, () -> ShmServer.channels().size(), Duration.ofSeconds(10), "channels open");
            ThreadSyscall.awaitParked(loop, Duration.ofSeconds(10)); // its channel gone, the loop sleeps again
        }
    }

    @Test
    void aTurnThatWritesMoreThanTheAnswerRingHoldsPublishesWhatFitsAndGoesOn() throws Exception {
        // One request whose handler writes 5,000 items (24 bytes each, 120,000 bytes) in one turn into a
        // ring of 4,096: what a turn writes is published at its end (at once when the ring is full), the
        // rest waits in the connection's queue and follows as the client makes room, in order, none lost.
        // Every wait mode of the channel (its loop waits so).
        for (WaitMode mode : new WaitMode[] {WaitMode.BLOCK, WaitMode.SPIN, WaitMode.parse("spin:50us")}) {
            String path = dir.resolve("small-" + mode.toString().replace(':', '-') + ".sock").toString();
            try (GroutServer s = GroutServer.start(server(path).sharedMemoryRing(4096).sharedMemoryWaitMode(mode));
                 GroutClient c = GroutClient.connect(client(path, WaitMode.BLOCK));
                 Arena a = Arena.ofConfined()) {
                assertTrue(c.sharedMemory());
                MemorySegment n = a.allocate(4);
                n.set(JAVA_INT_UNALIGNED, 0, 5000);
                int items = 0;
                try (ResponseStream st = c.stream(STREAM, n, 0, 4)) {
                    while (st.next()) {
                        assertEquals(items, st.current().buffer().get(JAVA_INT_UNALIGNED, st.current().offset()),
                                mode.toString());
                        items++;
                    }
                }
                assertEquals(5000, items, mode.toString());
                Pings.ping(c, 3, 100);
            }
        }
    }

    @Test
    void aTurnPublishesEachKibibyteItWroteWithoutWaitingForItsEnd() throws Exception {
        // A handler that writes 100 stream items (20 bytes each: 2,000 bytes) and then waits, in the middle of its
        // loop's turn, until the client has read 40 of them: only a publish before the turn's end (the first comes
        // with the 52nd item, at 1,040 bytes) lets the client see them. Once let go, it writes 100 more and ends.
        int halfway = GroutApi.type(0x7a7a, 2);
        CountDownLatch read40 = new CountDownLatch(1);
        String path = dir.resolve("early.sock").toString();
        ServerOptions o = server(path).handle(halfway, 0, (req, reply) -> {
            MemorySegment item = Arena.ofAuto().allocate(8);
            for (int i = 0; i < 200; i++) {
                if (i == 100 && !read40.await(20, TimeUnit.SECONDS)) throw new IllegalStateException("never read");
                item.set(JAVA_INT_UNALIGNED, 0, i);
                reply.item(item, 0, 8);
            }
            reply.end();
        });
        try (GroutServer s = GroutServer.start(o);
             GroutClient c = GroutClient.connect(client(path, WaitMode.BLOCK).receiveTimeoutMillis(10_000))) {
            assertTrue(c.sharedMemory());
            int items = 0;
            try (ResponseStream st = c.stream(halfway, MemorySegment.NULL, 0, 0)) {
                while (st.next()) {
                    assertEquals(items, st.current().buffer().get(JAVA_INT_UNALIGNED, st.current().offset()));
                    if (++items == 40) read40.countDown(); // the handler is still waiting: its turn goes on
                }
            }
            assertEquals(200, items);
            Pings.ping(c, 3, 100);
        }
    }

    @Test
    void aChannelsAnswersArePublishedOnceItsRequestsAreHandledNotAtTheEndOfItsLoopsTurn() throws Exception {
        // Two channels on one loop whose requests come while a socket's handler holds the loop, so that one turn
        // serves both. The channel opened last is served first; the handler of the other waits, in that turn, until
        // the first one's client has its answer: only a publish once a channel's requests are handled lets it.
        int hold = GroutApi.type(0x7a7a, 3), servedSecond = GroutApi.type(0x7a7a, 4);
        int servedFirst = GroutApi.type(0x7a7a, 5);
        CountDownLatch holding = new CountDownLatch(1), firstAnswered = new CountDownLatch(1);
        String path = dir.resolve("served.sock").toString();
        ServerOptions o = server(path).loops(1)
                .handle(hold, 0, (req, reply) -> {
                    holding.countDown();
                    Thread.sleep(300); // the loop's turn, held while both channels' requests come
                    reply.ok();
                })
                .handle(servedFirst, 0, (req, reply) -> reply.ok())
                .handle(servedSecond, 0, (req, reply) -> {
                    if (firstAnswered.await(3, TimeUnit.SECONDS)) reply.ok();
                    else reply.error(Errno.ETIMEDOUT); // the other answer waits for the end of this turn
                });
        try (GroutServer s = GroutServer.start(o);
             GroutClient second = GroutClient.connect(client(path, WaitMode.BLOCK));
             GroutClient first = GroutClient.connect(client(path, WaitMode.BLOCK));
             GroutClient socket = GroutClient.connect(ClientOptions.defaults().socketPath(path))) {
            assertTrue(first.sharedMemory() && second.sharedMemory());
            assertFalse(socket.sharedMemory());
            Thread held = Thread.ofPlatform().start(() -> call(socket, hold, null));
            assertTrue(holding.await(10, TimeUnit.SECONDS));
            Thread other = Thread.ofPlatform().start(() -> call(first, servedFirst, firstAnswered));
            assertEquals(0, second.call(servedSecond).length());
            other.join(10_000);
            held.join(10_000);
            assertEquals(0, firstAnswered.getCount());
        }
    }

    /** A call on a thread of the test's: done counted down once it is answered. */
    private static void call(GroutClient c, int type, CountDownLatch done) {
        try {
            c.call(type);
            if (done != null) done.countDown();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void messagesLargerThanTheRingsGoInPiecesAndTheRestInPlace() throws Exception {
        // Rings of 4,096 bytes: a request or an answer of more is a stream of pieces (copied), one that fits is
        // written and read in place, and the two alternate on one channel, in every wait mode of the client.
        for (WaitMode mode : new WaitMode[] {WaitMode.BLOCK, WaitMode.SPIN, WaitMode.parse("spin:50us")}) {
            String path = dir.resolve("pieces-" + mode.toString().replace(':', '-') + ".sock").toString();
            try (GroutServer s = GroutServer.start(server(path).sharedMemoryRing(4096));
                 GroutClient c = GroutClient.connect(client(path, mode))) {
                assertTrue(c.sharedMemory());
                for (int len : new int[] {GroutApi.MAX_MSG_LEN, 100, 4096 - 16, 4096 - 12, 4096, 9000, 1}) {
                    Pings.ping(c, 3, len);
                }
            }
        }
    }

    @Test
    void pipelinesStreamsAndEventsWorkOverTheChannel() throws Exception {
        String path = dir.resolve("all.sock").toString();
        try (GroutServer s = GroutServer.start(server(path));
             GroutClient c = GroutClient.connect(client(path, WaitMode.SPIN));
             Arena a = Arena.ofConfined()) {
            assertTrue(c.sharedMemory());
            // Pipelining: 10,000 pings, up to 256 in flight, more bytes than the ring holds at once.
            MemorySegment p = a.allocate(512);
            for (int i = 0; i < 512; i++) p.set(JAVA_BYTE, i, (byte) i);
            long[] answered = {0};
            try (Pipeline pl = c.pipeline(PipelineOptions.window(256))) {
                int sent = 0;
                while (sent < 10_000 || pl.inFlight() > 0) {
                    while (sent < 10_000 && pl.inFlight() < 256) {
                        assertTrue(pl.queue(GroutApi.PING, p, 0, 512) > 0);
                        sent++;
                    }
                    pl.flush();
                    pl.poll((id, status, buffer, offset, length, latency) -> {
                        assertEquals(0, status);
                        assertEquals(512, length);
                        assertEquals(-1, MemorySegment.mismatch(buffer, offset, offset + length, p, 0, 512));
                        answered[0]++;
                    }, 256, true);
                }
            }
            assertEquals(10_000, answered[0]);

            // A stream of 1000 items.
            MemorySegment n = a.allocate(4);
            n.set(JAVA_INT_UNALIGNED, 0, 1000);
            int items = 0;
            try (ResponseStream st = c.stream(STREAM, n, 0, 4)) {
                while (st.next()) {
                    Response r = st.current();
                    assertEquals(items, r.buffer().get(JAVA_INT_UNALIGNED, r.offset()));
                    items++;
                }
            }
            assertEquals(1000, items);

            // Events: one published by the server, one by another client's request on the socket.
            c.subscribe(GroutApi.EVENT_ALL, false);
            s.execute(() -> {
                MemorySegment ev = Arena.ofAuto().allocate(4);
                ev.set(JAVA_INT_UNALIGNED, 0, 0x5eed);
                s.publish(GroutApi.type(0x7a7a, 9), ev, 0, 4, 0);
            });
            Event e = c.nextEvent(Duration.ofSeconds(10));
            assertEquals(GroutApi.type(0x7a7a, 9), e.type());
            assertEquals(0x5eed, e.buffer().get(JAVA_INT_UNALIGNED, e.offset()));
            Pings.ping(c, 3, 100);
        }
    }
}
