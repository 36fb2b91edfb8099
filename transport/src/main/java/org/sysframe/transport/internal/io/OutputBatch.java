package org.sysframe.transport.internal.io;

import org.sysframe.transport.wire.EventHeader;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.unix.IovArray;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The responses and events a deferred-flush connection produced while handling one read, described by
 * one iovec array for one writev: headers and copied payloads are staged in 16 KiB (a big batch goes
 * on in a large buffer, given back after {@link InputBuffer#RELEASE_AFTER} batches that did not need
 * it), echoed payloads are referenced in place. Keeps the first message apart so a batch of one can be
 * sent with the copy framing instead. The iovec array and the first staging buffer are lent by the
 * loop's {@link Pool} while the batch holds messages ({@link Memory}); the large buffer is its own.
 */
public final class OutputBatch {
    private static final int STAGING_START = 16 * 1024;
    private static final int IOV_ENTRIES = 256;

    private final Pool<Memory> pool;
    private final long largeSize;
    private Memory mem; // lent by the loop's pool while the batch holds messages
    private IovArray iov;
    private MemorySegment smallStaging;
    private MemorySegment largeStaging;
    private MemorySegment staging;
    private Arena largeArena;
    private int largeIdle;
    private long stagingUsed;
    private long bytes;
    private int messages;
    private long firstHeaderAt;
    private int firstHeaderLen;
    private MemorySegment firstPayload;
    private long firstPayloadOff;
    private long firstPayloadLen;
    // The same entries as the iovec array, for copying the batch without reading native iovecs back.
    private MemorySegment[] entrySeg;
    private long[] entryOff;
    private long[] entryLen;
    private int entries;

    /**
     * What a batch holds only while it has messages: the iovec array, the first staging buffer and the
     * entries' copy. A loop's connections share a {@link Pool} of them, so that an idle connection
     * holds none.
     */
    public static final class Memory {
        private final Arena arena = Arena.ofShared();
        private final IovArray iov = new IovArray(arena, IOV_ENTRIES);
        private final MemorySegment staging = arena.allocate(STAGING_START, 8);
        private final MemorySegment[] entrySeg = new MemorySegment[IOV_ENTRIES];
        private final long[] entryOff = new long[IOV_ENTRIES];
        private final long[] entryLen = new long[IOV_ENTRIES];

        private void free() { arena.close(); }

        /** A pool of them, at most keep kept idle. */
        public static Pool<Memory> pool(int keep) { return new Pool<>(Memory::new, Memory::free, keep); }
    }

    /**
     * A batch whose memory comes from pool; highWater: the flush threshold, so that one more message always fits in the
     * large buffer.
     */
    public OutputBatch(Pool<Memory> pool, int highWater) {
        this.pool = pool;
        this.largeSize = highWater + GroutApi.MAX_MSG_LEN + 2L * EventHeader.SIZE;
    }


    /** Whether one more message (two iovec entries) fits. */
    public boolean hasRoom() { return mem == null || iov.pending() + 2 <= iov.capacity(); }

    /** Adds a message: header (copied) and payload (copied, or referenced in place when fromRequest). */
    public void add(MemorySegment header, int hlen, MemorySegment payload, long off, long len, boolean fromRequest) {
        if (mem == null) {
            mem = pool.take();
            iov = mem.iov;
            smallStaging = mem.staging;
            staging = smallStaging;
            entrySeg = mem.entrySeg;
            entryOff = mem.entryOff;
            entryLen = mem.entryLen;
        }
        long staged = hlen + (fromRequest ? 0 : len);
        if (stagingUsed + staged > staging.byteSize()) {
            if (largeArena == null) {
                largeArena = Arena.ofConfined();
                largeStaging = largeArena.allocate(largeSize, 8);
            }
            staging = largeStaging;
            stagingUsed = 0;
            largeIdle = 0;
        }
        long headerAt = stagingUsed;
        MemorySegment.copy(header, 0, staging, stagingUsed, hlen);
        iov.add(staging, stagingUsed, hlen);
        entry(staging, stagingUsed, hlen);
        stagingUsed += hlen;
        MemorySegment body = payload;
        long bodyOff = off;
        if (len > 0 && fromRequest) {
            iov.add(payload, off, len);
            entry(payload, off, len);
        } else if (len > 0) {
            MemorySegment.copy(payload, off, staging, stagingUsed, len);
            iov.add(staging, stagingUsed, len);
            entry(staging, stagingUsed, len);
            body = staging;
            bodyOff = stagingUsed;
            stagingUsed += len;
        }
        if (messages++ == 0) {
            firstHeaderAt = headerAt;
            firstHeaderLen = hlen;
            firstPayload = body;
            firstPayloadOff = bodyOff;
            firstPayloadLen = len;
        }
        bytes += hlen + len;
    }

    private void entry(MemorySegment seg, long off, long len) {
        entrySeg[entries] = seg;
        entryOff[entries] = off;
        entryLen[entries] = len;
        entries++;
    }

    /**
     * Copies the whole batch, in order, into dst at at (a driver that sends from its own memory);
     * only before any of it was written (the iovec array not advanced). Returns the bytes copied.
     */
    public long copyTo(MemorySegment dst, long at) {
        long start = at;
        for (int i = 0; i < entries; i++) {
            MemorySegment.copy(entrySeg[i], entryOff[i], dst, at, entryLen[i]);
            at += entryLen[i];
        }
        return at - start;
    }

    public boolean isEmpty() { return messages == 0; }

    public int messages() { return messages; }

    /** Header and payload bytes in the batch. */
    public long bytes() { return bytes; }

    /** The batch's iovec array (advanced by partial writes). */
    public IovArray iov() { return iov; }

    /** Copies the first message's header into dst at 0 and returns its length. */
    public int copyFirstHeader(MemorySegment dst) {
        MemorySegment.copy(staging, firstHeaderAt, dst, 0, firstHeaderLen);
        return firstHeaderLen;
    }

    public MemorySegment firstPayload() { return firstPayload; }

    public long firstPayloadOffset() { return firstPayloadOff; }

    public long firstPayloadLength() { return firstPayloadLen; }

    /** Empties the batch (its bytes were written or queued). */
    public void reset() {
        stagingUsed = 0;
        bytes = 0;
        messages = 0;
        firstPayload = null;
        for (int i = 0; i < entries; i++) entrySeg[i] = null;
        entries = 0;
        giveBack();
        if (largeArena != null && ++largeIdle >= InputBuffer.RELEASE_AFTER) {
            largeArena.close();
            largeArena = null;
            largeStaging = null;
        }
    }

    private void giveBack() {
        if (mem == null) return;
        iov.clear();
        pool.give(mem);
        mem = null;
        iov = null;
        smallStaging = null;
        staging = null;
        entrySeg = null;
        entryOff = null;
        entryLen = null;
    }

    public void close() {
        giveBack();
        if (largeArena != null) largeArena.close();
        largeArena = null;
    }
}
