package org.sysframe.unix;

import java.io.IOException;

/**
 * A failed libc call, or a protocol failure reported with an errno value: the call, the errno number,
 * its symbolic name and its {@code strerror} text, e.g.
 * {@code connect(/run/grout.sock): ECONNREFUSED (111) Connection refused}.
 */
public class ErrnoException extends IOException {
    private static final long serialVersionUID = 1L;

    /** The call that failed, e.g. {@code connect(/run/grout.sock)}. */
    private final String call;
    /** The errno value. */
    private final int errno;
    /** What follows the strerror text in the message: "" or ": " and the detail. */
    private final String suffix;
    /** The message once asked for (a race builds the same string twice: harmless). */
    private transient String message;

    /** call failed with errno, e.g. {@code connect(/run/grout.sock)} with 111 (ECONNREFUSED). */
    public ErrnoException(String call, int errno) {
        this.call = call;
        this.errno = errno;
        this.suffix = "";
    }

    /** As {@link #ErrnoException(String, int)}, the message ending in {@code ": "} and detail. */
    public ErrnoException(String call, int errno, String detail) {
        this.call = call;
        this.errno = errno;
        this.suffix = ": " + detail;
    }

    /**
     * e.g. {@code connect(/run/grout.sock): ECONNREFUSED (111) Connection refused}, built when first
     * asked for: libc's strerror is linked and called then, not for an exception nobody reads (a closed
     * client's waiting calls are failed with one, in a short-lived JVM too).
     */
    @Override
    public String getMessage() {
        String m = message;
        if (m == null) message = m = call + ": " + Errno.name(errno) + " (" + errno + ") " + Errno.text(errno) + suffix;
        return m;
    }

    /** The call that failed, with its main argument where it helps, e.g. {@code connect(/run/grout.sock)}. */
    public String call() { return call; }

    /** The errno value, e.g. 111. */
    public int errno() { return errno; }

    /** The errno's symbolic name, e.g. {@code ECONNREFUSED}. */
    public String errnoName() { return Errno.name(errno); }

    /** libc's text for the errno, e.g. {@code Connection refused}. */
    public String strerror() { return Errno.text(errno); }
}
