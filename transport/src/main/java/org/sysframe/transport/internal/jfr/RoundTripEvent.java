package org.sysframe.transport.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;
import jdk.jfr.Timespan;

/**
 * One request of a {@code GroutClient} and its answer, whichever way it was made ({@code call},
 * {@code async}, {@code stream}, {@code pipeline}), with the thread that made it. Recorded at or above
 * its threshold (1 ms by default; 0 ms records every call: docs/observability.md). A pipelined
 * request's event has no duration of its own: its latency is a field, and it is recorded only with
 * the threshold at 0.
 */
@Name("org.sysframe.RoundTrip")
@Label("Grout Round Trip")
@Category("sysframe")
@Description("One request and its response on a GroutClient")
@StackTrace(false)
@Threshold("1 ms")
public final class RoundTripEvent extends Event {

    @Label("Socket") public String socket;
    @Label("Call") @Description("call, async, stream or pipeline") public String call;
    @Label("Caller") @Description("The thread that made the request") public Thread caller;
    @Label("Backend") public String backend;
    @Label("Transport") @Description("socket or shared memory") public String transport;
    @Label("Type") @Description("The message type, (module << 16) | id, in hex") public String type;
    @Label("Latency") @Timespan @Description("A pipelined request's time from flush to answer (0 otherwise: the "
            + "event's duration is its time)")
    public long latency;
    @Label("Type Name") public String typeName;
    @Label("Request Bytes") @DataAmount public long requestBytes;
    @Label("Response Bytes") @DataAmount public long responseBytes;
    @Label("Status") @Description("0, an errno the server answered, or -1 when the call failed without an answer")
    public int status;
}
