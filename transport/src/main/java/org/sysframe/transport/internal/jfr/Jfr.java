package org.sysframe.transport.internal.jfr;

import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;

/**
 * Whether an event of each kind would be recorded now, asked before an event is allocated. While no
 * recording ever started in the JVM the answer is false at the cost of one field read, and no event
 * class is loaded: the first event class loaded initializes the flight recorder, about 0.3 s of a
 * cold start that a short-lived client (a CLI, a job) would otherwise pay on its first call.
 */
public final class Jfr {
    private Jfr() {}

    static {
        // The probes are made by the thread that starts the first recording (at once if one runs already), not by the
        // first caller after it: thousands of virtual threads calling then would wait for that class initialization,
        // pinned to their carriers.
        FlightRecorder.addListener(new FlightRecorderListener() {
            @Override
            public void recorderInitialized(FlightRecorder recorder) { Probes.make(); }
        });
    }

    /**
     * Starts watching for the first recording, once (cheap: no event class is loaded): called as a client
     * connects and a server starts, before calls could race for the probes.
     */
    public static void watch() {} // (its class initialization does it)

    public static boolean roundTrip() { return FlightRecorder.isInitialized() && Probes.ROUND_TRIP.isEnabled(); }

    public static boolean pipelineBatch() {
        return FlightRecorder.isInitialized() && Probes.PIPELINE_BATCH.isEnabled();
    }

    public static boolean serverRequest() {
        return FlightRecorder.isInitialized() && Probes.SERVER_REQUEST.isEnabled();
    }

    public static boolean connectionOpened() { return FlightRecorder.isInitialized() && Probes.OPENED.isEnabled(); }

    public static boolean connectionClosed() { return FlightRecorder.isInitialized() && Probes.CLOSED.isEnabled(); }

    public static boolean clientClosed() { return FlightRecorder.isInitialized() && Probes.CLIENT_CLOSED.isEnabled(); }

    /** One event of each kind, never committed, made once a recording started. */
    private static final class Probes {
        static void make() {} // (its class initialization makes them)

        static final RoundTripEvent ROUND_TRIP = new RoundTripEvent();
        static final PipelineBatchEvent PIPELINE_BATCH = new PipelineBatchEvent();
        static final ServerRequestEvent SERVER_REQUEST = new ServerRequestEvent();
        static final ConnectionEvent.Opened OPENED = new ConnectionEvent.Opened();
        static final ConnectionEvent.Closed CLOSED = new ConnectionEvent.Closed();
        static final ConnectionEvent.ClientClosed CLIENT_CLOSED = new ConnectionEvent.ClientClosed();
    }
}
