package org.sysframe.transport;

import java.io.IOException;

/**
 * The responses of one stream request, as a reusable cursor of its {@link GroutClient}: {@link #next()}
 * returns true with {@link #current()} set for each item, false at the empty terminator. Closing it
 * early drains the items not read yet, so the client can go on.
 */
public final class ResponseStream implements AutoCloseable {
    private final GroutClient client;
    private int type;
    private int id;
    private boolean done = true;
    private Response current;

    ResponseStream(GroutClient client) {
        this.client = client;
    }

    void open(int type, int id) {
        this.type = type;
        this.id = id;
        this.done = false;
    }

    /** Reads the next item; false once the terminator arrived. A non-zero status throws (and ends the stream). */
    public boolean next() throws IOException {
        if (done) return false;
        Response r = client.awaitStreamItem(id);
        if (r.status() != 0) {
            done = true;
            throw new ApiException(client.specs().name(type), type, r.status());
        }
        if (r.length() == 0) {
            done = true;
            return false;
        }
        client.checkStreamItem(type, r);
        current = r;
        return true;
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
