package org.sysframe.transport;

import org.sysframe.transport.internal.server.Responder;
import org.sysframe.transport.wire.GroutApi;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * How a {@link Handler} answers: one of {@link #ok()}, {@link #ok(MemorySegment, long, long)},
 * {@link #echo(long, long)} or {@link #error(int)}; or, for a stream, any number of
 * {@link #item(MemorySegment, long, long)} then {@link #end()}. A reusable flyweight bound to the
 * connection being served.
 */
public final class Reply {
    private Responder connection;
    private Request request;
    private boolean answered;
    private int status;
    private int minResponse;

    /** Made by the server, one per connection ({@link HandlerAccess#newReply}). */
    Reply() {}

    /** The server binds this reply to the request being handled. */
    void bind(Responder connection, Request request, int minResponse) {
        this.connection = connection;
        this.request = request;
        this.answered = false;
        this.status = 0;
        this.minResponse = minResponse;
    }

    /** Whether the handler answered (the server answers for it otherwise). */
    boolean answered() { return answered; }

    /** The status the handler answered with (0 until it answered, and for streams). */
    int status() { return status; }

    /** The connection being answered, for the built-in messages that change its session. */
    Responder session() { return connection; }

    /** Success, empty payload. */
    public void ok() { finish(0, MemorySegment.NULL, 0, 0, false); }

    /** Success with len bytes of seg from off, copied before this returns when they must outlive the call. */
    public void ok(MemorySegment seg, long off, long len) { finish(0, seg, off, len, false); }

    /** Success whose payload is len bytes of the request's own payload from off: no copy (an echo). */
    public void echo(long off, long len) {
        Objects.checkFromIndexSize(off, len, request.length());
        finish(0, request.buffer(), request.offset() + off, len, true);
    }

    /** Failure with an errno status (e.g. {@link org.sysframe.unix.Errno#EINVAL}), empty payload. */
    public void error(int status) {
        if (status == 0) throw new IllegalArgumentException("an error status is not 0");
        finish(status, MemorySegment.NULL, 0, 0, false);
    }

    /**
     * Built-in messages: failure with an errno status and a payload that says more (e.g. the version a refused GR_HELLO
     * should use).
     */
    void error(int status, MemorySegment seg, long off, long len) {
        if (status == 0) throw new IllegalArgumentException("an error status is not 0");
        finish(status, seg, off, len, false);
    }

    /** One item of a stream response (a non-empty payload, copied when it must outlive the call). */
    public void item(MemorySegment seg, long off, long len) {
        if (answered) throw new IllegalStateException("request " + request.id() + " already answered");
        if (len == 0) throw new IllegalArgumentException("a stream item cannot be empty: that is the terminator");
        checkLength(len);
        connection.respond(request.id(), 0, seg, off, len, false);
    }

    /** Ends a stream with the empty terminator. */
    public void end() {
        if (answered) throw new IllegalStateException("request " + request.id() + " already answered");
        answered = true;
        connection.respond(request.id(), 0, MemorySegment.NULL, 0, 0, false);
    }

    private void checkLength(long len) {
        if (len < minResponse) {
            throw new IllegalArgumentException("response payload of " + len + " bytes for "
                    + GroutApi.typeName(request.type()) + ", declared at least " + minResponse);
        }
    }

    private void finish(int status, MemorySegment seg, long off, long len, boolean fromRequest) {
        if (answered) throw new IllegalStateException("request " + request.id() + " already answered");
        if (status == 0) checkLength(len);
        answered = true;
        this.status = status;
        connection.respond(request.id(), status, seg, off, len, fromRequest);
    }

    /** Publishes an event to subscribers, caused by this request (for suppress_self_events). */
    public void publish(int evType, MemorySegment seg, long off, long len) {
        connection.publish(evType, seg, off, len, request.peerPid());
    }
}
