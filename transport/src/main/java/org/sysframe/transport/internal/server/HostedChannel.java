package org.sysframe.transport.internal.server;

import org.sysframe.transport.WaitMode;

/**
 * A connection whose bytes come through memory shared with its peer (a shared-memory channel), served
 * by the loop of the socket connection that opened it, in that loop's turns, beside its sockets: no
 * thread of its own. Its looks at the shared memory cost no syscall; its peer wakes a sleeping loop
 * through a descriptor in the loop's wait ({@link LoopDriver#watchChannel}). Loop thread only.
 */
public interface HostedChannel extends LoopSocket {
    /**
     * How its peer asked the server to wait for it (its loop waits as its most eager channel:
     * {@link LoopChannels}).
     */
    WaitMode waitMode();

    /** A look without a syscall: true when it has work (requests to take, the room it waited for, a bad value read). */
    boolean ready();

    /**
     * The loop is about to sleep: says so in the shared memory, where its peer looks after it published,
     * then looks again; true when work came meanwhile (the loop does not sleep).
     */
    boolean sleeping();

    /** The loop woke, or will not sleep after all: its peer need not wake it. */
    void awake();

    /** In the loop's turn: takes the requests that came, writes what waited for room. */
    void serve();

    /** The end of the loop's turn: publishes what the turn wrote to the peer. */
    void endOfTurn();

    /** Its connection closed for reason (its loop's thread): frees everything and ends the connection of its socket. */
    void closed(String reason);
}
