package org.sysframe.transport.internal.server;

import org.sysframe.transport.internal.io.NativeBuffer;
import org.sysframe.transport.internal.io.OutputBatch;
import org.sysframe.transport.internal.io.Pool;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.PageMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * What a loop's connections hold only while bytes wait, lent by the loop's pools so that an idle
 * connection holds none: input buffers of the configured read size and output batches' memory. Past
 * {@value #KEEP} idle of each, a buffer given back is freed (the pools' bound: 2 MiB of 8 KiB input
 * buffers, 5 MiB of 20 KiB batches per loop); {@value #TRIM_KEEP} are kept after the loop's timer trims
 * them, none once the loop's last connection closed. Beside them, the loop's one {@link #claimArea()}. Loop
 * thread; {@link #close()} once it ended.
 */
final class LoopBuffers {
    static final int KEEP = 256;
    static final int TRIM_KEEP = 16;

    final Pool<NativeBuffer> input;
    final Pool<OutputBatch.Memory> batches = OutputBatch.Memory.pool(KEEP);

    private final Arena claims = Arena.ofShared(); // closed by close(), after the loop's thread ended
    private MemorySegment claimArea;

    LoopBuffers(int readBuffer) { this.input = NativeBuffer.pool(readBuffer, KEEP); }

    /**
     * GR_API_MAX_MSG_LEN bytes for the answer a handler claims where its connection's outlet has no room of its own:
     * one answer at a time, as the loop runs one handler at a time. Mapped at the first use, so that its pages become
     * resident only as far as answers reach them.
     */
    MemorySegment claimArea() {
        if (claimArea == null) {
            try {
                claimArea = PageMemory.map(GroutApi.MAX_MSG_LEN, claims);
            } catch (ErrnoException e) {
                throw new OutOfMemoryError("mapping of the loop's claim area: " + e.getMessage());
            }
        }
        return claimArea;
    }

    /** Frees the idle buffers past keep of each kind. */
    void trim(int keep) {
        input.trim(keep);
        batches.trim(keep);
    }

    void close() {
        input.close();
        batches.close();
        claims.close();
    }
}
