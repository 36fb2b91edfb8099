package org.sysframe.transport;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * A received response, as a reusable flyweight: valid until the next call on the client
 * that returned it. The payload is {@link #length()} bytes of {@link #buffer()} from
 * {@link #offset()}, read in place; {@link #payload()} and {@link #toByteArray()} make copies or views
 * when one is needed for longer (they allocate; the accessors do not).
 */
public final class Response {
    private int id;
    private int status;
    private MemorySegment buffer = MemorySegment.NULL;
    private long offset;
    private long length;

    void set(int id, int status, MemorySegment buffer, long offset, long length) {
        this.id = id;
        this.status = status;
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
    }

    /** The response's for_id: the id of the request it answers. */
    public int id() { return id; }

    /** 0 for success, else an errno value. */
    public int status() { return status; }

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

    /** A view of the payload, valid as long as the response is. */
    public MemorySegment payload() { return buffer.asSlice(offset, length); }

    /** A copy of the payload on the heap. */
    public byte[] toByteArray() { return payload().toArray(JAVA_BYTE); }

    @Override
    public String toString() {
        return "Response[id " + id + ", status " + status + ", " + length + " bytes]";
    }
}
