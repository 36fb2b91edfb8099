package org.sysframe.unix.internal.uring;

import org.sysframe.unix.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * A provided-buffer ring (IORING_REGISTER_PBUF_RING, Linux 5.19): count buffers of size bytes that
 * the kernel picks from for multishot receives of group {@link #group()}. A completion names its
 * buffer ({@link Cqe#bufferId()}); the owner reads it and gives it back with {@link #recycle(int)}.
 * Owner thread only; {@link #close()} unregisters and frees it.
 */
public final class BufferRing implements AutoCloseable {
    private static final VarHandle SHORT = JAVA_SHORT.varHandle();
    private static final long ENTRY = UringLayouts.BUF.byteSize();
    private static final long ADDR = UringLayouts.offset(UringLayouts.BUF, "addr");
    private static final long LEN = UringLayouts.offset(UringLayouts.BUF, "len");
    private static final long BID = UringLayouts.offset(UringLayouts.BUF, "bid");
    private static final long TAIL = 14; // the ring tail overlays the first entry's resv field

    private final IoUring uring;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment entries;
    private final MemorySegment memory;
    private final int count;
    private final int size;
    private final int group;
    private int tail;
    private int outstanding;  // buffers handed to the application and not recycled yet
    private boolean closed;

    /** Registers a ring of count (a power of two, at most 32768) buffers of size bytes as group. */
    public BufferRing(IoUring uring, int group, int count, int size) throws ErrnoException {
        if (Integer.bitCount(count) != 1 || count > 32768) throw new IllegalArgumentException("buffer count " + count
                + ": a power of two up to 32768");
        this.uring = uring;
        this.count = count;
        this.size = size;
        this.group = group;
        this.entries = arena.allocate(ENTRY * count, 4096);
        this.memory = arena.allocate((long) size * count, 64);
        MemorySegment reg = arena.allocate(UringLayouts.BUF_REG);
        reg.set(JAVA_LONG, UringLayouts.offset(UringLayouts.BUF_REG, "ring_addr"), entries.address());
        reg.set(JAVA_INT, UringLayouts.offset(UringLayouts.BUF_REG, "ring_entries"), count);
        reg.set(JAVA_SHORT, UringLayouts.offset(UringLayouts.BUF_REG, "bgid"), (short) group);
        long r = uring.register(IoUring.REGISTER_PBUF_RING, reg.address(), 1);
        if (r < 0) {
            arena.close();
            throw new ErrnoException("io_uring_register(PBUF_RING)", (int) -r, "provided buffer rings need Linux 5.19");
        }
        for (int bid = 0; bid < count; bid++) put(bid);
        SHORT.setRelease(entries, TAIL, (short) tail);
    }

    private void put(int bid) {
        long at = ENTRY * (tail & (count - 1));
        entries.set(JAVA_LONG, at + ADDR, memory.address() + (long) bid * size);
        entries.set(JAVA_INT, at + LEN, size);
        entries.set(JAVA_SHORT, at + BID, (short) bid);
        tail++;
    }

    /** The group id SQEs name with {@link Sqe#prepRecvMultishot}. */
    public int group() { return group; }

    /** The memory of every buffer: buffer bid starts at {@link #offset(int)}. */
    public MemorySegment memory() { return memory; }

    /** Where buffer bid starts in {@link #memory()}. */
    public long offset(int bid) { return (long) bid * size; }

    public int bufferSize() { return size; }

    public int count() { return count; }

    /** Marks buffer bid as taken by a completion (for {@link #outstanding()}). */
    public void taken(int bid) { outstanding++; }

    /** Gives buffer bid back to the kernel. */
    public void recycle(int bid) {
        put(bid);
        SHORT.setRelease(entries, TAIL, (short) tail);
        outstanding--;
    }

    /** Buffers taken by completions and not recycled yet: 0 when every buffer is back in the ring. */
    public int outstanding() { return outstanding; }

    /** Unregisters the group and frees the buffers (idempotent); no receive may still use them. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        MemorySegment reg = arena.allocate(UringLayouts.BUF_REG);
        reg.set(JAVA_SHORT, UringLayouts.offset(UringLayouts.BUF_REG, "bgid"), (short) group);
        uring.register(IoUring.UNREGISTER_PBUF_RING, reg.address(), 1);
        arena.close();
    }
}
