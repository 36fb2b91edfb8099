package org.sysframe.transport;

/**
 * What a {@link SharedGroutClient} did so far: its calls, how they left (batches: the requests one
 * sender took together, each batch one send unless the socket was full), and the answers nobody took.
 *
 * @param calls         requests queued (the GR_HELLO included)
 * @param batches       batches sent; {@code calls / batches} is the natural batching achieved
 * @param largestBatch  the most requests one batch carried
 * @param lastBatch     the requests the latest batch carried
 * @param unmatched     answers with an id no call waited for (and events): counted and dropped
 * @param late          answers that came after their caller timed out or was interrupted: dropped
 * @param inFlight      calls waiting for their answer now (abandoned ones whose answer did not come included)
 */
public record SharedClientStats(long calls, long batches, long largestBatch, long lastBatch, long unmatched, long late,
                                int inFlight) {
}
