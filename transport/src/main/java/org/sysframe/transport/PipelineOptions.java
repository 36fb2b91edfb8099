package org.sysframe.transport;

import org.sysframe.transport.wire.GroutApi;

/**
 * Settings of a {@link Pipeline}: the window (most requests in flight; queueing more is refused until
 * answers come), the per-request timeout (0: none), and the largest payload copied into the batch
 * buffer (larger ones are sent from where they are, as iovec entries of one sendmsg).
 */
public record PipelineOptions(int window, long requestTimeoutMillis, int copyThreshold) {
    /** At most this many in flight: half the 16-bit id space, so an id is never reused while in flight. */
    public static final int MAX_WINDOW = 32_768;

    /** Checks window (1 to {@link #MAX_WINDOW}), timeout (0 or more) and copy threshold (0 to 128 KiB). */
    public PipelineOptions {
        if (window < 1 || window > MAX_WINDOW) {
            throw new IllegalArgumentException("window " + window + ": expected 1.." + MAX_WINDOW
                    + " (request ids are 16-bit)");
        }
        if (requestTimeoutMillis < 0) throw new IllegalArgumentException("request timeout " + requestTimeoutMillis
                + " ms: expected >= 0");
        if (copyThreshold < 0 || copyThreshold > GroutApi.MAX_MSG_LEN) {
            throw new IllegalArgumentException("copy threshold " + copyThreshold + ": expected 0.."
                    + GroutApi.MAX_MSG_LEN);
        }
    }

    /** At most window requests in flight, no timeout, payloads up to 1024 bytes copied. */
    public static PipelineOptions window(int window) { return new PipelineOptions(window, 0, 1024); }

    /** A copy of these options with a per-request timeout of ms (0: none). */
    public PipelineOptions requestTimeoutMillis(long ms) { return new PipelineOptions(window, ms, copyThreshold); }

    /** A copy of these options copying payloads of up to bytes into the batch buffer. */
    public PipelineOptions copyThreshold(int bytes) { return new PipelineOptions(window, requestTimeoutMillis, bytes); }
}
