package org.sysframe.transport.internal.server;

import org.sysframe.transport.wire.GroutApi;

import java.util.Arrays;

/**
 * The event types one connection subscribed to, each with its suppress_self_events flag.
 */
public final class Subscriptions {
    private int[] types = new int[0];
    private boolean[] suppressSelf = new boolean[0];

    /** Subscribes to evType (or {@link GroutApi#EVENT_ALL}); subscribing again updates the flag. */
    void add(int evType, boolean suppress) {
        for (int i = 0; i < types.length; i++) {
            if (types[i] == evType) {
                suppressSelf[i] = suppress;
                return;
            }
        }
        types = Arrays.copyOf(types, types.length + 1);
        suppressSelf = Arrays.copyOf(suppressSelf, suppressSelf.length + 1);
        types[types.length - 1] = evType;
        suppressSelf[suppressSelf.length - 1] = suppress;
    }

    void clear() {
        types = new int[0];
        suppressSelf = new boolean[0];
    }

    boolean isEmpty() { return types.length == 0; }

    /** Whether an event of evType caused by causePid goes to this connection, whose peer is peerPid. */
    boolean wants(int evType, int causePid, int peerPid) {
        for (int i = 0; i < types.length; i++) {
            if ((types[i] == GroutApi.EVENT_ALL || types[i] == evType)
                    && !(suppressSelf[i] && causePid == peerPid)) return true;
        }
        return false;
    }
}
