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

    /**
     * The connection's socket, for the one write made beside the driver's own (SHM_OPEN's answer with
     * its descriptors, once every answer before it left: no send of the driver's is under way then), or
     * null when the connection has none (a shared-memory channel's).
     */
    default UnixSocket unixSocket() { return null; }
}
