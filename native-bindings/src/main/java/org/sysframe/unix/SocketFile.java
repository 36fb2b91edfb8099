package org.sysframe.unix;

import org.sysframe.unix.internal.LibC;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The file a listening AF_UNIX socket leaves at its path, and the only ways sysframe removes one: a
 * path is reclaimed only while it holds a socket ({@code lstat}, so a symlink is never followed), and
 * the removal cannot take anything else that was put there in between (see {@link #removeIfSame}).
 */
public final class SocketFile {
    private SocketFile() {}

    /**
     * A file's identity: (st_dev, st_ino), and st_ctime because a freed inode number is soon given to
     * a new file: a path that now names another file has another id.
     */
    public record Id(long dev, long ino, long ctimeNanos) {}

    private static final int S_IFMT = 0170000;
    private static final int S_IFSOCK = 0140000;
    private static final int AT_FDCWD = -100;
    private static final int RENAME_NOREPLACE = 1;

    /**
     * The id of the socket file at path, or null when nothing is there. Anything else at the path (a
     * regular file, a symlink to anything, a directory, a FIFO, a device) fails with EEXIST naming it.
     */
    public static Id socketAt(String path) throws ErrnoException {
        Map<String, Object> a;
        try {
            a = Files.readAttributes(Path.of(path), "unix:mode,dev,ino,ctime", LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException | UnsupportedOperationException e) {
            throw new ErrnoException("lstat(" + path + ")", Errno.EIO, String.valueOf(e.getMessage()));
        }
        int mode = (Integer) a.get("mode");
        if ((mode & S_IFMT) != S_IFSOCK) {
            throw new ErrnoException("bind(" + path + ")", Errno.EEXIST,
                    path + " exists and is not a socket (" + kind(mode) + "): left as it is");
        }
        long ctime = ((java.nio.file.attribute.FileTime) a.get("ctime")).to(java.util.concurrent.TimeUnit.NANOSECONDS);
        return new Id((Long) a.get("dev"), (Long) a.get("ino"), ctime);
    }

    /**
     * Removes the socket file at path only if it is still the file with that id. The file is checked,
     * then moved aside, atomically, to a fresh name in the same directory; what was moved is checked there
     * and unlinked only if it is that socket, else it is moved back. So a file put at the path after
     * the caller's check is never deleted. Returns false when nothing was removed (the path is empty
     * or names another file, which is then back in place).
     */
    public static boolean removeIfSame(String path, Id id) throws ErrnoException {
        Path p = Path.of(path);
        Path parent = p.toAbsolutePath().getParent();
        Path aside = parent.resolve("." + p.getFileName() + ".stale-" + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        try {
            if (!id.equals(socketAt(path))) return false;
        } catch (ErrnoException notSocket) {
            return false;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            MemorySegment from = a.allocateFrom(path);
            MemorySegment to = a.allocateFrom(aside.toString());
            if (LibC.renameat2(cs, AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) != 0) {
                int err = Errno.read(cs);
                if (err == Errno.ENOENT) return false;
                throw new ErrnoException("renameat2(" + path + ", RENAME_NOREPLACE)", err,
                        "cannot move the stale socket file aside to remove it");
            }
            Id moved;
            try {
                moved = socketAt(aside.toString());
            } catch (ErrnoException notSocket) {
                moved = null;
            }
            // The rename changed st_ctime: the moved file is the socket if device and inode match.
            if (moved != null && moved.dev() == id.dev() && moved.ino() == id.ino()) {
                if (LibC.unlink(cs, to) != 0) throw new ErrnoException("unlink(" + aside + ")", Errno.read(cs));
                return true;
            }
            if (LibC.renameat2(cs, AT_FDCWD, to, AT_FDCWD, from, RENAME_NOREPLACE) != 0) {
                // Something new took the path meanwhile: keep both, and say where the other one is.
                throw new ErrnoException("renameat2(" + aside + ", " + path + ")", Errno.read(cs),
                        path + " changed while it was being reclaimed; the file that was there is now at " + aside);
            }
            return false;
        }
    }

    /** What is at path, without following a symlink: "nothing", "a socket", "a regular file", "a symbolic link"... */
    public static String kindAt(String path) {
        try {
            return kind((Integer) Files.getAttribute(Path.of(path), "unix:mode", LinkOption.NOFOLLOW_LINKS));
        } catch (NoSuchFileException e) {
            return "nothing";
        } catch (IOException | UnsupportedOperationException e) {
            return "something unreadable (" + e.getMessage() + ")";
        }
    }

    private static String kind(int mode) {
        return switch (mode & S_IFMT) {
            case 0100000 -> "a regular file";
            case 0120000 -> "a symbolic link";
            case 0040000 -> "a directory";
            case 0010000 -> "a FIFO";
            case 0020000 -> "a character device";
            case 0060000 -> "a block device";
            case S_IFSOCK -> "a socket";
            default -> "file type 0" + Integer.toOctalString(mode & S_IFMT);
        };
    }
}
