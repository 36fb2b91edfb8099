package org.sysframe.transport.internal.uring;

/**
 * The one encoding of io_uring user_data in the transport, client and server alike: an operation kind
 * in the top byte and 56 bits of data below it (a connection's tag on the server, whose tags fit in 56
 * bits; the bytes a client's SEND must take). The kernel hands the word back unchanged in the
 * completion, so {@link #kind} and {@link #data} decode what {@link #of} encoded.
 */
public final class UserData {
    private UserData() {}

    /** Bits of data below the kind. */
    static final int DATA_BITS = 56;
    /** The largest data value (2^56 - 1). */
    static final long MAX_DATA = (1L << DATA_BITS) - 1;
    /** The largest kind. */
    static final int MAX_KIND = 0xff;

    // Kinds of a connection's operations (data: the connection's tag) or of a client's (data: bytes or 0).
    /** A receive (multishot on the server). */
    static final int RECV = 1;
    /** A send (on the client, data is the number of bytes it must take). */
    static final int SEND = 2;
    /** An ASYNC_CANCEL (of a receive on the server). */
    static final int CANCEL = 3;
    /** A POLL_ADD for room to write. */
    static final int POLLOUT = 4;
    /** The NOP linked to a server SEND, completing only when the SEND came back short or failed. */
    static final int SEND_SHORT = 5;
    /** The ASYNC_CANCEL, by fd, of what a closed connection still sends when its linger ran out. */
    static final int CANCEL_SEND = 6;
    // Kinds of a loop's own operations (data 0).
    /** The listener's multishot ACCEPT. */
    static final int ACCEPT = 8;
    /** The POLL_ADD on the task queue's wake-up socket. */
    static final int WAKE = 9;
    /** The ASYNC_CANCEL of everything at stop. */
    static final int STOP = 10;
    /** The multishot POLL_ADD on a shared-memory channel's eventfd (data: its number among the loop's polls). */
    static final int CHANNEL = 11;
    /** The ASYNC_CANCEL of a channel's POLL_ADD, its channel closed. */
    static final int CHANNEL_CANCEL = 12;

    /** The user_data of an operation of kind on data; fails on a kind or data out of range. */
    static long of(int kind, long data) {
        if (kind < 0 || kind > MAX_KIND) throw new IllegalArgumentException("user_data kind " + kind
                + ": expected 0 to " + MAX_KIND);
        if (data < 0 || data > MAX_DATA) throw new IllegalArgumentException("user_data data " + data
                + ": expected 0 to 2^56 - 1");
        return ((long) kind << DATA_BITS) | data;
    }

    /** The kind of a user_data word. */
    static int kind(long userData) { return (int) (userData >>> DATA_BITS); }

    /** The data of a user_data word. */
    static long data(long userData) { return userData & MAX_DATA; }
}
