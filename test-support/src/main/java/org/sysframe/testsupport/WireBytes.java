package org.sysframe.testsupport;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;

/**
 * Raw Grout frames built byte by byte in host byte order, from docs/wire-format.md alone (no sysframe code):
 * requests and responses {u32, u32, u32 payload_len}, events {u32 ev_type, 4 bytes padding, u64 payload_len}.
 */
public final class WireBytes {
    /** Bytes of a request or response header. */
    public static final int HEADER = 12;
    /** Bytes of an event header. */
    public static final int EVENT_HEADER = 16;
    private static final VarHandle I32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.nativeOrder());
    private static final VarHandle I64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

    /** The bytes so far: {@code a[0..n)}. */
    public byte[] a = new byte[8192];
    public int n;

    private void room(int more) {
        if (n + more > a.length) a = Arrays.copyOf(a, Math.max(a.length * 2, n + more));
    }

    public WireBytes u32(int v) {
        room(4);
        I32.set(a, n, v);
        n += 4;
        return this;
    }

    public WireBytes u64(long v) {
        room(8);
        I64.set(a, n, v);
        n += 8;
        return this;
    }

    /** A request or response header: {id or for_id, type or status, payload_len}. */
    public WireBytes header(int first, int second, int payloadLen) {
        return u32(first).u32(second).u32(payloadLen);
    }

    public WireBytes random(Random r, int len) {
        room(len);
        int i = 0;
        for (; i + 4 <= len; i += 4) I32.set(a, n + i, r.nextInt());
        for (; i < len; i++) a[n + i] = (byte) r.nextInt();
        n += len;
        return this;
    }

    public WireBytes zeros(int len) {
        room(len);
        Arrays.fill(a, n, n + len, (byte) 0);
        n += len;
        return this;
    }

    public WireBytes put(byte b) {
        room(1);
        a[n++] = b;
        return this;
    }

    public WireBytes put(byte[] bytes) {
        room(bytes.length);
        System.arraycopy(bytes, 0, a, n, bytes.length);
        n += bytes.length;
        return this;
    }

    /** The u32 at byte offset at. */
    public int u32At(int at) {
        return (int) I32.get(a, at);
    }

    public void u32At(int at, int v) {
        I32.set(a, at, v);
    }

    /** A copy of the bytes so far. */
    public byte[] toByteArray() {
        return Arrays.copyOf(a, n);
    }

    // ---------------------------------------------------------------- whole frames

    /** A request: {id, type, payload_len} then the payload. */
    public static byte[] request(int id, int type, byte[] payload) {
        return new WireBytes().header(id, type, payload.length).put(payload).toByteArray();
    }

    /**
     * A response: for_id, status, payload_len as declared (which may differ from the bytes given), then the payload
     * bytes.
     */
    public static byte[] response(int forId, int status, long declaredLen, byte[] payload) {
        return new WireBytes().header(forId, status, (int) declaredLen).put(payload).toByteArray();
    }

    /** A response declaring exactly its payload. */
    public static byte[] response(int forId, int status, byte[] payload) {
        return response(forId, status, payload.length, payload);
    }

    /** An event: ev_type, 4 bytes of padding, u64 payload_len, then the payload. */
    public static byte[] event(int evType, byte[] payload) {
        return new WireBytes().u32(evType).u32(0).u64(payload.length).put(payload).toByteArray();
    }

    /** An event header alone, declaring payload_len. */
    public static byte[] eventHeader(int evType, long declaredLen) {
        return new WireBytes().u32(evType).u32(0).u64(declaredLen).toByteArray();
    }

    /** The parts one after the other. */
    public static byte[] concat(byte[]... parts) {
        WireBytes b = new WireBytes();
        for (byte[] p : parts) b.put(p);
        return b.toByteArray();
    }

    /** The u32 at offset at of bytes, host byte order. */
    public static int u32(byte[] bytes, int at) {
        return (int) I32.get(bytes, at);
    }

    /** The u64 at offset at of bytes, host byte order. */
    public static long u64(byte[] bytes, int at) {
        return (long) I64.get(bytes, at);
    }
}
