package org.sysframe.transport;

import com.sun.management.ThreadMXBean;
import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.LoopsIndependent;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.transport.support.TestServers;
import org.sysframe.unix.ThreadSyscall;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.LongSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hot paths allocate nothing on the Java heap once compiled: the measured thread's allocated-bytes
 * counter (HotSpot's per-thread TLAB accounting) does not move over 4,001 client calls, 20,001 server
 * requests or 64,064 pipelined calls. The first rounds run before C2 compiled the path (an
 * interpreted FFM downcall allocates), so each check gets several rounds.
 *
 * <p>One allocation is the JDK's, not sysframe's: the FFM linker slices the errno capture segment on
 * every downcall ({@code SharedUtils.checkCaptureSegment}, seen with JFR) and relies on C2 to remove
 * the slice; now and then a JVM's C2 does not inline a downcall far enough and the 40-byte slice stays
 * (one run in three of the whole suite, on JDK 25). A round that still allocates after its attempts
 * therefore passes only if what it allocated is whole slices, at most one per downcall it made (the
 * library counts them). A round's calls, requests or windows are a count prime to 40 (4,001, 20,001, 1,001), so
 * that an allocation of sysframe's own per call adds up to whole slices only if it is itself a multiple of 40 bytes:
 * with rounds of 10,000 calls, 24 bytes a call made 6,000 "slices" and passed. The build runs this class in a JVM of
 * its own (transport's pom): other tests' classes do not shape it.
 */
@EachBackend
class HotPathAllocationTest {
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    @TempDir Path dir;

    /** Bytes of one segment slice, the object the JDK's linker makes per downcall (40 on a 64-bit JVM). */
    private static final long SLICE = sliceSize();

    /**
     * The bytes of one slice: the least of five measurements of 1,000 (one measurement read 41 once,
     * something else of the thread's allocated in its window: only whole slices count).
     */
    private static long sliceSize() {
        MemorySegment s = Arena.global().allocate(64);
        MemorySegment[] keep = new MemorySegment[1000];
        long least = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            long before = THREADS.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < keep.length; i++) keep[i] = s.asSlice(0, 8);
            long bytes = THREADS.getCurrentThreadAllocatedBytes() - before;
            if (keep[999].byteSize() != 8) return -1;
            least = Math.min(least, bytes / keep.length);
        }
        return least;
    }

    /** A round of calls on the measured thread (or driving it). */
    private interface Round {
        void run() throws Exception;
    }

    /**
     * Runs round up to attempts times until it allocated nothing; else what the last round allocated
     * must be whole capture-state slices, at most one per downcall of the round (downcalls: the library's
     * syscall count over the round). Three rounds in a row of the same whole slices end the attempts
     * early: the compiled code is settled, and more rounds would only take time.
     */
    private static void assertNothingOfOurs(String what, LongSupplier allocated, LongSupplier downcalls, int attempts,
            Round round)
            throws Exception {
        long bytes = Long.MAX_VALUE, calls = 0, previous = -1;
        int same = 0;
        for (int attempt = 0; attempt < attempts && bytes != 0 && same < 3; attempt++) {
            long calls0 = downcalls.getAsLong(); // read outside the window: a snapshot allocates
            long before = allocated.getAsLong();
            round.run();
            bytes = allocated.getAsLong() - before;
            calls = downcalls.getAsLong() - calls0;
            same = bytes == previous && SLICE > 0 && bytes % SLICE == 0 ? same + 1 : 0;
            previous = bytes;
        }
        if (bytes == 0) return;
        assertEquals(40, SLICE, "a segment slice's size on this JVM");
        assertEquals(0, bytes % SLICE, what + ": " + bytes + " B is not whole capture-state slices");
        assertTrue(bytes / SLICE <= calls, what + ": " + bytes / SLICE + " slices for " + calls + " downcalls");
        System.out.printf("note: %s: %,d B in the last round = %,d capture-state slices of the JDK's linker for %,d "
                + "downcalls"
                + " (C2 kept them in this JVM)%n", what, bytes, bytes / SLICE, calls);
    }

    @Test
    @LoopsIndependent
    void sendRecvAllocatesNothingPerCallWithEveryClientFraming() throws Exception {
        String path = dir.resolve("alloc.sock").toString();
        try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath(path)); Arena a =
                Arena.ofConfined()) {
            MemorySegment payload = a.allocate(1024);
            for (SendFraming send : new SendFraming[] {SendFraming.SPLIT, SendFraming.COPY, SendFraming.GATHER,
                    SendFraming.COPY_GATHER}) {
                for (RecvFraming recv : new RecvFraming[] {RecvFraming.EXACT, RecvFraming.READAHEAD}) {
                    try (GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).send(send)
                            .recv(recv))) {
                        for (int len : new int[] {0, 32, 1024}) {
                            // Rounds of 4,001 calls, at most 100 (as many calls as 40 rounds of 10,000 were): the
                            // last round, the only one most of the 24 cases need once the path is compiled, is short.
                            assertNothingOfOurs("4,001 calls, " + send + "/" + recv + ", " + len + " B",
                                    THREADS::getCurrentThreadAllocatedBytes, () -> c.counters().snapshot().total(), 100,
                                    () -> {
                                        for (int i = 0; i < 4_001; i++) c.call(GroutApi.PING, payload, 0, len);
                                    });
                        }
                    }
                }
            }
        }
    }

    /** Answers with the request's payload, written in place where the answer is sent from ({@link Reply#claim}). */
    static final int CLAIMED = GroutApi.type(0x6c6d, 9);

    static void claimed(Request request, Reply reply) {
        long at = reply.claim(request.length());
        MemorySegment.copy(request.buffer(), request.offset(), reply.claimed(), at, request.length());
        reply.commit();
    }

    @Test
    void serverLoopAllocatesNothingPerRequestInEitherFlushMode() throws Exception {
        for (FlushMode flush : FlushMode.values()) {
            String path = dir.resolve("srv-" + flush + ".sock").toString();
            try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath(path).flush(flush)
                    .handle(CLAIMED, 0, HotPathAllocationTest::claimed));
                 GroutClient c = GroutClient.connect(path)) {
                assertTheLoopAllocatesNothing("the server loop over 20,001 requests, " + flush, s, c, 5);
            }
        }
    }

    @Test
    void aChannelsLoopAllocatesNothingPerRequest() throws Exception {
        String path = dir.resolve("channel.sock").toString();
        try (GroutServer s = TestServers.startOneLoop(ServerOptions.defaults().socketPath(path).sharedMemory(true)
                .handle(CLAIMED, 0, HotPathAllocationTest::claimed));
             GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL)
                     .sharedMemory(true))) {
            assertTrue(c.sharedMemory());
            // Both blocking: the loop sleeps in its wait, so that it can be read while parked. Its path takes C2 longer
            // to settle in this JVM than the socket's (a run of this test alone: three rounds, then 0 B in every one).
            assertTheLoopAllocatesNothing("a channel's loop over 20,001 requests", s, c, 20);
        }
    }

    /**
     * Loop 0 of s allocates nothing over 20,001 requests of c, answered by echo (PING) and by a claim, of 32 and 1,024
     * bytes each, within attempts rounds. Its allocated bytes are read while it is parked, so that a round's count is
     * exactly its requests'.
     */
    private static void assertTheLoopAllocatesNothing(String what, GroutServer s, GroutClient c, int attempts)
            throws Exception {
        long loopId = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("sysframe-server-0 " + s.socketPath())).findFirst().orElseThrow()
                .threadId();
        LongSupplier loopAllocated = () -> {
            try {
                ThreadSyscall.awaitParked(s.loopThreadId(), Duration.ofSeconds(10));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return THREADS.getThreadAllocatedBytes(loopId);
        };
        try (Arena a = Arena.ofConfined()) {
            MemorySegment payload = a.allocate(1024);
            assertNothingOfOurs(what, loopAllocated, () -> s.loopCounters(0).snapshot().total(), attempts, () -> {
                for (int i = 0; i < 20_001; i++) {
                    c.call((i & 2) == 0 ? GroutApi.PING : CLAIMED, payload, 0, (i & 1) == 0 ? 32 : 1024);
                }
            });
        }
    }

    @Test
    void aPipelinedClientAllocatesNothingPerRequest() throws Exception {
        String path = dir.resolve("pipeline-alloc.sock").toString();
        try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath(path));
             GroutClient c = GroutClient.connect(path); Arena a = Arena.ofConfined();
             Pipeline p = c.pipeline(PipelineOptions.window(64))) {
            MemorySegment payload = a.allocate(32);
            long[] n = {0};
            Pipeline.AnswerHandler count = (id, status, pl, off, len, lat) -> n[0]++;
            assertNothingOfOurs("64,064 pipelined calls (1,001 windows)", THREADS::getCurrentThreadAllocatedBytes,
                    () -> c.counters().snapshot().total(), 20, () -> {
                for (int b = 0; b < 1001; b++) {
                    for (int i = 0; i < 64; i++) p.queue(GroutApi.PING, payload, 0, 32);
                    while (p.inFlight() > 0) p.poll(count, 64, true);
                }
            });
            assertEquals(0, p.inFlight());
        }
    }

    @Test
    void aPipelinedClientWithRequestDeadlinesAllocatesNothingPerRequest() throws Exception {
        String path = dir.resolve("pipeline-deadline-alloc.sock").toString();
        try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath(path));
             GroutClient c = GroutClient.connect(path); Arena a = Arena.ofConfined();
             Pipeline p = c.pipeline(PipelineOptions.window(64).requestTimeoutMillis(5000))) {
            MemorySegment payload = a.allocate(32);
            long[] n = {0};
            Pipeline.AnswerHandler count = (id, status, pl, off, len, lat) -> n[0]++;
            assertNothingOfOurs("64,064 pipelined calls (1,001 windows) with a request timeout",
                    THREADS::getCurrentThreadAllocatedBytes, () -> c.counters().snapshot().total(), 20, () -> {
                for (int b = 0; b < 1001; b++) {
                    for (int i = 0; i < 64; i++) p.queue(GroutApi.PING, payload, 0, 32);
                    while (p.inFlight() > 0) p.poll(count, 64, true);
                }
            });
            assertEquals(0, p.inFlight());
        }
    }
}
