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
 * One flush of a {@code Pipeline}: the requests queued since the last one, sent together, and the send
 * syscalls it took. Recorded at or above its threshold (1 ms by default; 0 ms records every batch).
 */
@Name("org.sysframe.PipelineBatch")
@Label("Grout Pipeline Batch")
@Category("sysframe")
@Description("The requests a pipeline sent in one flush")
@StackTrace(false)
@Threshold("1 ms")
public final class PipelineBatchEvent extends Event {

    @Label("Socket") public String socket;
    @Label("Requests") public int requests;
    @Label("Bytes") @DataAmount public long bytes;
    @Label("Send Syscalls") @Description("sendto, sendmsg or io_uring_enter calls this flush "
            + "made") public long syscalls;
}
