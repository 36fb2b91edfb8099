package org.sysframe.transport.internal.server;

import org.sysframe.transport.ConnectionStats;
import org.sysframe.transport.internal.io.SafeLogger;
import org.sysframe.transport.internal.jfr.ConnectionEvent;
import org.sysframe.transport.internal.jfr.Jfr;

import org.sysframe.unix.SyscallCounts;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.List;

/**
 * What the connections of one loop did, recorded when each closed (the latest 10,000), their
 * shared-memory channels' included, and the flight recorder's events of a connection opened and
 * closed. Loop thread only.
 */
public final class ConnectionLog {
    private static final Logger LOG = SafeLogger.of("org.sysframe.server");
    private static final int MAX_CLOSED = 10_000;

    private final String socketPath;
    private final int loop;
    private final ArrayDeque<ConnectionStats> closed = new ArrayDeque<>();

    /** The log of loop index of the server on socketPath. */
    ConnectionLog(String socketPath, int loop) {
        this.socketPath = socketPath;
        this.loop = loop;
    }

    /** A connection of peer pid and uid was admitted. */
    void opened(int peerPid, int peerUid) {
        if (!Jfr.connectionOpened()) return;
        ConnectionEvent.Opened e = new ConnectionEvent.Opened();
        if (e.shouldCommit()) {
            e.socket = socketPath;
            e.peerPid = peerPid;
            e.peerUid = peerUid;
            e.loop = loop;
            e.commit();
        }
    }

    void closed(ServerConnection c, String reason) {
        add(stats(c, reason));
        if (LOG.isLoggable(Level.DEBUG)) LOG.log(Level.DEBUG, "pid=" + c.peerPid() + ": connection closed (" + reason
                + ")");
        if (!Jfr.connectionClosed()) return;
        ConnectionEvent.Closed e = new ConnectionEvent.Closed();
        if (e.shouldCommit()) {
            SyscallCounts counts = c.outlet().counters().snapshot();
            e.socket = socketPath;
            e.peerPid = c.peerPid();
            e.peerUid = c.peerUid();
            e.requests = c.requests();
            e.syscalls = counts.total();
            e.syscallsByKind = counts.toString();
            e.reason = reason;
            e.commit();
        }
    }

    /**
     * Records what a connection served, e.g. a shared-memory channel's, which its socket's loop records when it ends.
     */
    public void add(ConnectionStats s) {
        if (closed.size() == MAX_CLOSED) closed.pollFirst();
        closed.add(s);
    }

    public List<ConnectionStats> closedConnections() { return List.copyOf(closed); }

    public static ConnectionStats stats(ServerConnection c, String reason) {
        return new ConnectionStats(c.peerPid(), c.peerUid(), c.requests(), c.outlet().counters().snapshot(), reason);
    }
}
