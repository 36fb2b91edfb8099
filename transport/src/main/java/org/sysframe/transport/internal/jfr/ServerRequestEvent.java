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
 * One request a server handler ran for (its duration is the handler's). Recorded at or above its
 * threshold (1 ms by default; 0 ms records every request).
 */
@Name("org.sysframe.ServerRequest")
@Label("Grout Server Request")
@Category("sysframe")
@Description("One request handled by a GroutServer handler")
@StackTrace(false)
@Threshold("1 ms")
public final class ServerRequestEvent extends Event {

    @Label("Type") public int type;
    @Label("Type Name") public String typeName;
    @Label("Request Bytes") @DataAmount public long requestBytes;
    @Label("Status") @Description("The status answered: 0, or an errno (EIO when the handler "
            + "failed)") public int status;
    @Label("Peer PID") public int peerPid;
    @Label("Peer UID") public int peerUid;
}
