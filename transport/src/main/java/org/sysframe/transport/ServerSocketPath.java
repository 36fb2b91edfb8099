package org.sysframe.transport;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SocketFile;
import org.sysframe.unix.UnixSocket;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/** The server's rules for its socket path: what start-up may reclaim, and what close may remove. */
final class ServerSocketPath {
    private ServerSocketPath() {}

    private static final Logger LOG = System.getLogger("org.sysframe.server");

    /**
     * Makes path free for bind: nothing there is fine; a socket nobody answers on is removed (only
     * that socket file, see {@link SocketFile#removeIfSame}); a live server is EADDRINUSE; anything
     * that is not a socket is EEXIST and is left exactly as it was.
     */
    static void claim(String path) throws ErrnoException {
        SocketFile.Id stale = SocketFile.socketAt(path);
        if (stale == null) return;
        try {
            UnixSocket.connect(path).close();
            throw new ErrnoException("bind(" + path + ")", Errno.EADDRINUSE, "a live server already answers on this path");
        } catch (ErrnoException e) {
            if (e.errno() == Errno.ENOENT) return; // gone meanwhile
            if (e.errno() != Errno.ECONNREFUSED) throw e;
        }
        if (SocketFile.removeIfSame(path, stale)) {
            LOG.log(Level.INFO, "removed the stale socket file {0} (a socket nobody answered on)", path);
        } else if (SocketFile.socketAt(path) != null) {
            throw new ErrnoException("bind(" + path + ")", Errno.EADDRINUSE, "another socket took this path while the stale one was checked");
        }
    }

    /** The identity of the socket file the server just bound, or null for an abstract name. */
    static SocketFile.Id bound(String path) {
        if (path.startsWith("@")) return null;
        try {
            return SocketFile.socketAt(path);
        } catch (ErrnoException e) {
            return null;
        }
    }

    /** Removes the server's socket file if it is still its own (it may have been deleted and bound again by another server). */
    static void release(String path, SocketFile.Id file) {
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
