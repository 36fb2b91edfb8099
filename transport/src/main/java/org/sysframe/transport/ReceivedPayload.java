package org.sysframe.transport;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * The payload of a message a client received ({@link Response}, {@link Event}), read in place: valid
 * until the next call on the client that returned it. The payload is {@link #length()} bytes of
 * {@link #buffer()} from {@link #offset()}; {@link #payload()} and {@link #toByteArray()} make a view
 * or a copy (they allocate; the accessors do not).
 */
public abstract class ReceivedPayload {
    private MemorySegment buffer = MemorySegment.NULL;
    private long offset;
    private long length;

    ReceivedPayload() {} // package-private: Response and Event are the only kinds

    void setPayload(MemorySegment buffer, long offset, long length) {
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
    }

    /** Payload length in bytes. */
    public final long length() { return length; }

    /** The memory holding the payload (the client's read-ahead or payload buffer). */
    public final MemorySegment buffer() { return buffer; }

    /** Where the payload starts in {@link #buffer()}. */
    public final long offset() { return offset; }

    /** Byte i of the payload (0 to {@link #length()} - 1). */
    public final byte getByte(long i) {
        Objects.checkIndex(i, length);
        return buffer.get(JAVA_BYTE, offset + i);
    }

    /** A view of the payload, valid as long as the message is. */
    public final MemorySegment payload() { return buffer.asSlice(offset, length); }

    /** A copy of the payload on the heap. */
    public final byte[] toByteArray() { return payload().toArray(JAVA_BYTE); }
}
