package org.sysframe.transport;

import org.sysframe.transport.wire.GroutApi;

import org.sysframe.unix.ErrnoException;

/**
 * The server answered a request with a non-zero status (an errno value), e.g.
 * {@code GR_HELLO: EBADMSG (74) Bad message}. Its payload, if any, was drained before this was thrown.
 */
public final class ApiException extends ErrnoException {
    private static final long serialVersionUID = 1L;

    /** The request's message type. */
    private final int type;

    /** The server answered a request of message type type with status. */
    public ApiException(int type, int status) {
        super(GroutApi.typeName(type), status);
        this.type = type;
    }

    /** As {@link #ApiException(int, int)}, with a sentence saying what to check. */
    public ApiException(int type, int status, String detail) {
        super(GroutApi.typeName(type), status, detail);
        this.type = type;
    }

    /**
     * As {@link #ApiException(int, int)}, the type named as the client's
     * {@link org.sysframe.transport.wire.MessageSpecs} name it.
     */
    ApiException(String typeName, int type, int status) {
        super(typeName, status);
        this.type = type;
    }

    /** The request's message type. */
    public int type() { return type; }

    /** The status the server answered (same as {@link #errno()}). */
    public int status() { return errno(); }
}
