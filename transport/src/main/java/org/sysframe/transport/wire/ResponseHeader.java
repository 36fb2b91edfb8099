package org.sysframe.transport.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

/**
 * {@code struct gr_api_response {u32 for_id; u32 status; u32 payload_len;}}: 12 bytes. Read and written in place, host
 * byte order, unaligned (a header may start anywhere in a read-ahead buffer); nothing is allocated.
 */
public final class ResponseHeader {
    private static final ValueLayout.OfInt U32 = JAVA_INT_UNALIGNED;

    private ResponseHeader() {}

    /** The header size: 12 bytes. */
    public static final int SIZE = 12;
    /** Offset of {@code u32 for_id}, the id of the request answered. */
    public static final long FOR_ID = 0;
    /** Offset of {@code u32 status}: 0, or an errno value. */
    public static final long STATUS = 4;
    /** Offset of {@code u32 payload_len}. */
    public static final long PAYLOAD_LEN = 8;

    /** for_id: the id of the request answered. */
    public static int forId(MemorySegment s, long at) { return s.get(U32, at + FOR_ID); }

    /** status: 0, or an errno value. */
    public static int status(MemorySegment s, long at) { return s.get(U32, at + STATUS); }

    /** payload_len as an unsigned value. */
    public static long payloadLen(MemorySegment s, long at) {
        return Integer.toUnsignedLong(s.get(U32, at + PAYLOAD_LEN));
    }

    /** Writes forId, status and payloadLen as a header at offset at of s. */
    public static void write(MemorySegment s, long at, int forId, int status, int payloadLen) {
        s.set(U32, at + FOR_ID, forId);
        s.set(U32, at + STATUS, status);
        s.set(U32, at + PAYLOAD_LEN, payloadLen);
    }
}
