package org.sysframe.transport.internal.io;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The unsent queue against a fake of its one neighbour, the outlet. */
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
            assertEquals(List.of("wantWritable true", "send 202 took 150", "send 52 took 52", "wantWritable false"), out.calls);
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
}
