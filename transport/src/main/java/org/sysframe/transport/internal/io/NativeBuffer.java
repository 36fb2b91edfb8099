package org.sysframe.transport.internal.io;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.PageMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Native memory of its own that a {@link Pool} lends and frees one by one (its own shared arena: a
 * pool is closed by another thread than the loop's, once that loop has ended): from malloc, zeroed,
 * or a mapping of its own ({@link PageMemory}: pages become resident only once written, and go back
 * to the kernel when freed, where malloc would keep a freed 64 KiB block resident).
 */
public final class NativeBuffer {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment segment;

    private NativeBuffer(long bytes, boolean mapped) {
        if (!mapped) {
            this.segment = arena.allocate(bytes, 8);
            return;
        }
        try {
            this.segment = PageMemory.map(bytes, arena);
        } catch (ErrnoException e) {
            arena.close();
            throw new OutOfMemoryError("mapping of " + bytes + " bytes: " + e.getMessage()); // as Arena.allocate fails
        }
    }

    public MemorySegment segment() { return segment; }

    /** A pool of malloc'd buffers of bytes each, at most keep kept idle. */
    public static Pool<NativeBuffer> pool(long bytes, int keep) {
        return new Pool<>(() -> new NativeBuffer(bytes, false), NativeBuffer::free, keep);
    }

    /** A pool of mappings of bytes each, at most keep kept idle. */
    public static Pool<NativeBuffer> mappedPool(long bytes, int keep) {
        return new Pool<>(() -> new NativeBuffer(bytes, true), NativeBuffer::free, keep);
    }

    void free() { arena.close(); }
}
