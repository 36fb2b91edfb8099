package org.sysframe.transport;

import org.sysframe.unix.CpuPlacement;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.Self;
import org.sysframe.unix.SocketFile;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;

/**
 * Opening a client's connection: the socket connected and set up as its {@link ClientConfig} says,
 * and the errors of connect and GR_HELLO turned into ones that say what to check.
 */
final class ClientConnect {
    private ClientConnect() {}

    /** Connects to the configured path and applies the CPU pinning, receive timeout and buffer sizes. */
    static UnixSocket open(ClientConfig options) throws ErrnoException {
        UnixSocket s;
        try {
            s = UnixSocket.connect(options.socketPath(), new SyscallCounters("client " + options.socketPath()));
        } catch (ErrnoException e) {
            throw connect(options.socketPath(), e);
        }
        try {
            if (options.cpu() >= 0) CpuPlacement.pinCurrentThread(options.cpu());
            if (options.receiveTimeoutMillis() > 0) s.setReceiveTimeout(options.receiveTimeoutMillis());
            if (options.socketBufferSize() > 0) {
                s.setSendBufferSize(options.socketBufferSize());
                s.setReceiveBufferSize(options.socketBufferSize());
            }
            return s;
        } catch (ErrnoException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /** connect(2) failed on path: say whether anything, or a socket, is there. */
    static ErrnoException connect(String path, ErrnoException e) {
        String hint = switch (e.errno()) {
            case Errno.ENOENT -> "no socket file at " + path + ": is the server running, and is the path (or $"
                    + GroutApi.SOCK_PATH_ENV + ") right?";
            case Errno.EACCES -> "the socket file's mode does not let uid " + Self.uid() + " connect";
            case Errno.ECONNREFUSED -> refusedHint(path);
            default -> null;
        };
        return hint == null ? e : new ErrnoException(e.call(), e.errno(), hint);
    }

    private static String refusedHint(String path) {
        if (path.startsWith("@")) return "no server listens on the abstract name " + path;
        String kind = SocketFile.kindAt(path);
        return kind.equals("a socket") ? "no server answers on " + path + " (a stale socket file)"
                : path + " is " + kind + ", not a socket: is the path right?";
    }

    /** GR_HELLO refused (EBADMSG): both versions when the server said its own (sysframe's do, Grout's do not). */
    static ApiException refusedVersion(int sent, int servers) {
        return new ApiException(GroutApi.HELLO, Errno.EBADMSG, "the server refused api_version " + sent
                + (servers >= 0 ? ": it speaks " + servers : ": it speaks another version of the API")
                + " (set ClientOptions.apiVersion, ping --api-version, to the server's)");
    }

    /** GR_HELLO failed: a server that closed right after connect (a uid it does not admit), or as it is. */
    static ErrnoException hello(int apiVersion, ErrnoException e) {
        if (e.errno() == Errno.ECONNRESET || e.errno() == Errno.EPIPE) {
            return new ErrnoException("GR_HELLO", e.errno(), "the server closed the connection right after connect: is uid "
                    + Self.uid() + " allowed (the server's allowed uids)?");
        }
        return e;
    }
}
