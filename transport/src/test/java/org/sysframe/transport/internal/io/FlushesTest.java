package org.sysframe.transport.internal.io;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Flushes}: the oldest flush still waiting is at the head, a flush leaves with its last request's answer
 * wherever it is, a removed one's number is given again, and the pool holds exactly its window.
 */
class FlushesTest {
    private final Flushes flushes = new Flushes(4, 64);
    private int nextId = 1;

    /** A flush of n requests sent at t, each given the next id; their ids. */
    private int[] send(long t, int n) {
        int f = flushes.add(t, n);
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            ids[i] = nextId++;
            flushes.sent(ids[i], f);
        }
        return ids;
    }

    /** The flushes waiting, oldest first, as "time:waiting", emptying them. */
    private List<String> drain() {
        List<String> out = new ArrayList<>();
        while (!flushes.isEmpty()) {
            int f = flushes.oldest();
            assertEquals(flushes.time(f), flushes.oldestTime());
            out.add(flushes.time(f) + ":" + flushes.waiting(f));
            flushes.remove(f);
        }
        return out;
    }

    @Test
    void theOldestWaitingFlushIsAtTheHead() {
        assertTrue(flushes.isEmpty());
        send(100, 3);
        send(250, 1);
        send(251, 7);
        assertEquals(100, flushes.oldestTime());
        assertEquals(List.of("100:3", "250:1", "251:7"), drain());
    }

    @Test
    void eachRequestKeepsItsFlushsNumber() {
        int[] a = send(10, 2);
        int[] b = send(20, 1);
        assertEquals(flushes.of(a[0]), flushes.of(a[1]));
        assertTrue(flushes.of(a[0]) != flushes.of(b[0]));
    }

    @Test
    void aFlushLeavesWithItsLastAnswerWhereverItIs() {
        int[] a = send(10, 2);
        int[] b = send(20, 1);
        int[] c = send(30, 2);
        flushes.answered(b[0]); // in the middle: gone at once
        flushes.answered(a[1]);
        assertEquals(10, flushes.oldestTime(), "a has one request waiting still");
        assertEquals(1, flushes.waiting(flushes.of(a[0])));
        flushes.answered(a[0]); // the head's last answer: c is the oldest now
        assertEquals(flushes.of(c[0]), flushes.oldest());
        flushes.answered(c[0]);
        flushes.answered(c[1]);
        assertTrue(flushes.isEmpty());
    }

    @Test
    void aFullPoolRefusesTheNextFlushAndTakesOneAgainOnceOneLeft() {
        int[][] ids = new int[4][];
        for (int i = 0; i < 4; i++) ids[i] = send(i, 1);
        assertThrows(IllegalStateException.class, () -> flushes.add(9, 1));
        int left = flushes.of(ids[2][0]);
        flushes.answered(ids[2][0]);
        assertEquals(left, flushes.add(9, 1), "the number that left is the one given again");
        assertEquals(List.of("0:1", "1:1", "3:1", "9:1"), drain());
    }

    @Test
    void clearEmptiesItAndGivesEveryNumberBack() {
        for (int i = 0; i < 4; i++) send(i, 2);
        flushes.clear();
        assertTrue(flushes.isEmpty());
        for (int i = 0; i < 4; i++) send(100 + i, 1);
        assertEquals(List.of("100:1", "101:1", "102:1", "103:1"), drain());
    }

    @Test
    void aFlushOfNoRequestOrAWindowPastTheNumbersIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> flushes.add(1, 0));
        assertThrows(IllegalArgumentException.class, () -> new Flushes(0x10001, 64));
    }
}
