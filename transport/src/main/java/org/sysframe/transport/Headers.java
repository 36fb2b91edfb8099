package org.sysframe.transport;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * Flyweight views of the three headers, read and written in place (host byte order, unaligned: a
 * header may start anywhere in a read-ahead buffer). Static methods take the segment and the header's
 * offset; nothing is allocated.
 */
public final class Headers {
    private Headers() {}

    private static final ValueLayout.OfInt U32 = JAVA_INT_UNALIGNED;

    /** {@code struct gr_api_request {u32 id; u32 type; u32 payload_len;}}: 12 bytes. */
    public static final class Request {
        private Request() {}

        public static final int SIZE = 12;
        public static final long ID = 0;
        public static final long TYPE = 4;
        public static final long PAYLOAD_LEN = 8;

        public static int id(MemorySegment s, long at) { return s.get(U32, at + ID); }

        public static int type(MemorySegment s, long at) { return s.get(U32, at + TYPE); }

        /** payload_len as an unsigned value. */
        public static long payloadLen(MemorySegment s, long at) { return Integer.toUnsignedLong(s.get(U32, at + PAYLOAD_LEN)); }

        public static void write(MemorySegment s, long at, int id, int type, int payloadLen) {
            s.set(U32, at + ID, id);
            s.set(U32, at + TYPE, type);
            s.set(U32, at + PAYLOAD_LEN, payloadLen);
        }
    }

    /** {@code struct gr_api_response {u32 for_id; u32 status; u32 payload_len;}}: 12 bytes. */
    public static final class Response {
        private Response() {}

        public static final int SIZE = 12;
        public static final long FOR_ID = 0;
        public static final long STATUS = 4;
        public static final long PAYLOAD_LEN = 8;

        public static int forId(MemorySegment s, long at) { return s.get(U32, at + FOR_ID); }

        public static int status(MemorySegment s, long at) { return s.get(U32, at + STATUS); }

        public static long payloadLen(MemorySegment s, long at) { return Integer.toUnsignedLong(s.get(U32, at + PAYLOAD_LEN)); }

        public static void write(MemorySegment s, long at, int forId, int status, int payloadLen) {
            s.set(U32, at + FOR_ID, forId);
            s.set(U32, at + STATUS, status);
            s.set(U32, at + PAYLOAD_LEN, payloadLen);
        }
    }

    /** {@code struct gr_api_event {u32 ev_type; [4 bytes padding]; size_t payload_len;}}: 16 bytes. */
    public static final class Event {
        private Event() {}

        public static final int SIZE = 16;
        public static final long EV_TYPE = 0;
        public static final long PAYLOAD_LEN = 8;

        public static int evType(MemorySegment s, long at) { return s.get(U32, at + EV_TYPE); }

        /** payload_len (a u64 on the wire); values over Long.MAX_VALUE read as negative: reject them. */
        public static long payloadLen(MemorySegment s, long at) { return s.get(JAVA_LONG_UNALIGNED, at + PAYLOAD_LEN); }

        public static void write(MemorySegment s, long at, int evType, long payloadLen) {
            s.set(U32, at + EV_TYPE, evType);
            s.set(U32, at + 4, 0);
            s.set(JAVA_LONG_UNALIGNED, at + PAYLOAD_LEN, payloadLen);
        }
    }
}
