package org.sysframe.transport.internal.io;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.IovArray;
import org.sysframe.unix.SyscallCounters;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * An {@link Outlet} that stands for a socket with room for a set number of bytes: every call takes
 * what fits, the bytes taken are kept in order ({@link #taken()}), and each call is logged. With
 * {@link #inPlace} it stands for a channel's answer ring instead, which also lends that room to write in place.
 */
public final class FakeOutlet implements Outlet.Direct {
    private final ByteArrayOutputStream taken = new ByteArrayOutputStream();
    private final SyscallCounters counters = new SyscallCounters("fake outlet");
    public final List<String> calls = new ArrayList<>();
    /** Bytes the next calls may take in all (Long.MAX_VALUE: any). */
    public long room = Long.MAX_VALUE;
    public boolean writable;
    public boolean closed;
    /**
     * Whether it stands for a channel's answer ring: room of its own for messages written in place (within
     * {@link #room}), and turns batched by itself.
     */
    public boolean inPlace;
    /** Where claims are: at {@link #CLAIMED}, so that an offset taken for another is seen. */
    public final MemorySegment place = Arena.ofAuto().allocate(1 << 18);
    public static final long CLAIMED = 64;

    private void take(MemorySegment seg, long off, long n) {
        for (long i = 0; i < n; i++) taken.write(seg.get(JAVA_BYTE, off + i));
        room -= n;
    }

    @Override
    public long write(MemorySegment header, int hlen, MemorySegment payload, long off, long len) {
        long n = Math.min(room, hlen + len);
        calls.add("write " + (hlen + len) + " took " + n);
        long h = Math.min(hlen, n);
        take(header, 0, h);
        take(payload, off, n - h);
        return n;
    }

    @Override
    public void gather(OutputBatch batch) throws ErrnoException {
        IovArray iov = batch.iov();
        long r = iov.remaining();
        long n = Math.min(room, r);
        calls.add("gather " + r + " took " + n);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment all = a.allocate(Math.max(1, r));
            iov.copyRemainingTo(all, 0);
            take(all, 0, n);
        }
        iov.advance(n);
    }

    @Override
    public long send(MemorySegment seg, long off, long len) {
        long n = Math.min(room, len);
        calls.add("send " + len + " took " + n);
        take(seg, off, n);
        return n;
    }

    @Override
    public boolean batchesTurns() { return inPlace; }

    @Override
    public long claim(long n) {
        if (!inPlace) return -1; // a socket's: no room of its own, and no call to log
        boolean room = this.room >= n;
        calls.add("claim " + n + (room ? "" : " refused"));
        return room ? CLAIMED : -1;
    }

    @Override
    public MemorySegment claimMemory() { return place; }

    @Override
    public void commit(long n) {
        calls.add("commit " + n);
        take(place, CLAIMED, n);
    }

    @Override
    public void wantWritable(boolean on) {
        calls.add("wantWritable " + on);
        writable = on;
    }

    @Override
    public void pauseInput(boolean paused) { calls.add("pauseInput " + paused); }

    @Override
    public SyscallCounters counters() { return counters; }

    @Override
    public void close() { closed = true; }

    /** Every byte taken so far, in order. */
    public byte[] taken() { return taken.toByteArray(); }
}
