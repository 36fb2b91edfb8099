package org.sysframe.transport.internal.shm;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SharedMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The layout of a shared segment and its two ends: the server creates it (sized, sealed, mapped, the
 * header written), the client opens the descriptor it received and checks it before it maps it.
 * <pre>
 * offset  size  field
 *      0     4  magic 0x53485346 ("FSHS" little-endian: "SFSH" in a hex dump)
 *      4     4  version (2: the server's loop is woken through the eventfd passed with the segment)
 *      8     8  segment size in bytes
 *     16     4  ring capacity in bytes (each ring; a power of two)
 *     20     4  data offset (4096)
 *     64   256  ring 0 (requests, client to server): tail, head, consumer-sleeping, producer-sleeping words,
 *               each on its own 64-byte cache line; after each sleeping word (+4) its side's
 *               never-sleeps word (1: that side's wait only spins or yields; 0, as the memfd starts: it may sleep)
 *    320   256  ring 1 (answers and events, server to client): the same
 *   4096   cap  ring 0's bytes
 * 4096+cap cap  ring 1's bytes
 * </pre>
 * Every value of the header is read once, at open, and checked against what the sides agreed; the
 * indices are read by {@link ShmRing}, which checks each one before it uses it.
 */
public final class ShmSegment implements AutoCloseable {
    public static final int MAGIC = 0x53485346;
    public static final int VERSION = 2;
    static final long SIZE = 8;
    static final long CAPACITY = 16;
    static final long DATA_AT = 20;
    static final long RING0_CONTROL = 64;
    static final long RING1_CONTROL = 320;
    static final int DATA_OFFSET = 4096;
    /**
     * The ring capacity a server uses unless told otherwise: room for a largest message (GR_API_MAX_MSG_LEN of payload
     * and its header), claimed and read in place whole. A larger ring only streams a call's bytes through more lines
     * that have left the caches: a spinning 32-byte call over 512 KiB rings took 1.05-1.07x the time of one over
     * 256 KiB ones, which took what 128 KiB and 64 KiB rings take (docs/shared-memory.md).
     */
    public static final int DEFAULT_CAPACITY = 256 * 1024;
    static final int MIN_CAPACITY = 4096;
    static final int MAX_CAPACITY = 64 * 1024 * 1024;

    private final Arena arena;
    private final MemorySegment memory;
    private final int capacity;
    private final ShmRing requests;
    private final ShmRing answers;

    private ShmSegment(Arena arena, MemorySegment memory, int capacity) {
        this.arena = arena;
        this.memory = memory;
        this.capacity = capacity;
        this.requests = new ShmRing(memory, RING0_CONTROL, DATA_OFFSET, capacity);
        this.answers = new ShmRing(memory, RING1_CONTROL, DATA_OFFSET + 2L * capacity, capacity);
    }

    /** The segment's size for a ring capacity. */
    public static long sizeFor(int capacity) { return DATA_OFFSET + 2L * capacity; }

    /** Whether capacity is one a segment may have: a power of two from 4 KiB to 64 MiB. */
    public static boolean validCapacity(long capacity) {
        return capacity >= MIN_CAPACITY && capacity <= MAX_CAPACITY && Long.bitCount(capacity) == 1;
    }

    /**
     * The server's side: a new memfd of the size for capacity, sealed against shrinking, growing and
     * further seals before anyone else sees it, mapped, its header written. Returns the segment and,
     * in fdOut[0], the descriptor to pass (the caller closes it once passed).
     */
    public static ShmSegment create(String name, int capacity, int[] fdOut) throws ErrnoException {
        if (!validCapacity(capacity)) throw new IllegalArgumentException("ring capacity " + capacity
                + ": a power of two from 4096 to 64 MiB");
        long size = sizeFor(capacity);
        int fd = SharedMemory.create(name);
        Arena arena = Arena.ofShared();
        try {
            SharedMemory.truncate(fd, size);
            SharedMemory.addSeals(fd, SharedMemory.SIZE_SEALS);
            MemorySegment m = mapped(fd, capacity, arena);
            m.set(JAVA_INT, 4, VERSION);
            m.set(JAVA_LONG, SIZE, size);
            m.set(JAVA_INT, CAPACITY, capacity);
            m.set(JAVA_INT, DATA_AT, DATA_OFFSET);
            m.set(JAVA_INT, 0, MAGIC);
            fdOut[0] = fd;
            return new ShmSegment(arena, m, capacity);
        } catch (ErrnoException | RuntimeException e) {
            arena.close();
            SharedMemory.close(fd);
            throw e;
        }
    }

    /**
     * The client's side: checks that fd is sealed (no shrink, no grow: a peer truncating it could
     * otherwise fault this process on a touch of the lost pages) and of the size announced, maps it
     * and checks its header. Every refusal is EPROTO with one line saying what was wrong. The caller
     * keeps and closes fd.
     */
    public static ShmSegment open(int fd, long announcedSize) throws ErrnoException {
        int seals;
        try {
            seals = SharedMemory.seals(fd);
        } catch (ErrnoException e) {
            throw refused("the descriptor received is not a sealable memory file (" + Errno.name(e.errno()) + ")");
        }
        int need = SharedMemory.F_SEAL_SHRINK | SharedMemory.F_SEAL_GROW | SharedMemory.F_SEAL_SEAL;
        if ((seals & need) != need) {
            throw refused(
                    String.format("the segment is not sealed (seals 0x%x, want F_SEAL_SHRINK|F_SEAL_GROW|F_SEAL_SEAL "
                    + "0x%x)", seals, need));
        }
        long size = SharedMemory.size(fd);
        if (size != announcedSize) throw refused("the segment is " + size + " bytes, the server announced "
                + announcedSize);
        if (size < sizeFor(MIN_CAPACITY) || size > sizeFor(MAX_CAPACITY)) throw refused("a segment of " + size
                + " bytes is out of bounds");
        Arena arena = Arena.ofShared();
        try {
            // The header is read before the rings are mapped twice: its capacity is hostile until checked.
            MemorySegment m = SharedMemory.map(fd, DATA_OFFSET, arena);
            int magic = m.get(JAVA_INT, 0);
            if (magic != MAGIC) throw refused(String.format("bad magic 0x%08x (want 0x%08x)", magic, MAGIC));
            int version = m.get(JAVA_INT, 4);
            if (version != VERSION) throw refused("segment version " + version + ", this client speaks " + VERSION);
            long headerSize = m.get(JAVA_LONG, SIZE);
            int capacity = m.get(JAVA_INT, CAPACITY);
            int dataAt = m.get(JAVA_INT, DATA_AT);
            if (headerSize != size || dataAt != DATA_OFFSET || !validCapacity(capacity) || sizeFor(capacity) != size) {
                throw refused("inconsistent header: size " + headerSize + ", ring capacity " + capacity + ", data at "
                        + dataAt
                        + " in a file of " + size + " bytes");
            }
            arena.close();
            arena = Arena.ofShared();
            return new ShmSegment(arena, mapped(fd, capacity, arena), capacity);
        } catch (ErrnoException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /**
     * The file's header page once, then each ring's bytes twice in a row ({@link SharedMemory#mapMirrored}): a
     * message that wraps at a ring's end is contiguous in memory, so that it is written and read in place, in one
     * copy, with no padding in the stream. The file's layout is the one above; only this process's view of it doubles
     * the rings.
     */
    private static MemorySegment mapped(int fd, int capacity, Arena arena) throws ErrnoException {
        return SharedMemory.mapMirrored(fd, DATA_OFFSET, capacity, 2, arena);
    }

    private static ErrnoException refused(String why) {
        return new ErrnoException("shared memory", Errno.EPROTO, why);
    }

    public ShmRing requests() { return requests; }

    public ShmRing answers() { return answers; }

    public int capacity() { return capacity; }

    /** The file's size (the mapping is larger: each ring is mapped twice). */
    public long size() { return sizeFor(capacity); }

    /**
     * The whole mapping (tests write into it as a hostile peer would): the file's first page at 0, the request ring's
     * bytes at {@value #DATA_OFFSET} and again after them, the answer ring's at {@code DATA_OFFSET + 2 * capacity} and
     * again after them.
     */
    public MemorySegment memory() { return memory; }

    /** Unmaps the segment (idempotent); no ring may be used afterwards. */
    @Override
    public void close() {
        if (arena.scope().isAlive()) arena.close();
    }
}
