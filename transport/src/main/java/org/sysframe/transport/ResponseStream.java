package org.sysframe.transport;

import org.sysframe.transport.internal.client.Call;
import org.sysframe.transport.internal.client.Conduit;
import org.sysframe.transport.internal.jfr.Jfr;
import org.sysframe.transport.internal.jfr.RoundTripEvent;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;

import java.io.IOException;

/**
 * The answers of one stream request: {@link #next()} returns true with {@link #current()} set for
 * each item, false at the empty terminator. Items that come while another thread does the client's
 * I/O are copied and kept for it. Closing it early drains the items not read yet. For the thread
 * that opened it.
 */
public final class ResponseStream implements AutoCloseable {
    private final GroutClient client;
    private final Conduit conduit;
    private final int type;
    private final Call call;
    private final long requestBytes;
    private final Response current = new Response();
    private final RoundTripEvent event;
    private long received;
    private boolean done;

    ResponseStream(GroutClient client, Conduit conduit, int type, Call call, long requestBytes) {
        this.conduit = conduit;
        this.client = client;
        this.type = type;
        this.call = call;
        this.requestBytes = requestBytes;
        this.event = Jfr.roundTrip() ? new RoundTripEvent() : null;
        if (event != null) event.begin();
    }

    /**
     * Reads the next item; false once the terminator arrived. A non-zero status throws (and ends the stream), and so
     * does a failed wait (ETIMEDOUT, EINTR, the connection's end): the stream is over then, its later items dropped
     * as late answers, and {@link #close()} returns at once.
     */
    public boolean next() throws IOException {
        if (done) return false;
        boolean more;
        try {
            more = conduit.nextItem(call);
        } catch (ErrnoException | RuntimeException e) {
            end(-1);
            throw e;
        }
        if (!more) {
            end(0);
            return false;
        }
        if (call.status() != 0) {
            end(call.status());
            throw new ApiException(client.specs().name(type), type, call.status());
        }
        if (call.length() == 0) {
            end(0);
            return false;
        }
        int min = client.specs().minResponse(type);
        if (call.length() < min) {
            end(-1);
            throw new ErrnoException(client.specs().name(type), Errno.EMSGSIZE,
                    "response payload of " + call.length() + " bytes, at least " + min + " expected");
        }
        received += call.length();
        current.set(call.id(), 0, call.answer(), 0, call.length());
        return true;
    }

    private void end(int status) {
        done = true;
        if (event == null) return;
        event.end();
        event.responseBytes = received;
        client.recordStream(event, type, requestBytes, status);
    }

    /** The item {@link #next()} just read. */
    public Response current() { return current; }

    /** Drains the items not read yet, so the client can go on. */
    @Override
    public void close() throws IOException {
        while (next()) {
            // drained
        }
    }
}
