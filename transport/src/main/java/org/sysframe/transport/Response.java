package org.sysframe.transport;

import java.lang.foreign.MemorySegment;

/**
 * A received response, as a reusable flyweight: valid until the next call on the client that
 * returned it. Its payload is read in place (see {@link ReceivedPayload}).
 */
public final class Response extends ReceivedPayload {
    private int id;
    private int status;

    /** Made by the client: the view a calling thread, a future or a stream reads its answer in. */
    Response() {}

    /** The client fills this view with each answer. */
    void set(int id, int status, MemorySegment buffer, long offset, long length) {
        this.id = id;
        this.status = status;
        setPayload(buffer, offset, length);
    }

    /** The response's for_id: the id of the request it answers. */
    public int id() { return id; }

    /** 0 for success, else an errno value. */
    public int status() { return status; }

    @Override
    public String toString() {
        return "Response[id " + id + ", status " + status + ", " + length() + " bytes]";
    }
}
