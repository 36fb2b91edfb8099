package org.sysframe.transport.internal.io;

import org.junit.jupiter.api.Test;

import org.sysframe.unix.SyscallCounters;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The unsent queue against a fake of its one neighbour, the outlet: one that writes to the kernel itself, and one that
 * sends from the queue.
 */
class UnsentQueueTest {
    private static MemorySegment bytes(Arena a, int n, int from) {
        MemorySegment s = a.allocate(n);
        for (int i = 0; i < n; i++) s.set(JAVA_BYTE, i, (byte) (from + i));
        return s;
    }

    private static byte[] range(int n, int from) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (from + i);
        return b;
    }

    @Test
    void whatIsQueuedLeavesInOrderAndTheOutletWatchesForRoomMeanwhile() throws Exception {
        try (Arena a = Arena.ofConfined()) {
            FakeOutlet out = new FakeOutlet();
            MemoryBudget budget = new MemoryBudget(1 << 20);
            UnsentQueue q = new UnsentQueue(out, 1 << 20, budget);
            MemorySegment header = bytes(a, 16, 0), payload = bytes(a, 100, 16);
            // A message of which 10 bytes left already: header[10..16) and the payload are queued.
            assertTrue(q.append(header, 16, payload, 0, 100, 10));
            assertEquals(106, q.size());
            // One of which 20 left: the skip covers the header and 4 bytes of the payload.
            assertTrue(q.append(header, 16, payload, 0, 100, 20));
            assertEquals(202, q.size());
            assertEquals(List.of("wantWritable true"), out.calls, "watched once, at the first bytes");
            out.room = 150;
            assertFalse(q.drain());
            assertEquals(52, q.size());
            out.room = 1000;
            assertTrue(q.drain());
            assertTrue(q.isEmpty());
            assertEquals(List.of("wantWritable true", "send 202 took 150", "send 52 took 52", "wantWritable false"),
                    out.calls);
            byte[] want = new byte[202];
            System.arraycopy(range(106, 10), 0, want, 0, 106);
            System.arraycopy(range(96, 20), 0, want, 106, 96);
            assertArrayEquals(want, out.taken());
            assertEquals(0, budget.used(), "drained: the memory is given back");
        }
    }

    @Test
    void theLimitAndTheBudgetAreSaidApart() throws Exception {
        try (Arena a = Arena.ofConfined()) {
            FakeOutlet out = new FakeOutlet();
            UnsentQueue q = new UnsentQueue(out, 100_000, new MemoryBudget(64 * 1024));
            assertTrue(q.fits(100_000));
            assertFalse(q.fits(100_001));
            MemorySegment big = bytes(a, 70_000, 0);
            assertFalse(q.append(big, 0, big, 0, 70_000, 0), "within the limit, but the budget has 64 KiB");
            assertTrue(q.isEmpty());
            assertEquals(List.of(), out.calls, "nothing queued: nothing watched");
            assertTrue(q.append(big, 0, big, 0, 60_000, 0));
            q.close();
        }
    }

    @Test
    void drainingAnEmptyQueueSendsNothing() throws Exception {
        FakeOutlet out = new FakeOutlet();
        UnsentQueue q = new UnsentQueue(out, 1 << 20, new MemoryBudget(1 << 20));
        assertTrue(q.drain());
        assertEquals(List.of(), out.calls);
    }

    /** An outlet that sends from the queue (as io_uring's does), with an area of 1000 bytes; it logs each call. */
    private static final class QueueOutlet implements Outlet.FromQueue {
        final List<String> calls = new ArrayList<>();
        final SyscallCounters counters = new SyscallCounters("fake queue outlet");
        UnsentQueue queue;

        @Override public long area() { return 1000; }
        @Override public void attach(UnsentQueue q) { calls.add("attach"); queue = q; }
        @Override public void queued() { calls.add("queued " + queue.size()); }
        @Override public void wantWritable(boolean on) { calls.add("wantWritable " + on); }
        @Override public void pauseInput(boolean paused) { calls.add("pauseInput " + paused); }
        @Override public SyscallCounters counters() { return counters; }
        @Override public void close() {}

        /** The outlet's SEND took n bytes from the queue's start. */
        void sent(long n) { queue.bytes().consumed(n); }
    }

    @Test
    void anOutletThatSendsFromTheQueueGetsEveryByteAndTheConnectionWaitsForRoomOnlyPastItsArea() throws Exception {
        try (Arena a = Arena.ofConfined()) {
            QueueOutlet out = new QueueOutlet();
            MemoryBudget budget = new MemoryBudget(1 << 20);
            UnsentQueue q = new UnsentQueue(out, 5000, budget);
            assertFalse(q.direct());
            assertEquals(List.of("attach"), out.calls);
            MemorySegment header = bytes(a, 16, 0), payload = bytes(a, 584, 16);
            assertTrue(q.append(header, 16, payload, 0, 584, 0));
            assertTrue(q.caughtUp(), "600 bytes are within the area");
            assertTrue(q.drain(), "nothing waits for room");
            assertEquals(List.of("attach", "queued 600"), out.calls, "queued, and no wait for room");
            assertEquals(0, budget.used(), "the area is not the budget's");
            assertTrue(q.append(header, 16, payload, 0, 584, 0));
            assertFalse(q.caughtUp(), "1200 bytes pass the area");
            assertEquals(List.of("attach", "queued 600", "queued 1200", "wantWritable true"), out.calls);
            assertTrue(budget.used() > 0, "past the area the memory is the budget's: " + budget.used());
            assertFalse(q.drain(), "draining sends nothing itself: the outlet does");
            byte[] want = new byte[1200];
            System.arraycopy(range(600, 0), 0, want, 0, 600);
            System.arraycopy(range(600, 0), 0, want, 600, 600);
            byte[] held = new byte[1200];
            MemorySegment.copy(q.bytes().memory(), JAVA_BYTE, q.bytes().start(), held, 0, 1200);
            assertArrayEquals(want, held, "the bytes in order, in the memory the outlet sends from");
            out.sent(300);
            assertTrue(q.drain(), "900 left: within the area again");
            assertEquals("wantWritable false", out.calls.getLast());
            assertEquals(900, q.size(), "the area's bytes stay for the outlet to send");
            q.bytes().free();
        }
    }

    @Test
    void theLimitCountsPastTheAreaAndAClosedQueueKeepsOnlyTheAreasBytes() throws Exception {
        try (Arena a = Arena.ofConfined()) {
            QueueOutlet out = new QueueOutlet();
            UnsentQueue q = new UnsentQueue(out, 5000, new MemoryBudget(1 << 20));
            assertTrue(q.fits(6000), "the area's 1000 and the limit's 5000");
            assertFalse(q.fits(6001));
            MemorySegment big = bytes(a, 4000, 0);
            assertTrue(q.append(big, 0, big, 0, 4000, 0));
            assertTrue(q.fits(2000));
            assertFalse(q.fits(2001));
            q.close();
            assertEquals(1000, q.size(),
                    "closed: what the area holds lingers, the rest goes (as epoll drops its queue)");
            q.bytes().free();
        }
    }
}
