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
 * sent with the copy framing instead. Memory is taken on first use and freed by {@link #close()}.
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
public final class OutputBatch {
    private static final int STAGING_START = 16 * 1024;
    private static final int IOV_ENTRIES = 256;

    private final Arena arena;
    private final long largeSize;
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
    private final MemorySegment[] entrySeg = new MemorySegment[IOV_ENTRIES];
    private final long[] entryOff = new long[IOV_ENTRIES];
    private final long[] entryLen = new long[IOV_ENTRIES];
    private int entries;

    /** highWater: the flush threshold, so that one more message always fits in the large buffer. */
    public OutputBatch(Arena arena, int highWater) {
        this.arena = arena;
        this.largeSize = highWater + GroutApi.MAX_MSG_LEN + 2L * EventHeader.SIZE;
    }

    /** Whether one more message (two iovec entries) fits. */
    public boolean hasRoom() { return iov == null || iov.pending() + 2 <= iov.capacity(); }

    /** Adds a message: header (copied) and payload (copied, or referenced in place when fromRequest). */
    public void add(MemorySegment header, int hlen, MemorySegment payload, long off, long len, boolean fromRequest) {
        if (iov == null) {
            iov = new IovArray(arena, IOV_ENTRIES);
            smallStaging = arena.allocate(STAGING_START, 8);
            staging = smallStaging;
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
        if (iov != null) iov.clear();
        stagingUsed = 0;
        bytes = 0;
        messages = 0;
        firstPayload = null;
        for (int i = 0; i < entries; i++) entrySeg[i] = null;
        entries = 0;
        staging = smallStaging;
        if (largeArena != null && ++largeIdle >= InputBuffer.RELEASE_AFTER) {
            largeArena.close();
            largeArena = null;
            largeStaging = null;
        }
    }

    public void close() {
        if (largeArena != null) largeArena.close();
        largeArena = null;
    }
}
