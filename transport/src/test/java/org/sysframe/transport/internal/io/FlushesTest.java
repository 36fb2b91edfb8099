package org.sysframe.transport.internal.io;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Flushes}: the oldest flush still waiting is at the head, a flush leaves with its last answer wherever it
 * is, a removed one's number is given again, and the pool holds exactly its window.
 */
class FlushesTest {
    private final Flushes flushes = new Flushes(4);

    /** The flushes waiting, oldest first, as "time:waiting", emptying them. */
    private List<String> drain() {
        List<String> out = new ArrayList<>();
        while (!flushes.isEmpty()) {
            int f = flushes.oldest();
            out.add(flushes.time(f) + ":" + flushes.waiting(f));
            flushes.remove(f);
        }
        return out;
    }

    @Test
    void theOldestWaitingFlushIsAtTheHead() {
        assertTrue(flushes.isEmpty());
        flushes.add(100, 3);
        flushes.add(250, 1);
        flushes.add(251, 64);
        assertEquals(100, flushes.time(flushes.oldest()));
        assertEquals(List.of("100:3", "250:1", "251:64"), drain());
    }

    @Test
    void aFlushLeavesWithItsLastAnswerWhereverItIs() {
        int a = flushes.add(10, 2);
        int b = flushes.add(20, 1);
        int c = flushes.add(30, 2);
        flushes.answered(b); // in the middle: gone at once
        flushes.answered(a);
        assertEquals(10, flushes.time(flushes.oldest()), "a has one request waiting still");
        assertEquals(1, flushes.waiting(a));
        flushes.answered(a); // the head's last answer: c is the oldest now
        assertEquals(c, flushes.oldest());
        flushes.answered(c);
        flushes.answered(c);
        assertTrue(flushes.isEmpty());
    }

    @Test
    void aFullPoolRefusesTheNextFlushAndTakesOneAgainOnceOneLeft() {
        int[] f = new int[4];
        for (int i = 0; i < 4; i++) f[i] = flushes.add(i, 1);
        assertThrows(IllegalStateException.class, () -> flushes.add(9, 1));
        flushes.answered(f[2]);
        assertEquals(f[2], flushes.add(9, 1), "the number that left is the one given again");
        assertEquals(List.of("0:1", "1:1", "3:1", "9:1"), drain());
    }

    @Test
    void clearEmptiesItAndGivesEveryNumberBack() {
        for (int i = 0; i < 4; i++) flushes.add(i, 2);
        flushes.clear();
        assertTrue(flushes.isEmpty());
        for (int i = 0; i < 4; i++) flushes.add(100 + i, 1);
        assertEquals(List.of("100:1", "101:1", "102:1", "103:1"), drain());
    }

    @Test
    void aFlushOfNoRequestIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> flushes.add(1, 0));
    }
}
