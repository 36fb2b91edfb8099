package org.sysframe.transport.internal.server;

/**
 * A request a connection answers by opening another way to the peer rather than through a handler
 * (a shared-memory channel, SHM_OPEN): given to the {@link Routes} by the server that offers it, so
 * that this package does not depend on the one implementing it.
 */
public interface ChannelOpener {
    /** The request type it answers. */
    int type();

    /** Answers request id of c, on its loop thread (after GR_HELLO). */
    void open(ServerConnection c, ServerLoop<?> host, int id);
}
