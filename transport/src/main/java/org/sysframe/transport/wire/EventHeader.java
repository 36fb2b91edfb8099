package org.sysframe.transport.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * {@code struct gr_api_event {u32 ev_type; [4 bytes padding]; size_t payload_len;}}: 16 bytes. Read and written in
 * place, host byte order, unaligned (a header may start anywhere in a read-ahead buffer); nothing is allocated.
 */
public final class EventHeader {
    private static final ValueLayout.OfInt U32 = JAVA_INT_UNALIGNED;

    private EventHeader() {}

    /** The header size: 16 bytes. */
    public static final int SIZE = 16;
    /** Offset of {@code u32 ev_type}. */
    public static final long EV_TYPE = 0;
    /** Offset of {@code size_t payload_len}, after 4 bytes of padding. */
    public static final long PAYLOAD_LEN = 8;

    /** ev_type: the event's type. */
    public static int evType(MemorySegment s, long at) { return s.get(U32, at + EV_TYPE); }

    /** payload_len (a u64 on the wire); values over Long.MAX_VALUE read as negative: reject them. */
    public static long payloadLen(MemorySegment s, long at) { return s.get(JAVA_LONG_UNALIGNED, at + PAYLOAD_LEN); }

    /** Writes a header at offset at of s: evType, zero padding, payloadLen. */
    public static void write(MemorySegment s, long at, int evType, long payloadLen) {
        s.set(U32, at + EV_TYPE, evType);
        s.set(U32, at + 4, 0);
        s.set(JAVA_LONG_UNALIGNED, at + PAYLOAD_LEN, payloadLen);
    }
}
