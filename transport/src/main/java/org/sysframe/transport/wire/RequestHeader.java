package org.sysframe.transport.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

/**
 * {@code struct gr_api_request {u32 id; u32 type; u32 payload_len;}}: 12 bytes. Read and written in place, host byte
 * order, unaligned (a header may start anywhere in a read-ahead buffer); nothing is allocated.
 */
public final class RequestHeader {
    private static final ValueLayout.OfInt U32 = JAVA_INT_UNALIGNED;

    private RequestHeader() {}

    /** The header size: 12 bytes. */
    public static final int SIZE = 12;
    /** Offset of {@code u32 id}. */
    public static final long ID = 0;
    /** Offset of {@code u32 type}. */
    public static final long TYPE = 4;
    /** Offset of {@code u32 payload_len}. */
    public static final long PAYLOAD_LEN = 8;

    /** id: the request's id, which its response carries back. */
    public static int id(MemorySegment s, long at) { return s.get(U32, at + ID); }

    /** type: the request's message type. */
    public static int type(MemorySegment s, long at) { return s.get(U32, at + TYPE); }

    /** payload_len as an unsigned value. */
    public static long payloadLen(MemorySegment s, long at) {
        return Integer.toUnsignedLong(s.get(U32, at + PAYLOAD_LEN));
    }

    /** Writes id, type and payloadLen as a header at offset at of s. */
    public static void write(MemorySegment s, long at, int id, int type, int payloadLen) {
        s.set(U32, at + ID, id);
        s.set(U32, at + TYPE, type);
        s.set(U32, at + PAYLOAD_LEN, payloadLen);
    }
}
