package org.sysframe.transport.internal.server;

import org.sysframe.transport.ConnectionStats;
import org.sysframe.transport.internal.io.SafeLogger;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.List;

/**
 * What the connections of one loop did, recorded when each closed (the latest 10,000), their
 * shared-memory channels' included. Loop thread only.
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
public final class ConnectionLog {
    private static final Logger LOG = SafeLogger.of("org.sysframe.server");
    private static final int MAX_CLOSED = 10_000;

    private final ArrayDeque<ConnectionStats> closed = new ArrayDeque<>();

    void closed(ServerConnection c, String reason) {
        add(stats(c, reason));
        if (LOG.isLoggable(Level.DEBUG)) LOG.log(Level.DEBUG, "pid=" + c.peerPid() + ": connection closed (" + reason + ")");
    }

    /** Records what a connection served, e.g. a shared-memory channel's, which its socket's loop records when it ends. */
    public void add(ConnectionStats s) {
        if (closed.size() == MAX_CLOSED) closed.pollFirst();
        closed.add(s);
    }

    public List<ConnectionStats> closedConnections() { return List.copyOf(closed); }

    public static ConnectionStats stats(ServerConnection c, String reason) {
        return new ConnectionStats(c.peerPid(), c.peerUid(), c.requests(), c.outlet().counters().snapshot(), reason);
    }
}
