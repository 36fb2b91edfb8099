package org.sysframe.transport.internal.server;

import java.util.concurrent.atomic.LongAdder;

/**
 * A server's requests, the answers it gave with an error status, and the bytes of the frames it read
 * and wrote (headers included), counted by every loop and channel thread of the server (striped adds:
 * nothing allocated per request once the threads have their cells) and read by any thread.
 */
public final class ServerCounts {
    private final LongAdder requests = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder bytesReceived = new LongAdder();
    private final LongAdder bytesSent = new LongAdder();

    /** A request of frameBytes (header and payload) was read and handed to its handler. */
    void request(long frameBytes) {
        requests.increment();
        bytesReceived.add(frameBytes);
    }

    /** An answer of frameBytes went to the output, with status (not 0: an error answer). */
    void answer(int status, long frameBytes) {
        if (status != 0) errors.increment();
        bytesSent.add(frameBytes);
    }

    /** An event of frameBytes went to the output. */
    void event(long frameBytes) {
        bytesSent.add(frameBytes);
    }

    public long requests() { return requests.sum(); }

    public long errors() { return errors.sum(); }

    public long bytesReceived() { return bytesReceived.sum(); }

    public long bytesSent() { return bytesSent.sum(); }
}
