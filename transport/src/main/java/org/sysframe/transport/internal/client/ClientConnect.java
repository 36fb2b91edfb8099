package org.sysframe.transport.internal.client;

import org.sysframe.transport.ApiException;
import org.sysframe.transport.ClientConfig;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.unix.CpuPlacement;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.PeerCredentials;
import org.sysframe.unix.Self;
import org.sysframe.unix.SocketFile;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Opening a client's connection: the socket connected and set up as its {@link ClientConfig} says,
 * and the errors of connect and GR_HELLO turned into ones that say what to check.
 */
public final class ClientConnect {
    private ClientConnect() {}

    /**
     * Connects to the configured path, checks the server's uid (before any byte is sent) and applies
     * the CPU pinning, receive timeout and buffer sizes. Its counters add into sum too (null: none).
     */
    public static UnixSocket open(ClientConfig options, SyscallCounters sum) throws ErrnoException {
        UnixSocket s;
        try {
            // Summing: the calls' lock counts its waiters' yields from their own threads, at once.
            SyscallCounters counters = SyscallCounters.summing("client " + options.socketPath(), sum);
            s = UnixSocket.connect(options.socketPath(), counters, options.connectTimeoutMillis());
        } catch (ErrnoException e) {
            throw connect(options.socketPath(), e);
        }
        try {
            checkServer(options, s.peerCredentials());
            if (options.cpu() >= 0) CpuPlacement.pinCurrentThread(options.cpu());
            if (options.receiveTimeoutMillis() > 0) s.setReceiveTimeout(options.receiveTimeoutMillis());
            if (options.sendTimeoutMillis() != options.connectTimeoutMillis()) s.setSendTimeout(
                    options.sendTimeoutMillis());
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

    /** EPERM naming the server's uid and pid unless options accept a server of that uid. */
    static void checkServer(ClientConfig options, PeerCredentials server) throws ErrnoException {
        int own = Self.uid();
        if (options.acceptsServer(server.uid(), own)) return;
        String path = options.socketPath();
        throw new ErrnoException("connect(" + path + ")", Errno.EPERM, "the server of " + path + " is uid "
                + server.uid()
                + " (pid " + server.pid() + "), and this client accepts " + options.acceptedServers(own)
                + " (ClientOptions.serverUids or anyServerUid; ping --server-uid " + server.uid()
                        + " or --any-server-uid)");
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
    public static ApiException refusedVersion(int sent, int servers) {
        return new ApiException(GroutApi.HELLO, Errno.EBADMSG, "the server refused api_version " + sent
                + (servers >= 0 ? ": it speaks " + servers : ": it speaks another version of the API")
                + " (set ClientOptions.apiVersion, ping --api-version, to the server's)");
    }

    /**
     * GR_HELLO failed. A server that closed the connection right after connect while it lives on
     * refused this client (a uid it does not admit): say so. A server process that is gone (it died,
     * or exited, during the handshake) is named as such, without the uid question.
     */
    public static ErrnoException hello(int apiVersion, ErrnoException e, PeerCredentials server) {
        if (e.errno() == Errno.ECONNRESET || e.errno() == Errno.EPIPE) {
            if (server != null && server.pid() > 0 && goneWithin(server.pid(), 50)) {
                return new ErrnoException("GR_HELLO", e.errno(), "the server (pid " + server.pid()
                        + ") went away during GR_HELLO");
            }
            return new ErrnoException("GR_HELLO", e.errno(),
                    "the server closed the connection right after connect: is uid "
                    + Self.uid() + " allowed (the server's allowed uids)?");
        }
        return e;
    }

    /**
     * Whether process pid is gone now or within ms (a process that closes its sockets while it exits
     * is a zombie only a moment later); a live server that refused the connection costs that wait.
     */
    private static boolean goneWithin(int pid, long ms) {
        long end = System.nanoTime() + ms * 1_000_000L;
        while (alive(pid)) {
            if (System.nanoTime() - end >= 0) return false;
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** Whether process pid exists and is not a zombie (/proc/PID/stat's state), as this process sees it. */
    static boolean alive(int pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            int end = stat.lastIndexOf(')');
            char state = end > 0 && end + 2 < stat.length() ? stat.charAt(end + 2) : '?';
            return state != 'Z' && state != 'X';
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
