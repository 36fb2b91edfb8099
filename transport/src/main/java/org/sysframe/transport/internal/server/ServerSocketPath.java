package org.sysframe.transport.internal.server;

import org.sysframe.transport.ServerConfig;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.Self;
import org.sysframe.unix.SocketFile;
import org.sysframe.unix.UnixSocket;

import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/**
 * The server's rules for its socket path: what start-up may reclaim, which allowed uids its mode shuts
 * out, and what close may remove. Setting the mode safely is {@link UnixSocket#listen}'s.
 */
public final class ServerSocketPath {
    private ServerSocketPath() {}

    private static final Logger LOG = System.getLogger("org.sysframe.server");

    /**
     * Makes path free for bind: nothing there is fine; a socket nobody answers on is removed (only
     * that socket file, see {@link SocketFile#removeIfSame}); a live server is EADDRINUSE; anything
     * that is not a socket is EEXIST and is left exactly as it was.
     */
    public static void claim(String path) throws ErrnoException {
        SocketFile.Id stale = SocketFile.socketAt(path);
        if (stale == null) return;
        try {
            UnixSocket.connect(path).close();
            throw new ErrnoException("bind(" + path + ")", Errno.EADDRINUSE,
                    "a live server already answers on this path");
        } catch (ErrnoException e) {
            if (e.errno() == Errno.ENOENT) return; // gone meanwhile
            if (e.errno() != Errno.ECONNREFUSED) throw e;
        }
        if (SocketFile.removeIfSame(path, stale)) {
            LOG.log(Level.INFO, "removed the stale socket file {0} (a socket nobody answered on)", path);
        } else if (SocketFile.socketAt(path) != null) {
            throw new ErrnoException("bind(" + path + ")", Errno.EADDRINUSE,
                    "another socket took this path while the stale one was checked");
        }
    }

    /**
     * The WARNING for allowed uids that the socket file's mode shuts out, or null: a mode without group
     * or other write permission lets only the file's owner (this process's uid) and root connect, so
     * an allowed uid besides those is refused by the kernel before the server sees it.
     */
    public static String allowedButShutOut(ServerConfig config) {
        if (config.isAbstract() || config.allowedUids() == null || (config.mode() & 0022) != 0) return null;
        int owner = Self.uid();
        SortedSet<Integer> shut = new TreeSet<>(config.allowedUids());
        shut.remove(owner);
        shut.remove(0);
        if (shut.isEmpty()) return null;
        String uids = shut.stream().map(String::valueOf).collect(Collectors.joining(", "));
        return "socket " + config.socketPath() + " has mode 0" + Integer.toOctalString(config.mode())
                + ", which lets only its owner (uid " + owner
                + ") connect: allowed uid" + (shut.size() > 1 ? "s " : " ") + uids + " cannot"
                + "; give the socket mode 0666 (the allowed uids still decide who is served) or 0660 with a group of "
                        + "theirs";
    }

    /**
     * Removes the server's socket file if it is still its own (it may have been deleted and bound again by another
     * server).
     */
    public static void release(String path, SocketFile.Id file) {
        if (file == null) return;
        try {
            if (!SocketFile.removeIfSame(path, file)) {
                LOG.log(Level.INFO, "{0} is no longer this server''s socket file: left in place", path);
            }
        } catch (ErrnoException e) {
            LOG.log(Level.WARNING, "cannot remove {0}: {1}", path, e.getMessage());
        }
    }
}
