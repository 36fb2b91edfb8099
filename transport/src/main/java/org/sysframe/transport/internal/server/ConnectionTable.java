package org.sysframe.transport.internal.server;

import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.LongFunction;

/**
 * A loop's open connections by tag: a tag is a slot number and that slot's generation, so a tag from
 * an epoll event of a connection closed earlier in the same round finds nothing. Loop thread only.
 */
@SuppressWarnings("unchecked")
public final class ConnectionTable<S extends LoopSocket> {
    /** Generations wrap at 24 bits, so a tag fits in 56 bits (a driver may put more in a 64-bit word). */
    static final int GENERATION_MASK = 0x00ffffff;

    private Object[] slots = new Object[64];
    private int[] generations = new int[64];
    private int[] free = new int[16];
    private int freeCount;
    private int highest; // slots below it have been used; free ones are in free[]
    private int size;

    /** Stores s under a new tag and returns the tag (never negative: the loop's own tags are). */
    long add(LongFunction<S> make) {
        int slot = freeCount > 0 ? free[--freeCount] : nextNewSlot();
        int gen = (generations[slot] + 1) & GENERATION_MASK;
        generations[slot] = gen;
        long tag = ((long) gen << 32) | slot;
        slots[slot] = make.apply(tag);
        size++;
        return tag;
    }

    /** The connection of tag, or null when it closed. */
    public S get(long tag) {
        int slot = (int) tag;
        if (slot < 0 || slot >= highest || generations[slot] != (int) (tag >>> 32)) return null;
        return (S) slots[slot];
    }

    /** Forgets the connection of tag (no-op when it is not there). */
    public void remove(long tag) {
        int slot = (int) tag;
        if (get(tag) == null || slots[slot] == null) return;
        slots[slot] = null;
        generations[slot] = (generations[slot] + 1) & GENERATION_MASK;
        if (freeCount == free.length) free = Arrays.copyOf(free, freeCount * 2);
        free[freeCount++] = slot;
        size--;
    }

    int size() { return size; }

    /** Calls action on every connection (it may remove the one it is given). */
    void forEach(Consumer<? super S> action) {
        for (int i = 0; i < highest; i++) {
            if (slots[i] != null) action.accept((S) slots[i]);
        }
    }

    private int nextNewSlot() {
        if (highest == slots.length) {
            slots = Arrays.copyOf(slots, slots.length * 2);
            generations = Arrays.copyOf(generations, generations.length * 2);
        }
        return highest++;
    }
}
