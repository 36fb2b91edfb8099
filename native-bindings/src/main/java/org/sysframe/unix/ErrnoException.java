package org.sysframe.unix;

import java.io.IOException;

/**
 * A failed libc call, or a protocol failure reported with an errno value: the call, the errno number,
 * its symbolic name and its {@code strerror} text, e.g.
 * {@code connect(/run/grout.sock): ECONNREFUSED (111) Connection refused}.
 */
public class ErrnoException extends IOException {
    private static final long serialVersionUID = 1L;

    private final String call;
    private final int errno;

    public ErrnoException(String call, int errno) {
        super(call + ": " + Errno.name(errno) + " (" + errno + ") " + Errno.text(errno));
        this.call = call;
        this.errno = errno;
    }

    public ErrnoException(String call, int errno, String detail) {
        super(call + ": " + Errno.name(errno) + " (" + errno + ") " + Errno.text(errno) + ": " + detail);
        this.call = call;
        this.errno = errno;
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
