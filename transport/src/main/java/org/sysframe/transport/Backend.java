package org.sysframe.transport;

import java.util.Locale;

/**
 * The I/O driver a server (or, later, a client) runs on. {@link #EPOLL} is the default: readiness with
 * epoll_wait and one recv or send syscall per operation. {@link #IO_URING} submits the same operations
 * to an io_uring (multishot accept and receive into a provided buffer ring, sends as SQEs, one
 * io_uring_enter per loop turn) and fails to start, naming the cause in one line, where io_uring is not
 * usable. {@link #AUTO} uses io_uring when {@link org.sysframe.unix.uring.UringSupport#unavailableReason()}
 * finds it usable, and otherwise falls back to epoll and says so in one WARNING line naming the reason.
 * The default stays epoll until io_uring measures better.
 */
public enum Backend {
    EPOLL, IO_URING, AUTO;

    /** Parses {@code epoll}, {@code io_uring} or {@code auto}; anything else fails naming the value and the forms. */
    public static Backend parse(String s) {
        String v = s == null ? "" : s.trim().toLowerCase(Locale.ROOT);
        return switch (v) {
            case "epoll" -> EPOLL;
            case "io_uring" -> IO_URING;
            case "auto" -> AUTO;
            default -> throw new IllegalArgumentException("backend '" + s + "': expected epoll, io_uring or auto");
        };
    }

    @Override
    public String toString() { return name().toLowerCase(Locale.ROOT); }
}
