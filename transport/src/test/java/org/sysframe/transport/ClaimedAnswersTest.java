package org.sysframe.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.ServerLogs;
import org.sysframe.transport.support.TestClients;
import org.sysframe.transport.support.TestServers;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.unix.Errno;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Answers a handler writes in place ({@link Reply#claim}, {@link Reply#commit}): whole and in order at every size,
 * on both backends and over the shared-memory channel, where a claim is room in the answer ring itself, or the
 * loop's memory when the ring is too full or too small for it. The server's ring is the smallest (4 KiB), so that a
 * pipeline of claims fills it and large answers cannot be claimed in it.
 */
@EachBackend(alsoOverSharedMemory = true)
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ClaimedAnswersTest {
    static final int MODULE = 0x6c6d;
    /** Request: u32 len, u32 seed. Answer: len bytes of {@link #expected}, written in place. */
    static final int FILL = GroutApi.type(MODULE, 1);
    /** Request: u32 case: a misuse of a claim ({@link #misuse}). */
    static final int MISUSE = GroutApi.type(MODULE, 2);
    static final int EV = GroutApi.type(MODULE, 3);
    /** Declared to answer at least 8 bytes; its handler claims 4. */
    static final int SHORT = GroutApi.type(MODULE, 4);

    @TempDir Path dir;

    static byte at(int seed, int i) { return (byte) (seed + i * 7 + (i >>> 9)); }

    static byte[] expected(int len, int seed) {
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) b[i] = at(seed, i);
        return b;
    }

    static void fill(Request request, Reply reply) {
        int len = request.buffer().get(JAVA_INT_UNALIGNED, request.offset());
        int seed = request.buffer().get(JAVA_INT_UNALIGNED, request.offset() + 4);
        long at = reply.claim(len);
        MemorySegment m = reply.claimed();
        for (int i = 0; i < len; i++) m.set(JAVA_BYTE, at + i, at(seed, i));
        reply.commit();
    }

    static void misuse(Request request, Reply reply) {
        MemorySegment m;
        long at;
        switch (request.buffer().get(JAVA_INT_UNALIGNED, request.offset())) {
            case 1 -> { // an error abandons the claim: nothing of it leaves
                at = reply.claim(16);
                reply.claimed().asSlice(at, 16).fill((byte) 0x55);
                reply.error(Errno.EINVAL);
            }
            case 2 -> { // a second claim replaces the first
                at = reply.claim(8);
                reply.claimed().asSlice(at, 8).fill((byte) 1);
                at = reply.claim(4);
                m = reply.claimed();
                m.set(JAVA_INT_UNALIGNED, at, 0x01020304);
                reply.commit();
            }
            case 3 -> { // no event while a claim is open
                reply.claim(8);
                reply.publish(EV, MemorySegment.NULL, 0, 0);
            }
            case 4 -> reply.commit(); // nothing claimed
            case 5 -> reply.claim(8); // claimed, never committed
            case 6 -> reply.claim(GroutApi.MAX_MSG_LEN + 1);
            case 7 -> { // claimed, committed, then claimed again: already answered
                reply.claim(0);
                reply.commit();
                reply.claim(0);
            }
            default -> reply.error(Errno.EINVAL);
        }
    }

    GroutServer start(String path) throws Exception {
        return TestServers.startOneLoop(ServerOptions.defaults().socketPath(path).sharedMemoryRing(4096)
                .handle(FILL, 8, ClaimedAnswersTest::fill).handle(MISUSE, 4, ClaimedAnswersTest::misuse)
                .handle(SHORT, 0, 8, (request, reply) -> {
                    reply.claim(4);
                    reply.commit();
                }));
    }

    static MemorySegment request(Arena a, int first, int second) {
        MemorySegment s = a.allocate(8, 8);
        s.set(JAVA_INT_UNALIGNED, 0, first);
        s.set(JAVA_INT_UNALIGNED, 4, second);
        return s;
    }

    @Test
    void aClaimedAnswerArrivesWholeAtEverySizeUpToTheLargest() throws Exception {
        String path = dir.resolve("claim.sock").toString();
        try (GroutServer s = start(path); GroutClient c = TestClients.connect(path); Arena a = Arena.ofConfined()) {
            int seed = 1;
            // Over the channel: 4,084 is the most a 4 KiB ring holds with its header; past it, the loop's memory.
            for (int len : new int[] {0, 1, 12, 100, 4084, 4085, 65_536, GroutApi.MAX_MSG_LEN}) {
                for (int round = 0; round < 3; round++, seed++) {
                    Response r = c.call(FILL, request(a, len, seed));
                    assertArrayEquals(expected(len, seed), r.toByteArray(), len + " bytes, round " + round);
                }
            }
        }
    }

    @Test
    void aPipelineOfClaimedAnswersThroughAFullRingArrivesWholeAndEachToItsCall() throws Exception {
        String path = dir.resolve("full.sock").toString();
        try (GroutServer s = start(path); GroutClient c = TestClients.connect(path); Arena a = Arena.ofShared()) {
            for (int round = 0; round < 5; round++) {
                List<CompletableFuture<Response>> answers = new ArrayList<>();
                for (int i = 0; i < 64; i++) answers.add(c.callAsync(FILL, request(a, 1000 + 37 * i, round * 64 + i)));
                for (int i = 0; i < 64; i++) {
                    assertArrayEquals(expected(1000 + 37 * i, round * 64 + i),
                            answers.get(i).get(30, TimeUnit.SECONDS).toByteArray(), "call " + i + ", round " + round);
                }
            }
        }
    }

    @Test
    void aMisusedClaimGetsItsCallerAnErrorAndTheConnectionGoesOn() throws Exception {
        String path = dir.resolve("misuse.sock").toString();
        try (ServerLogs logs = new ServerLogs(); GroutServer s = start(path); GroutClient c = TestClients.connect(path);
             Arena a = Arena.ofConfined()) {
            MemorySegment req = a.allocate(4, 4);
            int[][] cases = {{1, Errno.EINVAL}, {3, Errno.EIO}, {4, Errno.EIO}, {5, Errno.EIO}, {6, Errno.EIO}};
            for (int[] k : cases) {
                req.set(JAVA_INT_UNALIGNED, 0, k[0]);
                ApiException e = assertThrows(ApiException.class, () -> c.call(MISUSE, req), "case " + k[0]);
                assertEquals(k[1], e.status(), "case " + k[0]);
                assertArrayEquals(expected(40, k[0]), c.call(FILL, request(a, 40, k[0])).toByteArray(),
                        "after case " + k[0]);
            }
            req.set(JAVA_INT_UNALIGNED, 0, 2);
            assertArrayEquals(new byte[] {4, 3, 2, 1}, c.call(MISUSE, req).toByteArray(), "the second claim's 4 bytes");
            req.set(JAVA_INT_UNALIGNED, 0, 7);
            assertEquals(0, c.call(MISUSE, req).length(), "the committed answer; the claim after it threw");
            assertEquals(Errno.EIO, assertThrows(ApiException.class, () -> c.call(SHORT)).status(),
                    "a claim under the declared minimum");
            assertArrayEquals(expected(40, 9), c.call(FILL, request(a, 40, 9)).toByteArray());
            List<String> lines = logs.lines();
            assertTrue(lines.stream().anyMatch(l -> l.contains("IllegalStateException") && l.contains("while an "
                    + "answer is claimed")), String.join("\n", lines));
            assertTrue(lines.stream().anyMatch(l -> l.contains("nothing claimed to commit")), String.join("\n", lines));
            assertTrue(lines.stream().anyMatch(l -> l.contains("returned without answering")), String.join("\n",
                    lines));
            assertTrue(lines.stream().anyMatch(l -> l.contains("a claim of 131073 bytes")), String.join("\n", lines));
            assertTrue(lines.stream().anyMatch(l -> l.contains("already answered")), String.join("\n", lines));
            assertTrue(lines.stream().anyMatch(l -> l.contains("response payload of 4 bytes") && l.contains(
                    "declared at least 8")), String.join("\n", lines));
        }
    }
}
