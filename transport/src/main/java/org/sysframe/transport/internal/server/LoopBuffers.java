package org.sysframe.transport.internal.server;

import org.sysframe.transport.internal.io.NativeBuffer;
import org.sysframe.transport.internal.io.OutputBatch;
import org.sysframe.transport.internal.io.Pool;

/**
 * What a loop's connections hold only while bytes wait, lent by the loop's pools so that an idle
 * connection holds none: input buffers of the configured read size and output batches' memory. Past
 * {@value #KEEP} idle of each, a buffer given back is freed (the pools' bound: 2 MiB of 8 KiB input
 * buffers, 5 MiB of 20 KiB batches per loop); {@value #TRIM_KEEP} are kept after the loop's timer trims
 * them, none once the loop's last connection closed. Loop thread; {@link #close()} once it ended.
 */
final class LoopBuffers {
    static final int KEEP = 256;
    static final int TRIM_KEEP = 16;

    final Pool<NativeBuffer> input;
    final Pool<OutputBatch.Memory> batches = OutputBatch.Memory.pool(KEEP);

    LoopBuffers(int readBuffer) { this.input = NativeBuffer.pool(readBuffer, KEEP); }

    /** Frees the idle buffers past keep of each kind. */
    void trim(int keep) {
        input.trim(keep);
        batches.trim(keep);
    }

    void close() {
        input.close();
        batches.close();
    }
}
