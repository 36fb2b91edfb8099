package org.sysframe.transport.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;

/**
 * One {@code GroutClient.sendRecv}: the request sent and its response received (or the call failed).
 * Recorded at or above its threshold (1 ms by default; set it to 0 ms to record every call).
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
@Name("org.sysframe.RoundTrip")
@Label("Grout Round Trip")
@Category("sysframe")
@Description("One request and its response on a GroutClient")
@StackTrace(false)
@Threshold("1 ms")
public final class RoundTripEvent extends Event {
    /** The probe the client asks before it allocates an event (never committed). */
    public static final RoundTripEvent PROBE = new RoundTripEvent();

    @Label("Socket") public String socket;
    @Label("Type") public int type;
    @Label("Type Name") public String typeName;
    @Label("Request Bytes") @DataAmount public long requestBytes;
    @Label("Response Bytes") @DataAmount public long responseBytes;
    @Label("Status") @Description("0, an errno the server answered, or -1 when the call failed without an answer")
    public int status;
}
