package org.sysframe.transport.internal.uring;

/**
 * Where an io_uring connection's multishot receive is: not armed, armed, or armed with its cancel
 * asked (a cancel is asked at most once per arming). Each event gives the next state or fails on one
 * that cannot happen in this state, naming both.
 */
enum ReceiveState {
    /** No receive armed: it ended (EOF, an error, a dry buffer ring, a cancel) or was never armed. */
    IDLE,
    /** A multishot RECV is armed and delivers. */
    ARMED,
    /** Armed, and an ASYNC_CANCEL of it is on the way: it still delivers until its last completion. */
    CANCELLING;

    /** The RECV was prepared. */
    ReceiveState armed() {
        if (this != IDLE) throw illegal("arm");
        return ARMED;
    }

    /** Its ASYNC_CANCEL was prepared. */
    ReceiveState cancelAsked() {
        if (this != ARMED) throw illegal("ask a cancel");
        return CANCELLING;
    }

    /** Its last completion (no F_MORE) arrived. */
    ReceiveState ended() {
        if (this == IDLE) throw illegal("end");
        return IDLE;
    }

    private IllegalStateException illegal(String event) {
        return new IllegalStateException("receive " + name() + ": cannot " + event);
    }
}
