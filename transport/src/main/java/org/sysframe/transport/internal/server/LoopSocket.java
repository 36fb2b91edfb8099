package org.sysframe.transport.internal.server;

import org.sysframe.transport.internal.io.Outlet;

import org.sysframe.unix.UnixSocket;

/**
 * A connection's socket as its loop's I/O driver holds it: the {@link Outlet} and the connection it serves.
 */
public interface LoopSocket extends Outlet {
    /** The connection this socket serves (null until {@link #attach}). */
    ServerConnection connection();

    /** Ties the socket to its connection, once, before the driver registers it. */
    void attach(ServerConnection c);

    /** The connection's socket when this driver lets it be used directly (epoll's), else null. */
    default UnixSocket unixSocket() { return null; }
}
