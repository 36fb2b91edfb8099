package org.sysframe.transport;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.uring.UringSupport;

import java.util.Locale;

/**
 * Which kernel interface moves a client's or a server's bytes. {@link #EPOLL} is the default:
 * readiness with epoll_wait (server) and one send, sendmsg, writev or recv syscall per operation.
 * {@link #IO_URING} submits the same operations to an io_uring: a client's round trip is one
 * io_uring_enter; a server loop arms a multishot accept and multishot receives into a provided buffer
 * ring and sends as SQEs, one io_uring_enter per loop turn. Where io_uring is not usable it fails,
 * naming the cause in one line. {@link #AUTO} uses io_uring when
 * {@link org.sysframe.unix.uring.UringSupport#unavailableReason()} finds it usable, and otherwise falls
 * back to epoll and says so in one WARNING line naming the reason.
 */
public enum Backend {
    /** Readiness with epoll_wait, one syscall per send or receive: the default. */
    EPOLL,
    /** The operations submitted to an io_uring; fails, naming the cause, where io_uring is not usable. */
    IO_URING,
    /** io_uring where it is usable, else epoll, saying why in one WARNING line. */
    AUTO;

    private static final String FORMS = "epoll, io_uring or auto";

    /**
     * The default backend of every client and server of this process whose options do not choose one:
     * the system property {@code sysframe.backend} (epoll, io_uring or auto), else {@link #EPOLL}.
     * A value that does not parse fails the options' creation, naming it.
     */
    public static Backend configuredDefault() {
        String p = System.getProperty("sysframe.backend");
        if (p == null || p.isEmpty()) return EPOLL;
        try {
            return parse(p);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("-Dsysframe.backend: " + e.getMessage());
        }
    }

    /**
     * Parses {@code epoll}, {@code io_uring} (or {@code iouring}) or {@code auto}; anything else fails naming the value
     * and the forms.
     */
    public static Backend parse(String s) {
        return switch (s == null ? "" : s.trim().toLowerCase(Locale.ROOT)) {
            case "epoll" -> EPOLL;
            case "io_uring", "iouring", "io-uring" -> IO_URING;
            case "auto" -> AUTO;
            default -> throw new IllegalArgumentException("backend '" + s + "': expected " + FORMS);
        };
    }

    /**
     * The backend to run: EPOLL or IO_URING. IO_URING where io_uring is unavailable fails with the
     * cause; AUTO falls back to EPOLL and logs the cause once per use.
     */
    Backend resolve(String who) throws ErrnoException {
        return this == EPOLL ? EPOLL : resolve(who, UringSupport.unavailableReason());
    }

    /** As {@link #resolve(String)} with the reason io_uring is unavailable given (null: available). */
    Backend resolve(String who, String reason) throws ErrnoException {
        if (this == EPOLL) return EPOLL;
        if (reason == null) return IO_URING;
        if (this == AUTO) {
            Log.LOG.log(System.Logger.Level.WARNING, "{0}: backend auto falls back to epoll: {1}", who, reason);
            return EPOLL;
        }
        throw new ErrnoException(who + " backend io_uring", Errno.ENOTSUP, reason);
    }

    @Override
    public String toString() { return name().toLowerCase(Locale.ROOT); }

    /**
     * The logger, got on the first line logged: {@code System.getLogger} starts java.util.logging (its
     * LogManager and configuration), a cost every options object would otherwise pay as it loads this class.
     */
    private static final class Log {
        static final System.Logger LOG = System.getLogger("org.sysframe.backend");
    }
}
