package org.sysframe.transport;

import org.sysframe.transport.internal.server.HandlerAccess;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * The request a {@link Handler} is called with: a reusable flyweight over the connection's read
 * buffer, valid only during the call. The payload is {@link #length()} bytes of {@link #buffer()} from
 * {@link #offset()}.
 */
public final class Request {
    private int id;
    private int type;
    private MemorySegment buffer = MemorySegment.NULL;
    private long offset;
    private long length;
    private int peerPid;
    private int peerUid;

    static {
        HandlerAccess.install(new HandlerAccessImpl());
    }

    /** Made by the server, one per connection ({@link HandlerAccess#newRequest}). */
    Request() {}

    /** The server fills this view with each request it reads. */
    void set(int id, int type, MemorySegment buffer, long offset, long length, int peerPid, int peerUid) {
        this.id = id;
        this.type = type;
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
        this.peerPid = peerPid;
        this.peerUid = peerUid;
    }

    /** The request's id, which its response carries back. */
    public int id() { return id; }
    /** The request's message type. */
    public int type() { return type; }
    /** The segment the payload is in: the connection's read buffer. */
    public MemorySegment buffer() { return buffer; }
    /** Where the payload starts in {@link #buffer()}. */
    public long offset() { return offset; }
    /** The payload's length in bytes. */
    public long length() { return length; }
    /** The client's process id, from SO_PEERCRED at accept. */
    public int peerPid() { return peerPid; }
    /** The client's user id, from SO_PEERCRED at accept. */
    public int peerUid() { return peerUid; }

    /** Byte i of the payload (0 to {@link #length()} - 1). */
    public byte getByte(long i) {
        Objects.checkIndex(i, length);
        return buffer.get(JAVA_BYTE, offset + i);
    }

    /** A view of the payload (allocates a slice; valid during the call only). */
    public MemorySegment payload() { return buffer.asSlice(offset, length); }
}
