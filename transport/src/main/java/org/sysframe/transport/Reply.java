package org.sysframe.transport;

import org.sysframe.transport.internal.server.Responder;
import org.sysframe.transport.wire.GroutApi;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * How a {@link Handler} answers: one of {@link #ok()}, {@link #ok(MemorySegment, long, long)},
 * {@link #echo(long, long)}, {@link #claim(long)} then {@link #commit()}, or {@link #error(int)}; or, for a
 * stream, any number of {@link #item(MemorySegment, long, long)} then {@link #end()}. A reusable flyweight bound
 * to the connection being served.
 *
 * <p>{@code ok(seg, off, len)} copies an answer the handler made elsewhere; {@code claim} lets it write the answer
 * where it is sent from, which on a shared-memory channel is the answer ring itself (docs/shared-memory.md).
 */
public final class Reply {
    private Responder connection;
    private Request request;
    private boolean answered;
    private int status;
    private int minResponse;
    private long claimed = -1; // the payload length of a claim not committed yet; -1: none

    /** Made by the server, one per connection ({@link HandlerAccess#newReply}). */
    Reply() {}

    /** The server binds this reply to the request being handled. */
    void bind(Responder connection, Request request, int minResponse) {
        this.connection = connection;
        this.request = request;
        this.answered = false;
        this.status = 0;
        this.minResponse = minResponse;
        this.claimed = -1;
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

    /**
     * Room for a success answer's payload of len bytes, which the handler writes in place: returns where they begin
     * in {@link #claimed()}; {@link #commit()} sends them.
     *
     * <p>On a shared-memory channel the room is in the answer ring itself when the ring has it and nothing waits to
     * be sent before this answer: the payload is never copied, and until the commit it holds whatever the ring held
     * (this channel's earlier bytes). Elsewhere (a socket, a full ring, an answer longer than the ring) it is memory
     * of the server's loop, zeroed, copied once at the commit as {@link #ok(MemorySegment, long, long)} copies.
     * Either way every byte the handler does not write goes out as it found it.
     *
     * <p>The room is valid until {@link #commit()} or another answer; another claim replaces it, and
     * {@link #ok()}, {@link #echo}, {@link #error(int)} or {@link #item} abandon it (nothing of it is sent). While
     * it is open the handler may not {@link #publish} (IllegalStateException): that event would reach this
     * connection before the answer on a socket and after it on a channel.
     *
     * @throws IllegalArgumentException len is negative, over GR_API_MAX_MSG_LEN, or under the message's declared
     *     minimum answer
     * @throws IllegalStateException the request is answered already
     */
    public long claim(long len) {
        if (answered) throw new IllegalStateException("request " + request.id() + " already answered");
        if (len < 0 || len > GroutApi.MAX_MSG_LEN) {
            throw new IllegalArgumentException("a claim of " + len + " bytes; GR_API_MAX_MSG_LEN is "
                    + GroutApi.MAX_MSG_LEN);
        }
        checkLength(len);
        long at = connection.claim(len);
        claimed = len;
        return at;
    }

    /** The memory the offset {@link #claim(long)} returned is in, until the claim's commit or another answer. */
    public MemorySegment claimed() { return connection.claimMemory(); }

    /**
     * Sends the answer claimed last: success, with the claimed payload as the handler wrote it.
     *
     * @throws IllegalStateException nothing is claimed, or the claim was abandoned by another answer
     */
    public void commit() {
        if (claimed < 0) throw new IllegalStateException("request " + request.id() + ": nothing claimed to commit");
        long len = claimed;
        claimed = -1;
        answered = true;
        connection.commit(request.id(), len);
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
        claimed = -1;
        connection.respond(request.id(), 0, seg, off, len, false);
    }

    /** Ends a stream with the empty terminator. */
    public void end() {
        if (answered) throw new IllegalStateException("request " + request.id() + " already answered");
        answered = true;
        claimed = -1;
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
        claimed = -1;
        this.status = status;
        connection.respond(request.id(), status, seg, off, len, fromRequest);
    }

    /**
     * Publishes an event to subscribers, caused by this request (for suppress_self_events).
     *
     * @throws IllegalStateException an answer is claimed and not committed yet ({@link #claim(long)})
     */
    public void publish(int evType, MemorySegment seg, long off, long len) {
        if (claimed >= 0) throw new IllegalStateException("request " + request.id()
                + ": an event published while an answer is claimed; commit it first");
        connection.publish(evType, seg, off, len, request.peerPid());
    }
}
