package org.sysframe.transport.internal.io;

import org.sysframe.unix.IovArray;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;
import org.sysframe.unix.uring.UringCounts;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * A fake of the client's byte path for unit tests of what reads from it: each {@link #arrive arrival}
 * is what one receive can take (a receive takes at most one arrival, or part of it); with nothing left
 * a receive returns WOULD_BLOCK, as a link does when its receive timeout (or deadline) passed. It sends
 * nothing.
 */
final class ScriptedLink implements ClientLink {
    private final ArrayDeque<byte[]> arrivals = new ArrayDeque<>();
    private int at;      // bytes of the head arrival already taken
    int receives;        // receives that returned bytes

    /** Bytes that come together (one receive can take them all). */
    ScriptedLink arrive(byte[] bytes) {
        arrivals.add(bytes);
        return this;
    }

    /** Bytes not received yet. */
    int left() {
        int n = -at;
        for (byte[] a : arrivals) n += a.length;
        return n;
    }

    private long take(MemorySegment seg, long off, long len) {
        byte[] head = arrivals.peek();
        if (head == null) return UnixSocket.WOULD_BLOCK;
        int n = (int) Math.min(len, head.length - at);
        MemorySegment.copy(head, at, seg, JAVA_BYTE, off, n);
        at += n;
        if (at == head.length) {
            arrivals.poll();
            at = 0;
        }
        receives++;
        return n;
    }

    @Override public long recv(MemorySegment seg, long off, long len) { return take(seg, off, len); }
    @Override public long recvBy(MemorySegment seg, long off, long len, long deadline, long now) {
        return take(seg, off, len);
    }
    @Override public long tryRecv(MemorySegment seg, long off, long len) { return take(seg, off, len); }
    @Override public void flush() {}
    @Override public UringCounts uringCounts() { return UringCounts.ZERO; }
    @Override public SyscallCounters counters() { return new SyscallCounters("scripted"); }
    @Override public String name() { return "scripted.sock"; }
    @Override public void close() {}
    @Override public long sendUntilFull(MemorySegment seg, long off, long len) {
        throw new UnsupportedOperationException("a scripted link sends nothing");
    }
    @Override public long sendmsg(IovArray iov) {
        throw new UnsupportedOperationException("a scripted link sends nothing");
    }
}
