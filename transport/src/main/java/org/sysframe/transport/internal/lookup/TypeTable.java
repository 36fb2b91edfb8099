package org.sysframe.transport.internal.lookup;

import java.util.Arrays;

/**
 * Message type to value, open addressing over int keys: a look-up on the hot path neither boxes nor
 * allocates. Type 0 is not a valid {@code (module << 16) | id} in Grout and marks a free slot.
 */
public final class TypeTable<V> {
    private int[] types = new int[32];
    private Object[] values = new Object[32];
    private int size;

    /** Sets (or replaces) the value of type. */
    public void put(int type, V value) {
        if (type == 0) throw new IllegalArgumentException("message type 0 is reserved");
        if ((size + 1) * 2 > types.length) grow();
        int i = slot(types, type);
        if (types[i] == 0) size++;
        types[i] = type;
        values[i] = value;
    }

    /** The value of type, or null. */
    @SuppressWarnings("unchecked")
    public V get(int type) {
        int i = slot(types, type);
        return types[i] == type ? (V) values[i] : null;
    }

    public TypeTable<V> copy() {
        TypeTable<V> c = new TypeTable<>();
        c.types = types.clone();
        c.values = values.clone();
        c.size = size;
        return c;
    }

    /** Every type present, for messages. */
    public int[] types() {
        return Arrays.stream(types).filter(t -> t != 0).toArray();
    }

    private static int slot(int[] table, int type) {
        int mask = table.length - 1;
        int i = (type * 0x9E3779B9 >>> 16) & mask;
        while (table[i] != 0 && table[i] != type) i = (i + 1) & mask;
        return i;
    }

    private void grow() {
        int[] oldTypes = types;
        Object[] oldValues = values;
        types = new int[oldTypes.length * 2];
        values = new Object[oldTypes.length * 2];
        for (int j = 0; j < oldTypes.length; j++) {
            if (oldTypes[j] == 0) continue;
            int i = slot(types, oldTypes[j]);
            types[i] = oldTypes[j];
            values[i] = oldValues[j];
        }
    }
}
