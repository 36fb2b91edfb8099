package org.sysframe.transport;

/** A connection's socket as its loop's I/O driver holds it: the {@link Outlet} and the connection it serves. */
interface LoopSocket extends Outlet {
    ServerConnection connection();
}
