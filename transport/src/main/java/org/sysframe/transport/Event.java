package org.sysframe.transport;

import org.sysframe.transport.wire.GroutApi;

import java.lang.foreign.MemorySegment;

/**
 * An event the server pushed to a subscribed client, as a reusable flyweight: valid until the next
 * call on the client that returned it. Its payload is read in place (see {@link ReceivedPayload}).
 */
public final class Event extends ReceivedPayload {
    private int type;

    /** Made by the client, the view its events are handed over in. */
    Event() {}

    /** The client fills this view with each event. */
    void set(int type, MemorySegment buffer, long offset, long length) {
        this.type = type;
        setPayload(buffer, offset, length);
    }

    /** The event's ev_type, {@code (module << 16) | id}. */
    public int type() { return type; }

    @Override
    public String toString() {
        return "Event[" + GroutApi.typeName(type) + ", " + length() + " bytes]";
    }
}
