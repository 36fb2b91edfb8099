package org.sysframe.unix;

import org.sysframe.unix.internal.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Zeroed memory of its own anonymous private mapping ({@code mmap}), given back to the kernel the
 * moment its arena closes. For buffers of 64 KiB and more that come and go: malloc keeps
 * freed blocks of that size in its arenas (its mmap threshold rises after the first free), so the
 * process's resident memory never shrinks after a burst; a mapping of its own does. The pages become
 * resident only when touched. mmap and munmap are not counted in {@link SyscallCounters} (they are not I/O).
 */
public final class PageMemory {
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
    private static final ThreadLocal<MemorySegment> CALL_STATE =
            ThreadLocal.withInitial(() -> Errno.newCallState(Arena.ofAuto()));

    private static final MethodHandle MALLOC_TRIM = Linker.nativeLinker().defaultLookup().find("malloc_trim")
            .map(a -> Linker.nativeLinker().downcallHandle(a, FunctionDescriptor.of(JAVA_INT, JAVA_LONG))).orElse(null);

    private PageMemory() {}

    /**
     * Asks malloc to give its free memory back to the kernel ({@code malloc_trim(0)}, glibc; nothing
     * where there is none): after many small buffers were freed at once (connections closed), the
     * process's resident memory shrinks instead of staying at its peak. Costs a walk of malloc's
     * arenas: call it now and then, not per call.
     */
    public static void trimMalloc() {
        if (MALLOC_TRIM == null) return;
        try {
            int unused = (int) MALLOC_TRIM.invokeExact(0L);
        } catch (Throwable t) {
            throw new IllegalStateException("malloc_trim", t);
        }
    }

    /**
     * A new mapping of bytes (the kernel rounds it up to whole pages) that lives as long as arena:
     * closing the arena unmaps it, and the segment can no longer be reached.
     */
    public static MemorySegment map(long bytes, Arena arena) throws ErrnoException {
        if (bytes <= 0) throw new IllegalArgumentException("mapping of " + bytes + " bytes");
        MemorySegment cs = CALL_STATE.get();
        long a = LibC.mmap(cs, 0, bytes, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0);
        if (a == -1) throw new ErrnoException("mmap(" + bytes + " bytes)", Errno.read(cs));
        return MemorySegment.ofAddress(a).reinterpret(bytes, arena, s -> LibC.munmap(CALL_STATE.get(), a, bytes));
    }
}
