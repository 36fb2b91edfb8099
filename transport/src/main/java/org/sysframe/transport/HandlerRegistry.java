package org.sysframe.transport;

import java.util.Objects;

/**
 * Message type to {@link Handler}, with each type's declared minimum request and response payloads.
 * The per-request look-up neither boxes nor allocates.
 */
public final class HandlerRegistry {
    record Entry(Handler handler, int minRequest, int minResponse) {}

    private TypeTable<Entry> entries = new TypeTable<>();

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
        if (minRequestLen < 0 || minRequestLen > GroutApi.MAX_MSG_LEN) throw new IllegalArgumentException("min " + minRequestLen);
        if (minResponseLen < 0 || minResponseLen > GroutApi.MAX_MSG_LEN) throw new IllegalArgumentException("min " + minResponseLen);
        entries.put(type, new Entry(Objects.requireNonNull(handler), minRequestLen, minResponseLen));
        return this;
    }

    /** The handler of type with its declared sizes, or null. */
    Entry entry(int type) {
        return entries.get(type);
    }

    HandlerRegistry copy() {
        HandlerRegistry c = new HandlerRegistry();
        c.entries = entries.copy();
        return c;
    }
}
