package org.sysframe.transport.internal.server;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The connections of one loop that subscribed to events. Loop thread only.
 */
public final class SubscriberSet {
    private final List<ServerConnection> members = new ArrayList<>();

    /** Adds c when it has subscriptions, removes it when it has none. */
    void update(ServerConnection c) {
        if (!c.hasSubscriptions() || c.isClosed()) members.remove(c);
        else if (!members.contains(c)) members.add(c);
    }

    void remove(ServerConnection c) { members.remove(c); }

    boolean isEmpty() { return members.isEmpty(); }

    /** Sends the event to every member that wants it; a member that closes meanwhile leaves the set. */
    void publish(int evType, MemorySegment payload, long off, long len, int causePid) {
        for (int i = 0; i < members.size(); i++) {
            ServerConnection c = members.get(i);
            if (c.wants(evType, causePid)) {
                c.sendEvent(evType, payload, off, len);
                // it left the list: same index again
                if (c.isClosed() && (i >= members.size() || members.get(i) != c)) i--;
            }
        }
    }
}
