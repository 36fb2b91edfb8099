package org.sysframe.transport;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * An event the server pushed to a subscribed client, as a reusable flyweight: valid until the next
 * call on the client that returned it. The payload is {@link #length()} bytes of {@link #buffer()}
 * from {@link #offset()}, read in place; {@link #payload()} and {@link #toByteArray()} make a view or
 * a copy (they allocate; the accessors do not).
 */
public final class Event {
    private int type;
    private MemorySegment buffer = MemorySegment.NULL;
    private long offset;
    private long length;

    void set(int type, MemorySegment buffer, long offset, long length) {
        this.type = type;
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
    }

    /** The event's ev_type, {@code (module << 16) | id}. */
    public int type() { return type; }

    /** Payload length in bytes. */
    public long length() { return length; }

    /** The memory holding the payload (the client's read-ahead or payload buffer). */
    public MemorySegment buffer() { return buffer; }

    /** Where the payload starts in {@link #buffer()}. */
    public long offset() { return offset; }

    public byte getByte(long i) {
        java.util.Objects.checkIndex(i, length);
        return buffer.get(JAVA_BYTE, offset + i);
    }

    /** A view of the payload, valid as long as the event is. */
    public MemorySegment payload() { return buffer.asSlice(offset, length); }

    /** A copy of the payload on the heap. */
    public byte[] toByteArray() { return payload().toArray(JAVA_BYTE); }

    @Override
    public String toString() {
        return "Event[" + GroutApi.typeName(type) + ", " + length + " bytes]";
    }
}
