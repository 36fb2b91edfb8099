package org.sysframe.transport.internal.io;

import org.sysframe.unix.ErrnoException;

import java.lang.foreign.MemorySegment;

/**
 * A pipeline's receive loop: hands each response it reads to the pipeline's {@link ResponseSink};
 * the responses the pipeline does not take (another caller's, or nobody's) and every event go to the
 * client's own router ({@link MessagePump.Sink}), as when any other caller receives.
 */
public final class Inbox {
    private final MessageReader reader;
    private final MessagePump.Sink others;

    public Inbox(MessageReader reader, MessagePump.Sink others) {
        this.reader = reader;
        this.others = others;
    }

    /** What a pipeline's receive loop does with each response it reads. */
    public interface ResponseSink {
        int TAKEN = 1, DROPPED = 0, NOT_MINE = -1;

        /**
         * TAKEN (delivered), DROPPED (a late answer to an abandoned request, or one to a request not sent) or NOT_MINE
         * (the client's router takes it).
         */
        int accept(int forId, int status, MemorySegment buffer, long offset, long length);
    }

    /**
     * Hands up to limit responses to sink: what is buffered, then what one recv brings (waiting for it
     * when wait and nothing was handed yet). Returns how many the sink took. deadline
     * (System.nanoTime(), 0: none): no wait goes past it; a message that has not started by then is
     * left for later, one that stopped half-way fails with ETIMEDOUT. now: the caller's clock reading
     * for the first wait.
     */
    public int drain(ResponseSink sink, int limit, boolean wait, long deadline, long now) throws ErrnoException {
        int n = 0;
        reader.deadline = deadline;
        reader.finishStarted = false; // a pipeline's deadline is its earliest request's: a message cut there fails them
        try {
            while (n < limit) {
                if (!reader.hasCompleteMessage()) {
                    if (n > 0) break;
                    if (reader.readsAhead()) {
                        if (!reader.receive(wait, now)) break;
                        now = 0; // a later wait reads the clock
                        continue;
                    }
                    if (!wait) break; // exact framing reads one whole message at a time, blocking
                }
                if (!reader.next()) break; // the deadline passed before a message started
                if (reader.isEvent) {
                    others.event(reader.first, reader.payloadBuffer, reader.payloadOffset, reader.payloadLen);
                    // Events that keep coming must not hold a wait past its deadline.
                    if (deadline != 0 && n == 0 && System.nanoTime() - deadline >= 0) break;
                    continue;
                }
                int r = sink.accept(reader.first, reader.status, reader.payloadBuffer, reader.payloadOffset,
                        reader.payloadLen);
                if (r == ResponseSink.TAKEN) n++;
                else if (r == ResponseSink.NOT_MINE) others.response(reader.first, reader.status, reader.payloadBuffer,
                        reader.payloadOffset, reader.payloadLen);
            }
        } finally {
            reader.deadline = 0;
        }
        return n;
    }
}
