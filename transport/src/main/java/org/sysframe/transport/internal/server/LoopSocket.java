package org.sysframe.transport.internal.server;

import org.sysframe.transport.internal.io.Outlet;

/**
 * A connection's socket as its loop's I/O driver holds it: the {@link Outlet} and the connection it serves.
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
public interface LoopSocket extends Outlet {
    ServerConnection connection();

    /** The connection's socket when this driver lets it be used directly (epoll's), else null. */
    default org.sysframe.unix.UnixSocket unixSocket() { return null; }
}
