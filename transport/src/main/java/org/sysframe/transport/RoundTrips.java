package org.sysframe.transport;

import org.sysframe.transport.internal.jfr.RoundTripEvent;
import org.sysframe.transport.wire.MessageSpecs;

/** Records the {@code org.sysframe.RoundTrip} events of one client's calls, whichever entry point made them. */
final class RoundTrips {
    private final String socket;
    private final String backend;
    private final String transport;
    private final MessageSpecs specs;

    RoundTrips(String socket, String backend, String transport, MessageSpecs specs) {
        this.socket = socket;
        this.backend = backend;
        this.transport = transport;
        this.specs = specs;
    }

    /**
     * Commits e (begun and ended by the caller) if its threshold lets it: call is the entry point, status -1 for a
     * failure.
     */
    void record(RoundTripEvent e, String call, int type, long requestBytes, int status, Thread caller) {
        if (!e.shouldCommit()) return;
        e.socket = socket;
        e.call = call;
        e.caller = caller;
        e.type = String.format("0x%08x", type);
        e.typeName = specs.name(type);
        e.backend = backend;
        e.transport = transport;
        e.requestBytes = requestBytes;
        e.status = status;
        e.commit();
    }
}
