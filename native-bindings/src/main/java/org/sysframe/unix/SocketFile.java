package org.sysframe.unix;

import org.sysframe.unix.internal.LibC;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
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
    private static final int S_IFDIR = 0040000;
    private static final int O_RDONLY = 0;
    private static final int O_DIRECTORY = 0200000;
    private static final int O_NOFOLLOW = 0400000;
    private static final int O_CLOEXEC = 02000000;
    /** The socket's name inside its private directory: short, so that any directory path fits in sun_path. */
    private static final String INNER = "s";
    private static final int AT_FDCWD = FileStat.AT_FDCWD;
    private static final int RENAME_NOREPLACE = 1;

    /**
     * The id of the socket file at path, or null when nothing is there. Anything else at the path (a
     * regular file, a symlink to anything, a directory, a FIFO, a device) fails with EEXIST naming it.
     */
    public static Id socketAt(String path) throws ErrnoException {
        SockaddrUn.check(path);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            FileStat.Info st = FileStat.at(cs, FileStat.AT_FDCWD, path);
            if (st == null) {
                int err = Errno.read(cs);
                if (err == Errno.ENOENT) return null;
                throw new ErrnoException("lstat(" + path + ")", err);
            }
            if (st.type() != S_IFSOCK) {
                throw new ErrnoException("bind(" + path + ")", Errno.EEXIST,
                        path + " exists and is not a socket (" + kind(st.mode()) + "): left as it is");
            }
            return idOf(st);
        }
    }

    /**
     * Removes the socket file at path only if it is still the file with that id. The file is checked,
     * then moved aside, atomically, to a fresh name in the same directory; what was moved is checked there
     * and unlinked only if it is that socket, else it is moved back. So a file put at the path after
     * the caller's check is never deleted. Returns false when nothing was removed (the path is empty
     * or names another file, which is then back in place).
     */
    public static boolean removeIfSame(String path, Id id) throws ErrnoException {
        SockaddrUn.check(path);
        Path p = Path.of(path);
        Path parent = p.toAbsolutePath().getParent();
        Path aside = parent.resolve("." + p.getFileName() + ".stale-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong()));
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

    /**
     * Binds fd so that a socket file of the given mode appears at path, listening, without ever
     * setting a mode through a path another user could change (see the class comment of
     * {@link UnixSocket#listen}):
     * <ol>
     * <li>a fresh directory {@code .NAME.XXXXXX} (mkdtemp: mode 0700) is made beside path, so that the
     *     final rename stays on one filesystem, and opened with O_NOFOLLOW; it must be a directory of
     *     this process's euid with mode 0700 (a directory swapped in meanwhile is refused);
     * <li>the socket is bound inside it through the descriptor ({@code /proc/self/fd/N/s}; by the
     *     directory's path where /proc is missing, the checks below then see where it landed),
     *     its mode set with fchmodat relative to the descriptor, checked, and listen() called, so it is
     *     live before anyone can see it;
     * <li>it is moved to path with renameat2(RENAME_NOREPLACE): whatever appeared at path meanwhile is
     *     left as it is (EEXIST naming it);
     * <li>path is lstat()ed: it must be that socket (device, inode) with that mode, else the start fails
     *     saying what is there; then the private directory is removed.
     * </ol>
     * Returns the identity of the file at path.
     */
    static Id bindPrivately(int fd, String path, int mode, int backlog) throws ErrnoException {
        int slash = path.lastIndexOf('/');
        String parent = slash < 0 ? "." : slash == 0 ? "/" : path.substring(0, slash);
        String name = path.substring(slash + 1);
        if (name.isEmpty() || name.equals(".") || name.equals("..")) {
            throw new ErrnoException("bind(" + path + ")", Errno.EINVAL,
                    "the path names a directory, not a socket file in one");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            MemorySegment template = a.allocateFrom((parent.endsWith("/") ? parent : parent + "/") + "." + name
                    + ".XXXXXX");
            if (LibC.mkdtemp(cs, template).address() == 0) {
                throw new ErrnoException("mkdtemp(" + template.getString(0) + ")", Errno.read(cs),
                        "cannot make the private directory the socket file is set up in, beside " + path);
            }
            String dir = template.getString(0);
            int dfd = LibC.openat(cs, AT_FDCWD, template, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
            if (dfd < 0) {
                throw new ErrnoException("open(" + dir + ")", Errno.read(cs),
                        "the private directory made for the socket was replaced right after mkdtemp: left as it is");
            }
            boolean ours = false;
            try {
                FileStat.Info d = FileStat.at(cs, dfd, "");
                if (d == null) throw new ErrnoException("fstat(" + dir + ")", Errno.read(cs));
                int euid = LibC.geteuid();
                if ((d.mode() & S_IFMT) != S_IFDIR || d.uid() != euid || d.permissions() != 0700) {
                    throw new ErrnoException("fstat(" + dir + ")", Errno.EPERM, dir
                            + " is not the private directory this process made (" + kind(d.mode())
                            + " of uid " + d.uid() + ", mode 0" + Integer.toOctalString(d.permissions())
                                    + "; expected a directory of uid " + euid
                            + ", mode 0700): left as it is");
                }
                ours = true;
                return bindInside(a, cs, fd, dfd, dir, path, mode, backlog);
            } finally {
                LibC.close(cs, dfd);
                // Best effort: by path, so a directory put in its place is removed only if empty, a symlink not at all.
                if (ours) LibC.unlinkat(cs, AT_FDCWD, template, FileStat.AT_REMOVEDIR);
            }
        }
    }

    private static Id bindInside(Arena a, MemorySegment cs, int fd, int dfd, String dir, String path, int mode,
            int backlog) throws ErrnoException {
        MemorySegment inner = a.allocateFrom(INNER);
        SockaddrUn.Address viaFd = SockaddrUn.of(a, "/proc/self/fd/" + dfd + "/" + INNER);
        int rc = LibC.bind(cs, fd, viaFd.segment(), viaFd.length());
        if (rc != 0 && Errno.read(cs) == Errno.ENOENT && !Files.isDirectory(Path.of("/proc/self/fd"))) {
            SockaddrUn.Address byPath = SockaddrUn.of(a, dir + "/" + INNER);
            rc = LibC.bind(cs, fd, byPath.segment(), byPath.length());
        }
        if (rc != 0) throw new ErrnoException("bind(" + path + ")", Errno.read(cs), "in the private directory " + dir);
        boolean placed = false;
        try {
            FileStat.Info made = FileStat.at(cs, dfd, INNER);
            if (made == null || (made.mode() & S_IFMT) != S_IFSOCK) {
                throw new ErrnoException("bind(" + path + ")", made == null ? Errno.read(cs) : Errno.EEXIST,
                        "the socket did not appear in the private directory " + dir + " (it was replaced meanwhile)");
            }
            String octal = "0" + Integer.toOctalString(mode);
            if (LibC.fchmodat(cs, dfd, inner, mode, 0) != 0) throw new ErrnoException("chmod(" + path + ", " + octal
                    + ")", Errno.read(cs));
            FileStat.Info set = FileStat.at(cs, dfd, INNER);
            if (set == null || set.ino() != made.ino() || set.dev() != made.dev() || set.permissions() != mode) {
                throw new ErrnoException("chmod(" + path + ", " + octal + ")", Errno.EPERM, "the socket file in " + dir
                        + " does not have the mode set");
            }
            if (LibC.listen(cs, fd, backlog) != 0) throw new ErrnoException("listen(" + path + ")", Errno.read(cs));
            MemorySegment target = a.allocateFrom(path);
            if (LibC.renameat2(cs, dfd, inner, AT_FDCWD, target, RENAME_NOREPLACE) != 0) {
                int err = Errno.read(cs);
                if (err == Errno.EEXIST && kindAt(path).equals("a socket")) {
                    // What bind(2) says of a path that holds a socket already, live or not.
                    throw new ErrnoException("bind(" + path + ")", Errno.EADDRINUSE, "a socket is already at " + path
                            + ": left as it is");
                }
                throw err == Errno.EEXIST
                        ? new ErrnoException("renameat2(" + path + ", RENAME_NOREPLACE)", err,
                                path + " appeared while the socket was set up (" + describe(path) + "): left as it is")
                        : new ErrnoException("renameat2(" + path + ", RENAME_NOREPLACE)", err,
                                "cannot move the socket into place");
            }
            placed = true;
            FileStat.Info now = FileStat.at(cs, AT_FDCWD, path);
            String problem = mismatch(path, now, set.dev(), set.ino(), mode);
            if (problem != null) {
                throw new ErrnoException("lstat(" + path + ")", now == null ? Errno.ENOENT : Errno.EEXIST,
                        problem + " (changed right after the socket was put in place): left as it is");
            }
            return idOf(now);
        } finally {
            if (!placed) LibC.unlinkat(cs, dfd, inner, 0);
        }
    }

    /**
     * Null when path (not followed if a symlink) is the file with id's device and inode and has the
     * permission bits mode; else one phrase saying what is there instead, e.g.
     * {@code /run/grout.sock is not this socket file any more: it is now a symbolic link to /etc/shadow}.
     */
    public static String mismatch(String path, Id id, int mode) {
        if (SockaddrUn.problem(path) != null) return SockaddrUn.problem(path);
        try (Arena a = Arena.ofConfined()) {
            return mismatch(path, FileStat.at(Errno.newCallState(a), AT_FDCWD, path), id.dev(), id.ino(), mode);
        }
    }

    private static String mismatch(String path, FileStat.Info now, long dev, long ino, int mode) {
        if (now == null) return "nothing is at " + path + " now: the socket file was moved away or removed";
        if (now.dev() != dev || now.ino() != ino) return path + " is not this socket file any more: it is now "
                + describe(path);
        if (now.permissions() != mode) {
            return path + " has mode 0" + Integer.toOctalString(now.permissions()) + ", not the 0"
                    + Integer.toOctalString(mode) + " set";
        }
        return null;
    }

    private static Id idOf(FileStat.Info st) {
        return new Id(st.dev(), st.ino(), st.ctimeNanos());
    }

    /** What is at path, without following a symlink: "nothing", "a socket", "a regular file", "a symbolic link"... */
    public static String kindAt(String path) {
        if (SockaddrUn.problem(path) != null) return "not a valid socket path";
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            FileStat.Info st = FileStat.at(cs, FileStat.AT_FDCWD, path);
            if (st != null) return kind(st.mode());
            int err = Errno.read(cs);
            return err == Errno.ENOENT ? "nothing" : "something unreadable (" + Errno.name(err) + ")";
        }
    }

    /**
     * What is at path, for a message: {@link #kindAt}, and a symbolic link's target, e.g.
     * {@code a symbolic link to /etc/shadow}.
     */
    public static String describe(String path) {
        String kind = kindAt(path);
        if (!kind.equals("a symbolic link")) return kind;
        try {
            return kind + " to " + Files.readSymbolicLink(Path.of(path));
        } catch (IOException | RuntimeException e) {
            return kind;
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
