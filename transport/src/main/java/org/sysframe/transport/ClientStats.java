package org.sysframe.transport;

/**
 * A {@link GroutClient}'s calls so far: every request made (blocking, futures, streams, pipelined);
 * the batches callers queued for another thread's send (how many sends carried them, the largest and
 * the last); answers dropped because no call had their id (unmatched) or their call had given up
 * (late); calls waiting now; events received, and dropped because 4,096 were kept untaken; calls that
 * ended without an answer (failed: timed out, interrupted, or failed with their connection; a
 * pipeline's own requests not included), and of them those that timed out; the bytes of the frames,
 * headers included, of the requests made and of the answers and events received.
 */
public record ClientStats(long calls, long batches, long largestBatch, long lastBatch, long unmatched, long late,
        int inFlight,
                          long events, long eventsDropped, long failed, long timedOut, long bytesSent,
                          long bytesReceived) {
}
