package org.sysframe.unix;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/** Turns a range of a segment into the raw address the kernel is given, after checking it. */
final class NativeAddress {
    private NativeAddress() {}

    /**
     * The address of len bytes of seg from offset. The range must lie in seg, and seg must be native:
     * a heap segment's address() is an offset in its array, not an address the kernel can use.
     */
    static long of(MemorySegment seg, long offset, long len) {
        Objects.checkFromIndexSize(offset, len, seg.byteSize());
        if (!seg.isNative()) throw new IllegalArgumentException("a heap segment cannot be handed to the kernel: use "
                + "native (Arena) memory");
        return seg.address() + offset;
    }
}
