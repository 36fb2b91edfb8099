package org.sysframe.transport.support;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/** Payload bytes that differ from seed to seed (so a shift or a mix-up shows), and native copies of them. */
public final class Payloads {
    private Payloads() {}

    /** n bytes that differ from those of any other seed. */
    public static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (seed * 31 + i * 7 + (i >>> 8) * 13);
        return b;
    }

    /** Byte i of {@link #unique(int, int) unique(seed, ...)}. */
    public static byte uniqueByte(int seed, int i) {
        return (byte) (i * 7 + seed * 131 + (i >>> 8) * 13 + (i >>> 16) * 3 + 1);
    }

    /** len bytes unique to (seed, index): index bits past 8 and 16 mixed in too. */
    public static byte[] unique(int seed, int len) {
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) b[i] = uniqueByte(seed, i);
        return b;
    }

    /** A native copy of bytes (8-byte aligned, at least one byte allocated), owned by a. */
    public static MemorySegment nativeCopy(Arena a, byte[] bytes) {
        MemorySegment s = a.allocate(Math.max(1, bytes.length), 8).asSlice(0, bytes.length);
        MemorySegment.copy(bytes, 0, s, JAVA_BYTE, 0, bytes.length);
        return s;
    }
}
