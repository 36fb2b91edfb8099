package org.sysframe.unix;

import org.sysframe.unix.internal.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Memory two processes share: an anonymous file ({@code memfd_create}) sized with {@code ftruncate},
 * sealed with {@code fcntl(F_ADD_SEALS)} so that neither side can shrink or grow it any more, and
 * mapped {@code MAP_SHARED} by each side; its descriptor goes from one process to the other with
 * {@link UnixSocket#sendFds} / {@link UnixSocket#recvFds}.
 *
 * <p>Why the seals matter: a mapping of a file that the other process truncates faults (SIGBUS) on
 * the next touch of a page past the new end, and a JVM does not survive that. A receiver therefore
 * maps a file only once {@link #seals} says it can no longer shrink ({@link #F_SEAL_SHRINK}), and checks
 * its size ({@link #size}) against what it expects. These calls set things up once per channel and
 * are not counted in {@link SyscallCounters} (as mmap and setsockopt are not: they are not I/O).
 */
public final class SharedMemory {
    /** No more seals may be added. */
    public static final int F_SEAL_SEAL = 0x0001;
    /** The file may not shrink. */
    public static final int F_SEAL_SHRINK = 0x0002;
    /** The file may not grow. */
    public static final int F_SEAL_GROW = 0x0004;
    /** The file may not be written (not used by sysframe: both sides write the rings). */
    public static final int F_SEAL_WRITE = 0x0008;
    /** The seals sysframe puts on a shared segment before it is passed: no shrink, no grow, no more seals. */
    public static final int SIZE_SEALS = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;

    static final int MFD_CLOEXEC = 0x0001;
    static final int MFD_ALLOW_SEALING = 0x0002;
    static final int F_ADD_SEALS = 1024 + 9;
    static final int F_GET_SEALS = 1024 + 10;
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_SHARED = 0x01;
    private static final int MAP_POPULATE = 0x8000;
    private static final int PROT_NONE = 0;
    private static final int MAP_PRIVATE_ANONYMOUS_NORESERVE = 0x02 | 0x20 | 0x4000;
    private static final int MAP_FIXED = 0x10;
    /** The page size the mirrored mapping's pieces are aligned to. */
    public static final long PAGE = 4096;
    private static final int SEEK_END = 2;

    private SharedMemory() {}

    /**
     * A new anonymous file of 0 bytes, close-on-exec, that accepts seals; name shows in
     * {@code /proc/PID/fd} and {@code /proc/PID/maps} as {@code memfd:NAME}.
     */
    public static int create(String name) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            int fd = LibC.memfdCreate(cs, a.allocateFrom(name), MFD_CLOEXEC | MFD_ALLOW_SEALING);
            if (fd < 0) throw new ErrnoException("memfd_create(" + name + ")", Errno.read(cs));
            return fd;
        }
    }

    /** Sets the file's size (ftruncate); EPERM once a seal forbids the change. */
    public static void truncate(int fd, long bytes) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            int rc;
            do {
                rc = LibC.ftruncate(cs, fd, bytes);
            } while (rc < 0 && Errno.read(cs) == Errno.EINTR);
            if (rc < 0) throw new ErrnoException("ftruncate(fd " + fd + ", " + bytes + ")", Errno.read(cs));
        }
    }

    /** Adds seals (F_ADD_SEALS); EPERM when the file already has F_SEAL_SEAL or was not created for sealing. */
    public static void addSeals(int fd, int seals) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            if (LibC.fcntl(cs, fd, F_ADD_SEALS, seals) < 0) {
                throw new ErrnoException("fcntl(fd " + fd + ", F_ADD_SEALS, 0x" + Integer.toHexString(seals) + ")",
                        Errno.read(cs));
            }
        }
    }

    /** The file's seals (F_GET_SEALS); EINVAL for a descriptor that is not a memfd (or another sealable file). */
    public static int seals(int fd) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            int s = LibC.fcntl(cs, fd, F_GET_SEALS, 0);
            if (s < 0) throw new ErrnoException("fcntl(fd " + fd + ", F_GET_SEALS)", Errno.read(cs));
            return s;
        }
    }

    /** The file's size in bytes (lseek to its end). */
    public static long size(int fd) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            long n = LibC.lseek(cs, fd, 0, SEEK_END);
            if (n < 0) throw new ErrnoException("lseek(fd " + fd + ", SEEK_END)", Errno.read(cs));
            return n;
        }
    }

    /**
     * Maps bytes of fd from offset 0, shared and read-write, its pages faulted in at once
     * (MAP_POPULATE); closing arena unmaps it. The descriptor may be closed afterwards: the mapping
     * keeps the file alive.
     */
    public static MemorySegment map(int fd, long bytes, Arena arena) throws ErrnoException {
        if (bytes <= 0) throw new IllegalArgumentException("mapping of " + bytes + " bytes");
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            long addr = LibC.mmap(cs, 0, bytes, PROT_READ_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
            if (addr == -1) throw new ErrnoException("mmap(fd " + fd + ", " + bytes + " bytes, MAP_SHARED)",
                    Errno.read(cs));
            return MemorySegment.ofAddress(addr).reinterpret(bytes, arena, s -> {
                try (Arena u = Arena.ofConfined()) {
                    LibC.munmap(Errno.newCallState(u), addr, bytes);
                }
            });
        }
    }

    /**
     * Maps fd as {@link #map} does, with each of rings consecutive ranges of ringBytes, the first at file offset
     * head, mapped twice in a row: the bytes past a ring's end in memory are its first bytes again, so that
     * any ringBytes consecutive bytes of a ring, from any offset in it, are contiguous in memory (a ring's
     * reader and writer never split a message at the wrap). The segment is {@code head + 2 * rings *
     * ringBytes} bytes: ring r at {@code head + 2 * r * ringBytes}, its mirror ringBytes after. The file's first
     * head bytes are mapped once, at 0. head and ringBytes are multiples of {@link #PAGE}, and the file is
     * {@code head + rings * ringBytes} bytes. Closing arena unmaps it all.
     *
     * <p>How: one reservation of the whole range ({@code PROT_NONE}), then each piece mapped over its part
     * of it ({@code MAP_FIXED}, which replaces only the reservation this call made). Both views of a page
     * are one physical page: a store through one is seen through the other.
     */
    public static MemorySegment mapMirrored(int fd, long head, long ringBytes, int rings, Arena arena)
            throws ErrnoException {
        if (head <= 0 || ringBytes <= 0 || rings <= 0 || head % PAGE != 0 || ringBytes % PAGE != 0) {
            throw new IllegalArgumentException("a mirrored mapping of " + rings + " rings of " + ringBytes
                    + " bytes after " + head + ": all multiples of " + PAGE);
        }
        long total = head + 2L * rings * ringBytes;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            long base = LibC.mmap(cs, 0, total, PROT_NONE, MAP_PRIVATE_ANONYMOUS_NORESERVE, -1, 0);
            if (base == -1) throw new ErrnoException("mmap(" + total + " bytes, PROT_NONE)", Errno.read(cs));
            try {
                mapOver(cs, fd, base, 0, head);
                for (int r = 0; r < rings; r++) {
                    long at = head + 2L * r * ringBytes;
                    long file = head + r * ringBytes;
                    mapOver(cs, fd, base + at, file, ringBytes);
                    mapOver(cs, fd, base + at + ringBytes, file, ringBytes);
                }
            } catch (ErrnoException e) {
                LibC.munmap(cs, base, total);
                throw e;
            }
            return MemorySegment.ofAddress(base).reinterpret(total, arena, s -> {
                try (Arena u = Arena.ofConfined()) {
                    LibC.munmap(Errno.newCallState(u), base, total);
                }
            });
        }
    }

    private static void mapOver(MemorySegment cs, int fd, long addr, long fileOffset, long bytes)
            throws ErrnoException {
        long got = LibC.mmap(cs, addr, bytes, PROT_READ_WRITE, MAP_SHARED | MAP_FIXED | MAP_POPULATE, fd, fileOffset);
        if (got == -1) {
            throw new ErrnoException("mmap(fd " + fd + ", " + bytes + " bytes at file offset " + fileOffset
                    + ", MAP_SHARED | MAP_FIXED)", Errno.read(cs));
        }
    }

    /** Closes a descriptor (not retried on EINTR: Linux frees it anyway). */
    public static void close(int fd) {
        if (fd < 0) return;
        try (Arena a = Arena.ofConfined()) {
            LibC.close(Errno.newCallState(a), fd);
        }
    }
}
