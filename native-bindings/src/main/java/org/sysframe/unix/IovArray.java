package org.sysframe.unix;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.Objects;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A reusable off-heap {@code struct iovec[]} with the {@code struct msghdr} that points at it, for
 * gathering writes ({@code sendmsg}, {@code writev}) and scattering reads.
 *
 * <p>Fill it with {@link #clear()} and {@link #add}, write it, then {@link #advance} by what the kernel
 * took: a partial write leaves the unsent tail described by the remaining entries, so the next call
 * sends exactly what is left. Owned by one thread, allocated once, no allocation per use.
 */
public final class IovArray {
    /** {@code struct iovec} (sys/uio.h): 16 bytes. */
    public static final StructLayout IOVEC = MemoryLayout.structLayout(
            ADDRESS.withName("iov_base"),
            JAVA_LONG.withName("iov_len"));

    /** {@code struct msghdr} (sys/socket.h): 56 bytes on x86-64. */
    public static final StructLayout MSGHDR = MemoryLayout.structLayout(
            ADDRESS.withName("msg_name"),
            JAVA_INT.withName("msg_namelen"),
            MemoryLayout.paddingLayout(4),
            ADDRESS.withName("msg_iov"),
            JAVA_LONG.withName("msg_iovlen"),
            ADDRESS.withName("msg_control"),
            JAVA_LONG.withName("msg_controllen"),
            JAVA_INT.withName("msg_flags"),
            MemoryLayout.paddingLayout(4));

    static final long IOV_SIZE = IOVEC.byteSize();
    static final long MSG_IOV = offset(MSGHDR, "msg_iov");
    static final long MSG_IOVLEN = offset(MSGHDR, "msg_iovlen");
    /** Linux's IOV_MAX. */
    public static final int IOV_MAX = 1024;

    private final MemorySegment iov;
    private final MemorySegment msghdr;
    private final int capacity;
    private int start;
    private int count;
    private long remaining;

    /** An empty array of capacity entries (1 to {@link #IOV_MAX}), allocated with its msghdr in arena. */
    public IovArray(Arena arena, int capacity) {
        if (capacity < 1 || capacity > IOV_MAX) throw new IllegalArgumentException("capacity " + capacity);
        this.capacity = capacity;
        this.iov = arena.allocate(IOV_SIZE * capacity, 8);
        this.msghdr = arena.allocate(MSGHDR);
    }

    /** Empties the array. */
    public void clear() {
        start = 0;
        count = 0;
        remaining = 0;
    }

    /** Appends len bytes of seg from offset; a zero length adds nothing. Returns false when full. */
    public boolean add(MemorySegment seg, long offset, long len) {
        if (len == 0) return true;
        if (count == capacity) return false;
        long at = count * IOV_SIZE;
        iov.set(JAVA_LONG, at, NativeAddress.of(seg, offset, len));
        iov.set(JAVA_LONG, at + 8, len);
        count++;
        remaining += len;
        return true;
    }

    /** Entries not yet fully written. */
    public int pending() { return count - start; }

    /** Bytes not yet written. */
    public long remaining() { return remaining; }

    /** True once every byte has been written. */
    public boolean isEmpty() { return remaining == 0; }

    /** Number of entries the array can hold. */
    public int capacity() { return capacity; }

    /** Marks n bytes written: drops whole entries and moves into a partly written one. */
    public void advance(long n) {
        if (n < 0 || n > remaining) throw new IllegalArgumentException("advance " + n + " of " + remaining);
        remaining -= n;
        while (n > 0) {
            long at = start * IOV_SIZE;
            long len = iov.get(JAVA_LONG, at + 8);
            if (n >= len) {
                n -= len;
                start++;
            } else {
                iov.set(JAVA_LONG, at, iov.get(JAVA_LONG, at) + n);
                iov.set(JAVA_LONG, at + 8, len - n);
                n = 0;
            }
        }
    }

    /**
     * Copies the bytes not yet written, in order, into dst at offset (to queue them after a partial
     * write); returns how many. Does not change the array.
     */
    public long copyRemainingTo(MemorySegment dst, long offset) {
        Objects.checkFromIndexSize(offset, remaining, dst.byteSize());
        long at = offset;
        for (int i = start; i < count; i++) {
            long base = iov.get(JAVA_LONG, i * IOV_SIZE);
            long len = iov.get(JAVA_LONG, i * IOV_SIZE + 8);
            MemorySegment.copy(MemorySegment.ofAddress(base).reinterpret(len), 0, dst, at, len);
            at += len;
        }
        return at - offset;
    }

    /** All of memory, to copy from the entries' raw addresses without a segment per entry. */
    private static final MemorySegment EVERYWHERE = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    /**
     * Copies at most max of the bytes not yet written, from the skip-th on, into dst at offset (a
     * shared-memory ring takes a batch in two pieces when it wraps); returns how many. Does not change
     * the array and allocates nothing.
     */
    public long copyPendingTo(long skip, MemorySegment dst, long offset, long max) {
        if (skip < 0 || max < 0) throw new IllegalArgumentException("skip " + skip + ", max " + max);
        long want = Math.min(max, remaining - skip);
        if (want <= 0) return 0;
        Objects.checkFromIndexSize(offset, want, dst.byteSize());
        long done = 0;
        for (int i = start; i < count && done < want; i++) {
            long base = iov.get(JAVA_LONG, i * IOV_SIZE);
            long len = iov.get(JAVA_LONG, i * IOV_SIZE + 8);
            if (skip >= len) {
                skip -= len;
                continue;
            }
            long n = Math.min(len - skip, want - done);
            MemorySegment.copy(EVERYWHERE, base + skip, dst, offset + done, n);
            done += n;
            skip = 0;
        }
        return done;
    }

    /** Raw address of the first pending entry, for writev. */
    long pendingAddress() { return iov.address() + start * IOV_SIZE; }

    /**
     * The msghdr describing the pending entries (no name, no control data), for sendmsg or an io_uring
     * SENDMSG SQE (the kernel copies it at submission; the entries' memory must live until completion).
     */
    public MemorySegment pendingMsghdr() {
        msghdr.set(JAVA_LONG, MSG_IOV, pendingAddress());
        msghdr.set(JAVA_LONG, MSG_IOVLEN, count - start);
        return msghdr;
    }

    private static long offset(StructLayout l, String field) {
        return l.byteOffset(MemoryLayout.PathElement.groupElement(field));
    }
}
