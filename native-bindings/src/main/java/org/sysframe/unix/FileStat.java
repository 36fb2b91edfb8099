package org.sysframe.unix;

import org.sysframe.unix.internal.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@code struct stat} of x86-64 (144 bytes, checked against gcc by {@code StructLayoutTest}) and what
 * {@link SocketFile} reads of it: device, inode, mode, owner and change time of a file, taken with
 * {@code fstatat} relative to a directory descriptor, or of the descriptor itself.
 */
public final class FileStat {
    private FileStat() {}

    /** {@code struct stat} (sys/stat.h): 144 bytes on x86-64. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("st_dev"),
            JAVA_LONG.withName("st_ino"),
            JAVA_LONG.withName("st_nlink"),
            JAVA_INT.withName("st_mode"),
            JAVA_INT.withName("st_uid"),
            JAVA_INT.withName("st_gid"),
            JAVA_INT.withName("__pad0"),
            JAVA_LONG.withName("st_rdev"),
            JAVA_LONG.withName("st_size"),
            JAVA_LONG.withName("st_blksize"),
            JAVA_LONG.withName("st_blocks"),
            JAVA_LONG.withName("st_atime"),
            JAVA_LONG.withName("st_atime_nsec"),
            JAVA_LONG.withName("st_mtime"),
            JAVA_LONG.withName("st_mtime_nsec"),
            JAVA_LONG.withName("st_ctime"),
            JAVA_LONG.withName("st_ctime_nsec"),
            MemoryLayout.sequenceLayout(3, JAVA_LONG).withName("__unused"));

    static final long DEV = LAYOUT.byteOffset(groupElement("st_dev"));
    static final long INO = LAYOUT.byteOffset(groupElement("st_ino"));
    static final long MODE = LAYOUT.byteOffset(groupElement("st_mode"));
    static final long UID = LAYOUT.byteOffset(groupElement("st_uid"));
    static final long CTIME = LAYOUT.byteOffset(groupElement("st_ctime"));
    static final long CTIME_NSEC = LAYOUT.byteOffset(groupElement("st_ctime_nsec"));

    static final int AT_FDCWD = -100;
    static final int AT_SYMLINK_NOFOLLOW = 0x100;
    static final int AT_REMOVEDIR = 0x200;
    static final int AT_EMPTY_PATH = 0x1000;

    /** The fields sysframe uses of one {@code stat} result. */
    public record Info(long dev, long ino, int mode, int uid, long ctimeNanos) {
        /** The file type bits ({@code S_IFMT}) of the mode. */
        public int type() { return mode & 0170000; }

        /** The permission bits (07777) of the mode. */
        public int permissions() { return mode & 07777; }
    }

    /**
     * {@code fstatat(dirFd, name, AT_SYMLINK_NOFOLLOW)}: a symlink is described, never followed; an
     * empty name describes dirFd itself. Returns null and leaves errno in cs on failure.
     */
    static Info at(MemorySegment cs, int dirFd, String name) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(LAYOUT);
            int flags = AT_SYMLINK_NOFOLLOW | (name.isEmpty() ? AT_EMPTY_PATH : 0);
            if (LibC.fstatat(cs, dirFd, a.allocateFrom(name), st, flags) != 0) return null;
            return new Info(st.get(JAVA_LONG, DEV), st.get(JAVA_LONG, INO), st.get(JAVA_INT, MODE),
                    st.get(JAVA_INT, UID), st.get(JAVA_LONG, CTIME) * 1_000_000_000L + st.get(JAVA_LONG, CTIME_NSEC));
        }
    }
}
