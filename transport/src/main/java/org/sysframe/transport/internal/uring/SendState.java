package org.sysframe.transport.internal.uring;

/**
 * Where an io_uring connection's output is: nothing under way, queued for the SEND of the end of the
 * turn, a SEND in flight, or a POLL_ADD(POLLOUT) waiting for room after a full socket. One SEND or
 * poll at a time. Each event gives the next state or fails on one that cannot happen in this state,
 * naming both.
 */
enum SendState {
    /** Nothing in flight and not in the loop's send list. */
    IDLE,
    /** In the loop's send list: its SEND is prepared at the end of the turn. */
    QUEUED,
    /** A SEND is in flight. */
    SENDING,
    /** The socket was full: a POLL_ADD(POLLOUT) waits for room. */
    POLLING;

    /** Bytes wait: into the loop's send list. */
    SendState queued() {
        if (this != IDLE) throw illegal("queue");
        return QUEUED;
    }

    /** A SEND was prepared (at the end of the turn, or by a closed connection's linger). */
    SendState started() {
        if (this != IDLE && this != QUEUED) throw illegal("start a send");
        return SENDING;
    }

    /** Out of the send list with nothing to send. */
    SendState unqueued() {
        if (this != QUEUED) throw illegal("leave the send list");
        return IDLE;
    }

    /** The SEND's completion arrived. */
    SendState sent() {
        if (this != SENDING) throw illegal("complete a send");
        return IDLE;
    }

    /** A POLL_ADD(POLLOUT) was prepared. */
    SendState polling() {
        if (this != IDLE) throw illegal("poll for room");
        return POLLING;
    }

    /** The POLL_ADD's completion arrived. */
    SendState writable() {
        if (this != POLLING) throw illegal("complete a poll");
        return IDLE;
    }

    /** Whether an operation of the output is in flight (its completion will come). */
    boolean inFlight() { return this == SENDING || this == POLLING; }

    private IllegalStateException illegal(String event) {
        return new IllegalStateException("send " + name() + ": cannot " + event);
    }
}
