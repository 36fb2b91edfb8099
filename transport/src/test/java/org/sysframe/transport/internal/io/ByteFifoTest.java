package org.sysframe.transport.internal.io;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The one native FIFO: order kept across growth, doubling, its limit, its budget, its memory given back, and pinned
 * memory left in place.
 */
class ByteFifoTest {
    private static MemorySegment counting(Arena a, int n, int from) {
        MemorySegment s = a.allocate(n);
        for (int i = 0; i < n; i++) s.set(JAVA_BYTE, i, (byte) (from + i));
        return s;
    }

    private static void assertHolds(ByteFifo f, int n, int from) {
        assertEquals(n, f.size());
        for (int i = 0; i < n; i++) assertEquals((byte) (from + i), f.memory().get(JAVA_BYTE, f.start() + i), "byte "
                + i);
    }

    @Test
    void bytesComeOutInTheOrderTheyWentInWhileItDoublesAndMovesThem() {
        try (Arena a = Arena.ofConfined()) {
            ByteFifo f = new ByteFifo(4096, 1 << 20, null);
            assertTrue(f.isEmpty());
            assertEquals(0, f.capacity());
            assertNull(f.memory(), "no memory before the first reserve");
            assertTrue(f.reserve(3000));
            assertEquals(4096, f.capacity());
            f.append(counting(a, 3000, 0), 0, 3000);
            f.consumed(1000);              // 2000 held, from byte 1000
            assertTrue(f.reserve(5000));   // 7000 do not fit 4096: twice that, the 2000 moved to the start
            assertEquals(8192, f.capacity());
            assertEquals(0, f.start());
            assertHolds(f, 2000, 1000);
            f.append(counting(a, 5000, 3000), 0, 5000);
            assertHolds(f, 7000, 1000);
            assertTrue(f.reserve(20_000));
            assertEquals(32768, f.capacity(), "doubled until it fits");
            assertHolds(f, 7000, 1000);
        }
    }

    @Test
    void takingEverythingStartsAgainAtTheBeginningInPlace() {
        try (Arena a = Arena.ofConfined()) {
            ByteFifo f = new ByteFifo(4096, 4096, null);
            assertTrue(f.reserve(4000));
            f.append(counting(a, 4000, 0), 0, 4000);
            f.consumed(4000);
            assertTrue(f.isEmpty());
            assertEquals(0, f.start());
            assertEquals(0, f.end());
            assertTrue(f.reserve(4096), "the whole mapping again, without a new one");
            MemorySegment same = f.memory();
            f.produced(4096);
            assertEquals(same, f.memory());
        }
    }

    @Test
    void theLimitCapsTheCapacityAndRefusesWhatWouldPassIt() {
        try (Arena a = Arena.ofConfined()) {
            ByteFifo f = new ByteFifo(4096, 10_000, null);
            assertTrue(f.reserve(9000));
            assertEquals(10_000, f.capacity(), "doubling stops at the limit");
            f.append(counting(a, 9000, 0), 0, 9000);
            assertFalse(f.reserve(1001));
            assertHolds(f, 9000, 0);
            assertTrue(f.reserve(1000));
        }
    }

    @Test
    void theBudgetIsTakenPerByteOfCapacityAndGivenBackWhenFreed() {
        MemoryBudget budget = new MemoryBudget(16384);
        ByteFifo f = new ByteFifo(4096, 1 << 20, budget);
        assertTrue(f.reserve(100));
        assertEquals(4096, budget.used());
        assertTrue(f.reserve(8000));   // 8192 taken, then the 4096 given back
        assertEquals(8192, budget.used());
        f.produced(8000);
        assertFalse(f.reserve(10_000), "16384 more would pass the budget");
        assertEquals(8192, budget.used(), "a refusal takes nothing");
        assertEquals(8000, f.size(), "and keeps what is held");
        f.free();
        assertEquals(0, budget.used());
        assertTrue(f.isEmpty());
        assertEquals(0, f.capacity());
        assertTrue(f.reserve(1), "a freed FIFO maps anew");
        f.free();
        f.free();
        assertEquals(0, budget.used(), "freeing twice gives nothing back twice");
    }

    @Test
    void aFixedOneTakesWhatFitsAndCompactingMakesTheRoomAfterTheBytesWholeAgain() {
        try (Arena a = Arena.ofConfined()) {
            ByteFifo f = new ByteFifo(8192, 8192, null);
            assertTrue(f.reserve(8192));
            f.append(counting(a, 8000, 0), 0, 8000);
            f.consumed(5000);
            assertEquals(192, f.capacity() - f.end(), "room after the bytes before compacting");
            MemorySegment mapping = f.memory();
            f.compact();
            assertEquals(mapping, f.memory(), "in place");
            assertEquals(0, f.start());
            assertEquals(5192, f.capacity() - f.end());
            assertHolds(f, 3000, 5000);
            f.compact();
            assertHolds(f, 3000, 5000);
            f.consumed(1000);
            assertTrue(f.reserve(6000), "2000 held and 6000 more fit 8192 once compacted");
            assertEquals(mapping, f.memory(), "compacted in place, not mapped anew");
            assertHolds(f, 2000, 6000);
            assertFalse(f.reserve(6193), "2000 held and 6193 more pass the fixed 8192");
        }
    }

    @Test
    void whilePinnedTheBytesStayWhereTheKernelReadsThemAndAGrowthKeepsTheirMappingUntilUnpinned() {
        try (Arena a = Arena.ofConfined()) {
            MemoryBudget budget = new MemoryBudget(1 << 20);
            ByteFifo f = new ByteFifo(4096, 1 << 20, budget);
            assertTrue(f.reserve(4096));
            f.append(counting(a, 4000, 0), 0, 4000);
            f.consumed(3000);                        // 1000 held, from offset 3000
            f.pin();                                 // a SEND reads them there
            MemorySegment read = f.memory();
            assertTrue(f.reserve(2000), "1000 + 2000 fit 4096, but compacting would move what the kernel reads");
            assertEquals(4096, f.capacity(), "a copy of the same size, not a compaction");
            assertTrue(read != f.memory(), "a new mapping");
            assertEquals(8192, budget.used(), "the mapping the kernel reads stays mapped, and in the budget");
            assertHolds(f, 1000, 3000);
            for (int i = 0; i < 1000; i++) assertEquals((byte) (3000 + i), read.get(JAVA_BYTE, 3000 + i),
                    "the kernel's bytes unchanged");
            f.append(counting(a, 2000, 4000), 0, 2000);
            assertTrue(f.reserve(10_000), "a second growth while pinned");
            assertEquals(16384, f.capacity());
            assertEquals(4096 + 16384, budget.used(), "the copy between the two is given back at once");
            f.compact();
            assertHolds(f, 3000, 3000);
            f.unpin();
            assertEquals(16384, budget.used(), "unpinned: the kernel's mapping is given back");
            f.free();
            assertEquals(0, budget.used());
        }
    }

    @Test
    void pinnedItIsNotCompactedNorFreedAndTruncatingKeepsTheFirstBytes() {
        try (Arena a = Arena.ofConfined()) {
            ByteFifo f = new ByteFifo(8192, 8192, null);
            assertTrue(f.reserve(8000));
            f.append(counting(a, 8000, 0), 0, 8000);
            f.consumed(5000);
            f.pin();
            f.compact();
            assertEquals(5000, f.start(), "not moved while pinned");
            assertThrows(IllegalStateException.class, f::free);
            f.truncate(1000);
            assertHolds(f, 1000, 5000);
            f.truncate(2000);
            assertHolds(f, 1000, 5000); // keeping more than it holds changes nothing
            f.unpin();
            f.compact();
            assertEquals(0, f.start());
            assertHolds(f, 1000, 5000);
            f.truncate(0);
            assertTrue(f.isEmpty());
            assertEquals(0, f.end(), "empty and unpinned: the next bytes go at the start");
            f.free();
        }
    }

    @Test
    void anUnbudgetedFirstPartIsNotTakenFromTheBudget() {
        MemoryBudget budget = new MemoryBudget(1 << 20);
        ByteFifo f = new ByteFifo(65536, 1 << 20, budget, 65536);
        assertTrue(f.reserve(65536));
        assertEquals(0, budget.used(), "the first 64 KiB are not the budget's");
        f.produced(65536);
        assertTrue(f.reserve(1));
        assertEquals(131072, f.capacity());
        assertEquals(65536, budget.used(), "what is past them is");
        f.free();
        assertEquals(0, budget.used());
    }
}
