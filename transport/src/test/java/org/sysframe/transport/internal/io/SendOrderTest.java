package org.sysframe.transport.internal.io;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SendOrder} against a fake of its one neighbour, the pipeline's {@link SendOrder.Liveness}
 * (here: a set of answered ids): ids come out oldest first with their send times, answered ones go
 * when they reach the head, and a full ring keeps exactly the waiting ones, in order.
 */
class SendOrderTest {
    private final Set<Integer> answered = new HashSet<>();
    private final List<String> asked = new ArrayList<>();
    private final SendOrder order = new SendOrder((id, time) -> {
        asked.add(id + "@" + time);
        return !answered.contains(id);
    });

    /** Everything left, head first, as "id@time", emptying the order. */
    private List<String> drain() {
        List<String> out = new ArrayList<>();
        while (!order.isEmpty()) {
            out.add(order.headId() + "@" + order.headTime());
            order.pop();
        }
        return out;
    }

    @Test
    void idsComeOutOldestFirstWithTheirSendTimes() {
        assertTrue(order.isEmpty());
        order.add(7, 100);
        order.add(3, 250);
        order.add(9, 251);
        assertFalse(order.isEmpty());
        assertEquals(7, order.headId());
        assertEquals(100, order.headTime());
        assertEquals(List.of("7@100", "3@250", "9@251"), drain());
        assertTrue(order.isEmpty());
        assertEquals(List.of("7@100", "7@100"), asked, "add asks only about the head, and only while there is one");
    }

    @Test
    void answeredIdsGoWhenTheyReachTheHeadNotBefore() {
        order.add(1, 10);
        order.add(2, 20);
        order.add(3, 30);
        answered.add(2);
        order.add(4, 40); // the head (1) waits: 2 stays behind it
        assertEquals(1, order.headId());
        answered.add(1);
        order.add(5, 50); // 1 and 2 are answered and at the head: both go
        assertEquals(List.of("3@30", "4@40", "5@50"), drain());
    }

    @Test
    void theSameIdSentAgainIsASecondEntryWithItsOwnTime() {
        order.add(6, 1);
        order.add(6, 2);
        assertEquals(List.of("6@1", "6@2"), drain());
    }

    @Test
    void aFullRingKeepsExactlyTheWaitingEntriesInTheirOrder() {
        int ring = 0x10000;
        for (int i = 0; i < ring; i++) order.add(i, 1000L + i); // the head (0) waits throughout: nothing is popped
        for (int i = 1; i < ring; i += 2) answered.add(i);        // every odd id is answered: half the ring
        asked.clear();
        order.add(ring, 5);
        assertEquals(ring + 1, asked.size(), "a full ring asks about the head, then about each of its entries once");
        List<String> want = new ArrayList<>();
        for (int i = 0; i < ring; i += 2) want.add(i + "@" + (1000L + i));
        want.add(ring + "@5");
        assertEquals(want, drain());
    }
}
