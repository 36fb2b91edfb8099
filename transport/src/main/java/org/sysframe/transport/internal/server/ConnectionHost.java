package org.sysframe.transport.internal.server;

import java.lang.foreign.MemorySegment;

/**
 * What a server connection needs from the event loop that owns it. Loop thread only. Generic in the
 * connection type so that this interface does not depend on the connection class.
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
public interface ConnectionHost<C> {
    /** The connection has a deferred batch to flush at the end of this loop turn. */
    void markDirty(C c);

    /** The connection stopped at its per-turn request budget with complete requests left: continue it next turn. */
    void requestsLeft(C c);

    /** The connection closed (socket and buffers freed): forget it and record why. */
    void closed(C c, String reason);

    /** The connection's subscriptions changed (it may now be a subscriber, or no longer one). */
    void subscriptionsChanged(C c);

    /** Publishes an event to every subscriber of the server, on every loop. */
    void publish(int evType, MemorySegment payload, long off, long len, int causePid);

    /** The start time of this loop turn (System.nanoTime(), read once per turn). */
    long now();

    /** The server's shared limits: the memory budget and the warnings' rate limits. */
    ServerLimits limits();

    /** The connection now needs (+1) or no longer needs (-1) the loop's timer (a request in part, a large buffer, a wait for memory). */
    void timed(int delta);

    /** The connection waits for the memory budget to take its large request: call its retry when there is room. */
    void waitForMemory(C c);

    /** 64 bytes of loop-thread scratch memory for built-in answers. */
    MemorySegment scratch();
}
