package org.sysframe.transport;

import java.util.Objects;

/**
 * Message type to {@link Handler}, with each type's declared minimum request payload. An
 * open-addressing table over ints: the per-request look-up neither boxes nor allocates.
 */
public final class HandlerRegistry {
    private int[] types = new int[32];
    private Handler[] handlers = new Handler[32];
    private int[] minRequest = new int[32];
    private int size;

    /** Registers (or replaces) the handler of type; requests shorter than minRequestLen get EMSGSIZE. */
    public HandlerRegistry register(int type, int minRequestLen, Handler handler) {
        if (type == 0) throw new IllegalArgumentException("message type 0 is reserved");
        if (minRequestLen < 0 || minRequestLen > GroutApi.MAX_MSG_LEN) throw new IllegalArgumentException("min " + minRequestLen);
        Objects.requireNonNull(handler);
        if ((size + 1) * 2 > types.length) grow();
        int i = slot(types, type);
        if (types[i] == 0) size++;
        types[i] = type;
        handlers[i] = handler;
        minRequest[i] = minRequestLen;
        return this;
    }

    /** The handler of type, or null. */
    Handler handler(int type) {
        int i = slot(types, type);
        return types[i] == type ? handlers[i] : null;
    }

    int minRequest(int type) {
        int i = slot(types, type);
        return types[i] == type ? minRequest[i] : 0;
    }

    HandlerRegistry copy() {
        HandlerRegistry c = new HandlerRegistry();
        c.types = types.clone();
        c.handlers = handlers.clone();
        c.minRequest = minRequest.clone();
        c.size = size;
        return c;
    }

    private static int slot(int[] table, int type) {
        int mask = table.length - 1;
        int i = (type * 0x9E3779B9 >>> 16) & mask;
        while (table[i] != 0 && table[i] != type) i = (i + 1) & mask;
        return i;
    }

    private void grow() {
        int[] ot = types;
        Handler[] oh = handlers;
        int[] om = minRequest;
        types = new int[ot.length * 2];
        handlers = new Handler[ot.length * 2];
        minRequest = new int[ot.length * 2];
        for (int j = 0; j < ot.length; j++) {
            if (ot[j] == 0) continue;
            int i = slot(types, ot[j]);
            types[i] = ot[j];
            handlers[i] = oh[j];
            minRequest[i] = om[j];
        }
    }
}
