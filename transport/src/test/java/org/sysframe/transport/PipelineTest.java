package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.wire.GroutApi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.testsupport.WireBytes;
import org.sysframe.transport.support.RawRequest;
import org.sysframe.transport.support.RawServer;
import org.sysframe.transport.support.ServerFixture;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.ThreadSyscall;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A pipelined client: batches sent with one syscall, answers matched by id in any order, failures delivered to every
 * request in flight.
 */
@EachBackend
class PipelineTest {
    @RegisterExtension
    final ServerFixture fx = new ServerFixture();

    /** Records what the handler got: ids, statuses and the first 4 payload bytes (the request's tag). */
    private static final class Answers implements Pipeline.AnswerHandler {
        final List<int[]> got = new ArrayList<>();
        long count;
        long mismatched;

        @Override
        public void onResponse(int id, int status, MemorySegment payload, long offset, long length, long latencyNanos) {
            count++;
            int tag = length >= 4 ? payload.get(JAVA_INT_UNALIGNED, offset) : -1;
            if (got.size() < 10_000) got.add(new int[] {id, status, tag});
        }
    }

    @Test
    void windowsOutsideTheSixteenBitIdsAreRefusedAtConfiguration() {
        assertEquals("window 0: expected 1..32768 (request ids are 16-bit)",
                assertThrows(IllegalArgumentException.class, () -> PipelineOptions.window(0)).getMessage());
        assertEquals("window 65535: expected 1..32768 (request ids are 16-bit)",
                assertThrows(IllegalArgumentException.class, () -> PipelineOptions.window(65535)).getMessage());
    }

    @Test
    @NeedsKernelCounter
    void depth32Batch32CostsOneSendPerBatchAndTheDeferredServerOneRecvAndOneWritePerReadBatch() throws Exception {
        String path = fx.path("pipeline.sock");
        GroutServer s = fx.start(ServerOptions.defaults().socketPath(path));
        int batches = 1000, depth = 32;
        try (GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path)
                .backend(Backend.EPOLL)); Arena a = Arena.ofConfined();
             KernelSyscallCounter k = KernelSyscallCounter.forCurrentThread();
             KernelSyscallCounter sk = KernelSyscallCounter.forThread(s.loopThreadId());
             Pipeline p = c.pipeline(PipelineOptions.window(depth))) {
            MemorySegment payload = a.allocate(32);
            Answers answers = new Answers();
            ThreadSyscall.awaitParked(s.loopThreadId(), Duration.ofSeconds(10));
            SyscallCounts c0 = c.counters().snapshot(), k0 = k.read(), s0 = s.counters().snapshot(), sk0 = sk.read();
            for (int b = 0; b < batches; b++) {
                for (int i = 0; i < depth; i++) {
                    payload.set(JAVA_INT_UNALIGNED, 0, b * depth + i);
                    assertTrue(p.queue(GroutApi.PING, payload, 0, 32) > 0);
                }
                p.flush();
                while (p.inFlight() > 0) p.poll(answers, depth, true);
            }
            SyscallCounts client = c.counters().snapshot().minus(c0), kernel = k.read().minus(k0);
            ThreadSyscall.awaitParked(s.loopThreadId(), Duration.ofSeconds(10));
            SyscallCounts server = s.counters().snapshot().minus(s0), serverKernel = sk.read().minus(sk0);
            System.out.printf("pipeline depth %d batch %d, %d pings of 32 B: client %s (kernel %s); server %s (kernel "
                    + "%s)%n",
                    depth, depth, batches * depth, client, kernel, server, serverKernel);
            assertEquals(batches * depth, answers.count);
            assertEquals(client, kernel, "client: library vs kernel");
            assertEquals(server, serverKernel, "server: library vs kernel");
            assertEquals(batches, client.get(SyscallKind.SENDTO), "one send per batch of 32");
            assertEquals(0, client.get(SyscallKind.SENDMSG));
            long recvs = client.get(SyscallKind.RECVFROM);
            assertTrue(recvs >= batches && recvs <= batches * depth, "receives " + recvs);
            long reads = server.get(SyscallKind.RECVFROM);
            assertEquals(reads, server.get(SyscallKind.WRITEV) + server.get(SyscallKind.SENDTO),
                    "each read's requests answered by one write");
        }
    }

    @Test
    void answersInAnyOrderAreMatchedByIdAndEventsInBetweenAreKept() throws Exception {
        String path = fx.path("reversed.sock");
        int evType = GroutApi.type(0x7e57, 1);
        try (RawServer server = new RawServer(path, conn -> {
            for (int pair = 0; pair < 4; pair++) {
                RawRequest first = conn.readRequest(), second = conn.readRequest();
                if (pair == 2) conn.respond(0x7777, 0, new byte[] {1, 2, 3, 4}); // an id never sent
                conn.respond(second.id(), 0, second.payload());
                if (pair == 1) conn.write(WireBytes.event(evType, new byte[] {9, 9}));
                conn.respond(first.id(), 0, first.payload());
            }
            conn.awaitEof();
        }); GroutClient c = GroutClient.connect(path); Arena a = Arena.ofConfined(); Pipeline p =
                c.pipeline(PipelineOptions.window(8))) {
            MemorySegment payload = a.allocate(4);
            int[] ids = new int[8];
            for (int i = 0; i < 8; i++) {
                payload.set(JAVA_INT_UNALIGNED, 0, 100 + i);
                ids[i] = p.queue(GroutApi.PING, payload, 0, 4);
            }
            Answers answers = new Answers();
            while (p.inFlight() > 0) p.poll(answers, 8, true);
            assertEquals(8, answers.count);
            for (int[] g : answers.got) {
                int i = Arrays.stream(ids).boxed().toList().indexOf(g[0]);
                assertEquals(100 + i, g[2], "answer for id " + g[0] + " carries its own request's payload");
                assertEquals(0, g[1]);
            }
            assertEquals(ids[1], answers.got.get(0)[0], "the second of the pair came first");
            assertEquals(1, c.pendingEvents(), "the event in between is kept for nextEvent");
            assertEquals(1, c.stats().unmatched(),
                    "the answer for an id never sent is dropped and counted, not matched");
            assertEquals(evType, c.pollEvent().type());
            assertEquals(0, c.pendingEvents());
        }
    }

    @Test
    void aServerThatClosesWithRequestsInFlightFailsEachOfThemWithEconnreset() throws Exception {
        String path = fx.path("closing.sock");
        try (RawServer server = new RawServer(path, conn -> {
            RawRequest r = conn.readRequest();
            conn.respond(r.id(), 0, r.payload());
            for (int i = 0; i < 4; i++) conn.readRequest();
            // then the script ends: the server closes with 4 requests unanswered
        }); GroutClient c = GroutClient.connect(path); Arena a = Arena.ofConfined()) {
            Pipeline p = c.pipeline(PipelineOptions.window(8));
            MemorySegment payload = a.allocate(4);
            for (int i = 0; i < 5; i++) p.queue(GroutApi.PING, payload, 0, 4);
            Answers answers = new Answers();
            ErrnoException e = assertThrows(ErrnoException.class, () -> {
                while (p.inFlight() > 0) p.poll(answers, 8, true);
            });
            assertEquals(Errno.ECONNRESET, e.errno(), e.getMessage());
            assertEquals(5, answers.count, "one answer and four failures: none lost");
            assertEquals(4, answers.got.stream().filter(g -> g[1] == Errno.ECONNRESET).count());
            assertEquals(0, p.inFlight());
            assertFalse(c.isUsable());
        }
    }

    @Test
    void anAnswerMadeUpForAnIdThePipelineHoldsAndHasNotSentIsUnmatchedAndTheIdStaysItsOwn() throws Exception {
        String path = fx.path("made-up.sock");
        try (RawServer server = new RawServer(path, conn -> {
            RawRequest first = conn.readRequest();
            // The pipeline took ids for its window's room together: the next one is held, its request not sent.
            conn.respond(first.id() + 1, 0, new byte[] {9, 9, 9, 9});
            conn.respond(first.id(), 0, first.payload());
            RawRequest second = conn.readRequest();
            conn.respond(second.id(), 0, second.payload());
            conn.awaitEof();
        }); GroutClient c = GroutClient.connect(path); Arena a = Arena.ofConfined();
             Pipeline p = c.pipeline(PipelineOptions.window(4))) {
            MemorySegment payload = a.allocate(4);
            payload.set(JAVA_INT_UNALIGNED, 0, 1);
            int firstId = p.queue(GroutApi.PING, payload, 0, 4);
            Answers answers = new Answers();
            while (p.inFlight() > 0) p.poll(answers, 4, true);
            assertEquals(1, answers.count, "the made-up answer reached no handler");
            assertArrayEquals(new int[] {firstId, 0, 1}, answers.got.get(0));
            assertEquals(1, c.stats().unmatched(), "the made-up answer counted as matching no call");
            assertEquals(0, c.stats().late(), "not as a late answer: the id was never sent");
            payload.set(JAVA_INT_UNALIGNED, 0, 2);
            int secondId = p.queue(GroutApi.PING, payload, 0, 4);
            assertEquals(firstId + 1, secondId, "the id stayed the pipeline's: its next request has it");
            while (p.inFlight() > 0) p.poll(answers, 4, true);
            assertArrayEquals(new int[] {secondId, 0, 2}, answers.got.get(1), "the next request got its own answer");
            assertTrue(c.isUsable());
        }
    }

    @Test
    void withoutAnInFlightCapItKeepsItsWindowsIdsAndTheStatsCountOnlyItsRequests() throws Exception {
        String path = fx.path("held.sock");
        fx.start(ServerOptions.defaults().socketPath(path));
        try (GroutClient c = GroutClient.connect(path); Arena a = Arena.ofConfined()) {
            MemorySegment payload = a.allocate(8);
            Answers answers = new Answers();
            Set<Integer> first = new HashSet<>(), later = new HashSet<>();
            try (Pipeline p = c.pipeline(PipelineOptions.window(8))) {
                for (int w = 0; w < 10; w++) {
                    for (int i = 0; i < 8; i++) (w == 0 ? first : later).add(p.queue(GroutApi.PING, payload, 0, 8));
                    assertEquals(8, c.stats().inFlight(), "window " + w + ": its requests");
                    while (p.inFlight() > 0) p.poll(answers, 8, true);
                    assertEquals(0, c.stats().inFlight(), "window " + w + " answered: the ids kept are not calls");
                }
            }
            assertEquals(80, answers.count);
            assertEquals(8, first.size());
            assertEquals(first, later, "every window had the first one's ids");
            assertEquals(0, c.stats().inFlight(), "closed: the ids went back");
            assertEquals(8, c.call(GroutApi.PING, payload, 0, 8).length(), "a call after it");
        }
    }

    @Test
    void anAnswerWholeInTheBufferButOverTheLargestPayloadFailsWithEmsgsize() throws Exception {
        String path = fx.path("over.sock");
        try (RawServer server = new RawServer(path, conn -> {
            RawRequest r = conn.readRequest();
            conn.respond(r.id(), 0, new byte[GroutApi.MAX_MSG_LEN + 1]); // a read-ahead of 1 MiB holds it whole
            conn.awaitEof();
        }); GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path)
                .recv(RecvFraming.readAhead(1 << 20))); Arena a = Arena.ofConfined();
             Pipeline p = c.pipeline(PipelineOptions.window(4))) {
            MemorySegment payload = a.allocate(4);
            int id = p.queue(GroutApi.PING, payload, 0, 4);
            Answers answers = new Answers();
            ErrnoException e = assertThrows(ErrnoException.class, () -> {
                while (p.inFlight() > 0) p.poll(answers, 4, true);
            });
            assertEquals(Errno.EMSGSIZE, e.errno());
            assertTrue(e.getMessage().contains("payload_len 131073"), e.getMessage());
            assertEquals(1, answers.count, "the request failed, with no payload");
            assertArrayEquals(new int[] {id, Errno.EMSGSIZE, -1}, answers.got.get(0));
            assertFalse(c.isUsable());
        }
    }

    @Test
    void aRequestUnansweredPastItsTimeoutFailsWithEtimedoutAndItsLateAnswerIsDroppedNotMatched() throws Exception {
        String path = fx.path("late.sock");
        try (RawServer server = new RawServer(path, conn -> {
            RawRequest slow = conn.readRequest();
            // The next request comes only once the slow one timed out at the client (1 s); it is
            // answered at once, the slow one late. (With 100 ms, a loaded machine's stall of that much
            // made the next request time out too: its answer came as ETIMEDOUT, with no payload.)
            RawRequest next = conn.readRequest();
            conn.respond(slow.id(), 0, slow.payload()); // late
            conn.respond(next.id(), 0, next.payload());
            conn.awaitEof();
        }); GroutClient c = GroutClient.connect(path); Arena a = Arena.ofConfined();
             Pipeline p = c.pipeline(PipelineOptions.window(4).requestTimeoutMillis(1_000))) {
            MemorySegment payload = a.allocate(4);
            payload.set(JAVA_INT_UNALIGNED, 0, 1);
            int slowId = p.queue(GroutApi.PING, payload, 0, 4);
            Answers answers = new Answers();
            p.flush();
            while (answers.count == 0) {
                p.poll(answers, 4, false);
                Thread.onSpinWait();
            }
            assertEquals(slowId, answers.got.get(0)[0]);
            assertEquals(Errno.ETIMEDOUT, answers.got.get(0)[1]);
            payload.set(JAVA_INT_UNALIGNED, 0, 2);
            int nextId = p.queue(GroutApi.PING, payload, 0, 4);
            while (p.inFlight() > 0) p.poll(answers, 4, true);
            assertEquals(2, answers.count);
            assertEquals(nextId, answers.got.get(1)[0]);
            assertEquals(0, answers.got.get(1)[1], "the next request's status");
            assertEquals(2, answers.got.get(1)[2], "the next request got its own answer");
            assertEquals(1, p.lateAnswers(), "the late answer was dropped and counted");
        }
    }

    @Test
    void whileAPipelineIsOpenAnotherThreadsCallGoesOutWithItsFlushAndIsAnsweredThroughItsPoll() throws Exception {
        String path = fx.path("shared.sock");
        fx.start(ServerOptions.defaults().socketPath(path));
        try (GroutClient c = GroutClient.connect(path); Arena a = Arena.ofConfined()) {
            byte[] theirs = {5, 6, 7, 8, 9};
            CompletableFuture<byte[]> other = new CompletableFuture<>();
            long calls;
            try (Pipeline p = c.pipeline(PipelineOptions.window(4))) {
                calls = c.stats().calls();
                Thread t = Thread.ofPlatform().name("other caller").start(() -> {
                    try (Arena o = Arena.ofConfined()) {
                        MemorySegment q = o.allocate(theirs.length);
                        MemorySegment.copy(MemorySegment.ofArray(theirs), 0, q, 0, theirs.length);
                        other.complete(c.call(GroutApi.PING, q).toByteArray());
                    } catch (Throwable e) {
                        other.completeExceptionally(e);
                    }
                });
                // The other call is queued for the pipeline's thread, which holds the client's I/O role: nothing moves
                // until it flushes.
                long until = System.nanoTime() + 30_000_000_000L;
                while (c.stats().calls() == calls) {
                    assertTrue(System.nanoTime() - until < 0, "the other thread's call was never made");
                    Thread.sleep(1);
                }
                assertTrue(!other.isDone(), "the other call waits for the pipeline's flush");
                MemorySegment payload = a.allocate(4);
                payload.set(JAVA_INT_UNALIGNED, 0, 42);
                p.queue(GroutApi.PING, payload, 0, 4);
                Answers answers = new Answers();
                while (p.inFlight() > 0) p.poll(answers, 4, true);
                assertEquals(1, answers.count, "the pipeline's handler got its own answer only");
                assertEquals(42, answers.got.get(0)[2]);
                assertArrayEquals(theirs, other.get(10, TimeUnit.SECONDS),
                        "the other caller got its own answer through the pipeline's poll");
                t.join(10_000);
                ClientStats st = c.stats();
                assertEquals(1, st.batches(), "the other call went out in one batch of the pipeline's flush");
                assertEquals(1, st.lastBatch());
                assertEquals(0, st.unmatched());
            }
            assertEquals(4, c.call(GroutApi.PING, payloadOf(a, 1, 2, 3, 4)).length(),
                    "the role is free again once the pipeline closed");
        }
    }

    private static MemorySegment payloadOf(Arena a, int... bytes) {
        MemorySegment m = a.allocate(bytes.length);
        for (int i = 0; i < bytes.length; i++) m.set(JAVA_BYTE, i, (byte) bytes[i]);
        return m;
    }

    @Test
    void aFullWindowPushesBackUntilAnswersCome() throws Exception {
        String path = fx.path("window.sock");
        fx.start(ServerOptions.defaults().socketPath(path));
        try (GroutClient c = GroutClient.connect(path); Arena a = Arena.ofConfined(); Pipeline p =
                c.pipeline(PipelineOptions.window(4))) {
            MemorySegment payload = a.allocate(8);
            for (int i = 0; i < 4; i++) assertTrue(p.queue(GroutApi.PING, payload, 0, 8) > 0);
            assertEquals(Pipeline.BACK_PRESSURED, p.queue(GroutApi.PING, payload, 0, 8));
            Answers answers = new Answers();
            while (p.inFlight() > 0) p.poll(answers, 4, true);
            assertTrue(p.queue(GroutApi.PING, payload, 0, 8) > 0, "room again");
        }
    }

    @Test
    void payloadsOverTheCopyThresholdLeaveFromWhereTheyAreInOneSendmsgPerBatch() throws Exception {
        String path = fx.path("large.sock");
        fx.start(ServerOptions.defaults().socketPath(path));
        try (GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path)
                .backend(Backend.EPOLL)); Arena a = Arena.ofConfined(); Pipeline p =
                c.pipeline(PipelineOptions.window(8))) {
            MemorySegment big = a.allocate(4096);
            for (int i = 0; i < 4096; i++) big.set(JAVA_BYTE, i, (byte) (i * 7));
            SyscallCounts c0 = c.counters().snapshot();
            Answers answers = new Answers();
            for (int round = 0; round < 10; round++) {
                for (int i = 0; i < 8; i++) p.queue(GroutApi.PING, big, 0, 4096);
                p.flush();
                while (p.inFlight() > 0) p.poll((id, status, pl, off, len, lat) -> {
                    answers.count++;
                    assertEquals(4096, len);
                    assertEquals(-1, MemorySegment.mismatch(pl, off, off + len, big, 0, 4096));
                }, 8, true);
            }
            SyscallCounts used = c.counters().snapshot().minus(c0);
            assertEquals(80, answers.count);
            assertEquals(10, used.get(SyscallKind.SENDMSG), "one sendmsg per batch of 8 x 4 KiB");
            assertEquals(0, used.get(SyscallKind.SENDTO));
        }
    }

    @Test
    void aPipeliningClientCannotHoldTheLoopWhileAnotherWaits() throws Exception {
        String path = fx.path("fair.sock");
        GroutServer s = fx.start(ServerOptions.defaults().socketPath(path).maxRequestsPerTurn(64));
        int flood = 4096;
        try (GroutClient heavy = GroutClient.connect(path); GroutClient light = GroutClient.connect(path); Arena a =
                Arena.ofConfined();
             Pipeline p = heavy.pipeline(PipelineOptions.window(flood))) {
            MemorySegment payload = a.allocate(32);
            for (int i = 0; i < flood; i++) p.queue(GroutApi.PING, payload, 0, 32);
            p.flush();
            light.call(GroutApi.PING, payload);  // answered while the flood is being served
            Answers answers = new Answers();
            while (p.inFlight() > 0) p.poll(answers, flood, true);
            assertEquals(flood, answers.count);
        }
        // Both clients closed their ends; the loop records a connection when it reads that EOF.
        ServerFixture.awaitConnectionCount(s, 0);
        ConnectionStats heavyStats = s.closedConnections().stream().filter(st -> st.requests() == flood + 1)
                .findFirst().orElseThrow();
        long writes = heavyStats.syscalls().get(SyscallKind.WRITEV) + heavyStats.syscalls().get(SyscallKind.SENDTO);
        if (s.backend() == Backend.IO_URING) {
            // One enter serves every connection of a turn, so a connection's own counters see none, and
            // its answers may gather in its output area while its socket is full: count the loop's turns
            // instead, one io_uring_enter each, in which a connection has at most two budgets of 64
            // (what arrived, and what was left from the last turn), as with epoll, whose writes count budgets.
            long turns = 0;
            for (int i = 0; i < s.loopCount(); i++) turns += s.loopCounters(i).get(SyscallKind.IO_URING_ENTER);
            assertTrue(turns >= (flood + 1) / 128, "at most 2 x 64 requests answered per turn: " + turns
                    + " turns for " + flood);
            return;
        }
        assertTrue(writes >= (flood + 1) / 64, "at most 64 requests answered per turn: " + writes + " writes for "
                + flood);
    }
}
