package org.sysframe.transport;

import java.util.Objects;

/**
 * Message type to {@link Handler}, with each type's declared minimum request and response payloads. An
 * open-addressing table over ints: the per-request look-up neither boxes nor allocates.
 */
public final class HandlerRegistry {
    private int[] types = new int[32];
    private Handler[] handlers = new Handler[32];
    private int[] minRequest = new int[32];
    private int[] minResponse = new int[32];
    private int size;

    /** Registers (or replaces) the handler of type; requests shorter than minRequestLen get EMSGSIZE. */
    public HandlerRegistry register(int type, int minRequestLen, Handler handler) {
        return register(type, minRequestLen, 0, handler);
    }

    /**
     * As {@link #register(int, int, Handler)}, and the handler's successful answers (stream items
     * included, the empty terminator excepted) must carry at least minResponseLen bytes: a shorter one
     * is a handler bug, answered EIO and logged, so no client ever sees a short payload from us.
     */
    public HandlerRegistry register(int type, int minRequestLen, int minResponseLen, Handler handler) {
        if (type == 0) throw new IllegalArgumentException("message type 0 is reserved");
        if (minRequestLen < 0 || minRequestLen > GroutApi.MAX_MSG_LEN) throw new IllegalArgumentException("min " + minRequestLen);
        if (minResponseLen < 0 || minResponseLen > GroutApi.MAX_MSG_LEN) throw new IllegalArgumentException("min " + minResponseLen);
        Objects.requireNonNull(handler);
        if ((size + 1) * 2 > types.length) grow();
        int i = slot(types, type);
        if (types[i] == 0) size++;
        types[i] = type;
        handlers[i] = handler;
        minRequest[i] = minRequestLen;
        minResponse[i] = minResponseLen;
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

    int minResponse(int type) {
        int i = slot(types, type);
        return types[i] == type ? minResponse[i] : 0;
    }

    HandlerRegistry copy() {
        HandlerRegistry c = new HandlerRegistry();
        c.types = types.clone();
        c.handlers = handlers.clone();
        c.minRequest = minRequest.clone();
        c.minResponse = minResponse.clone();
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
        int[] or = minResponse;
        types = new int[ot.length * 2];
        handlers = new Handler[ot.length * 2];
        minRequest = new int[ot.length * 2];
        minResponse = new int[ot.length * 2];
        for (int j = 0; j < ot.length; j++) {
            if (ot[j] == 0) continue;
            int i = slot(types, ot[j]);
            types[i] = ot[j];
            handlers[i] = oh[j];
            minRequest[i] = om[j];
            minResponse[i] = or[j];
        }
    }
}
