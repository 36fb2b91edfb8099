package org.sysframe.transport;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.IovArray;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The protocol side of one server connection: cuts requests out of its {@link InputBuffer}, dispatches
 * them to handlers, answers now ({@link FlushMode#IMMEDIATE}) or in an {@link OutputBatch}
 * ({@link FlushMode#DEFERRED}: one writev per read, early at the high-water mark, a batch of one small
 * message with the copy framing), and keeps what the socket would not take in an {@link UnsentQueue}.
 * How bytes move and how the loop waits is its {@link Outlet}'s and its loop's business.
 * Driven by its loop thread only.
 */
final class ServerConnection implements Responder {
    private static final Logger LOG = System.getLogger("org.sysframe.server");

    final long tag;
    private final ConnectionHost host;
    private final ServerConfig config;
    private final Routes routes;
    private final Outlet out;
    private final int peerPid;
    private final int peerUid;
    private final boolean deferred;
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment header = arena.allocate(EventHeader.SIZE, 8);
    private final InputBuffer input;
    private final OutputBatch batch;
    private final UnsentQueue unsent;
    private final Subscriptions subscriptions = new Subscriptions();
    private final Request request = new Request();
    private final Reply reply = new Reply();
    private boolean helloDone;
    private boolean closed;
    private boolean dirty;
    private String closeWhenSent; // set: read nothing more, close once the unsent queue is empty
    private long requests;

    ServerConnection(ConnectionHost host, ServerConfig config, Routes routes, long tag, Outlet out, int peerPid, int peerUid) {
        this.host = host;
        this.config = config;
        this.routes = routes;
        this.tag = tag;
        this.out = out;
        this.peerPid = peerPid;
        this.peerUid = peerUid;
        this.deferred = config.flush() == FlushMode.DEFERRED;
        this.input = new InputBuffer(arena, config.readBuffer());
        this.batch = new OutputBatch(arena, config.highWater());
        this.unsent = new UnsentQueue(out, config.maxQueuedOutput());
    }

    int peerPid() { return peerPid; }
    int peerUid() { return peerUid; }
    long requests() { return requests; }
    boolean isClosed() { return closed; }
    Outlet outlet() { return out; }
    InputBuffer input() { return input; }

    /** Whether the loop should read now: not while output is queued or the connection is closing. */
    boolean wantsInput() { return !closed && unsent.isEmpty() && closeWhenSent == null; }

    /** Bytes were received into {@link #input()}: handle every complete request. */
    void onInput() { handleRequests(); }

    /** The peer closed its end. */
    void onEof() { close(input.available() > 0 ? "peer closed in the middle of a request" : "peer closed"); }

    /** Receiving failed; a peer that died with bytes it never read shows up as ECONNRESET, not EOF: the same end. */
    void onReadFailed(ErrnoException e) {
        if (e.errno() == Errno.ECONNRESET) {
            close(input.available() > 0 ? "peer closed in the middle of a request (ECONNRESET)" : "peer closed (ECONNRESET)");
        } else {
            close("recv failed: " + e.getMessage());
        }
    }

    private void handleRequests() {
        int need = 0;
        while (input.available() >= RequestHeader.SIZE) {
            MemorySegment in = input.segment();
            int at = input.start();
            long plen = RequestHeader.payloadLen(in, at);
            if (plen > GroutApi.MAX_MSG_LEN) {
                log(Level.WARNING, "pid=%d: request payload_len %d over GR_API_MAX_MSG_LEN %d: closing the connection",
                        peerPid, plen, GroutApi.MAX_MSG_LEN);
                // Answers to the requests before it were produced: they leave first, then the connection closes.
                closeWhenSent = "payload_len " + plen + " over the maximum";
                if (deferred) flush();
                if (!closed && unsent.isEmpty()) close(closeWhenSent);
                return;
            }
            int total = RequestHeader.SIZE + (int) plen;
            if (input.available() < total) {
                need = total;
                break;
            }
            dispatch(in, at, (int) plen);
            if (closed) return;
            input.consume(total);
        }
        if (deferred) flush();
        if (!closed) input.compact(need, RequestHeader.SIZE);
    }

    private void dispatch(MemorySegment in, int at, int plen) {
        int id = RequestHeader.id(in, at);
        int type = RequestHeader.type(in, at);
        requests++;
        request.set(id, type, in, at + RequestHeader.SIZE, plen, peerPid, peerUid);
        if (!helloDone && type != GroutApi.HELLO) {
            log(Level.DEBUG, "pid=%d: %s before GR_HELLO", peerPid, GroutApi.typeName(type));
            respond(id, Errno.EBADMSG, MemorySegment.NULL, 0, 0, false);
            return;
        }
        Routes.Route route = routes.get(type);
        int status = route == null ? Errno.ENOTSUP : plen < route.minRequest() ? Errno.EMSGSIZE : 0;
        if (status != 0) {
            respond(id, status, MemorySegment.NULL, 0, 0, false);
            return;
        }
        reply.bind(this, request, route.minResponse());
        try {
            route.handler().handle(request, reply);
        } catch (OutOfMemoryError e) {
            status = Errno.ENOMEM;
            log(Level.ERROR, "pid=%d: %s handler ran out of memory", peerPid, GroutApi.typeName(type));
        } catch (Exception | StackOverflowError e) {
            status = Errno.EIO;
            log(Level.ERROR, "pid=%d: %s handler failed: %s", peerPid, GroutApi.typeName(type), e);
        }
        if (!reply.answered() && !closed) {
            if (status == 0) {
                status = Errno.EIO;
                log(Level.ERROR, "pid=%d: %s handler returned without answering", peerPid, GroutApi.typeName(type));
            }
            respond(id, status, MemorySegment.NULL, 0, 0, false);
        }
    }

    @Override
    public void respond(int forId, int status, MemorySegment payload, long off, long len, boolean fromRequest) {
        ResponseHeader.write(header, 0, forId, status, (int) len);
        deliver(ResponseHeader.SIZE, payload, off, len, fromRequest);
    }

    /** Sends one event (its payload is copied when queued: the publisher's memory is not ours). */
    void sendEvent(int evType, MemorySegment payload, long off, long len) {
        EventHeader.write(header, 0, evType, len);
        deliver(EventHeader.SIZE, payload, off, len, false);
    }

    /** Sends the message whose header is in {@code header}: now (IMMEDIATE) or in the batch (DEFERRED). */
    private void deliver(int hlen, MemorySegment payload, long off, long len, boolean fromRequest) {
        if (closed) return;
        if (!deferred) {
            writeNow(hlen, payload, off, len);
            return;
        }
        if (!batch.hasRoom()) {
            flush();
            if (closed) return;
        }
        if (!unsent.isEmpty()) {
            queue(hlen, payload, off, len, 0); // output is backed up: this goes behind it
            return;
        }
        batch.add(header, hlen, payload, off, len, fromRequest);
        if (!dirty) {
            dirty = true;
            host.markDirty(this);
        }
        if (batch.bytes() >= config.highWater()) flush();
    }

    private void writeNow(int hlen, MemorySegment payload, long off, long len) {
        if (!unsent.isEmpty()) {
            queue(hlen, payload, off, len, 0);
            return;
        }
        long written;
        try {
            written = out.write(header, hlen, payload, off, len);
        } catch (ErrnoException e) {
            close("send failed: " + e.getMessage());
            return;
        }
        if (written < hlen + len) queue(hlen, payload, off, len, written);
    }

    private void queue(int hlen, MemorySegment payload, long off, long len, long skip) {
        if (!unsent.fits(hlen + len - skip)) {
            slowReader(hlen + len - skip);
            return;
        }
        try {
            unsent.append(header, hlen, payload, off, len, skip);
        } catch (ErrnoException e) {
            close("cannot watch for room to write: " + e.getMessage());
        }
    }

    private void slowReader(long more) {
        log(Level.WARNING, "pid=%d: slow reader, %d bytes unsent over the %d limit: closing the connection",
                peerPid, unsent.size() + more, unsent.limit());
        close("slow reader");
    }

    /**
     * Writes the deferred batch with one gathering write (more if the kernel takes it in parts) and
     * queues what is left. A batch of one message small enough for the copy framing (COPY,
     * COPY_GATHER) is copied and sent with one send instead: the cheapest call for one request/response.
     */
    void flush() {
        dirty = false;
        if (batch.isEmpty() || closed) {
            batch.reset();
            return;
        }
        SendFraming f = config.send();
        boolean copies = f.kind() == SendFraming.Kind.COPY || f.kind() == SendFraming.Kind.COPY_GATHER;
        if (batch.messages() == 1 && copies && batch.bytes() <= f.copyThreshold()) {
            int hlen = batch.copyFirstHeader(header);
            writeNow(hlen, batch.firstPayload(), batch.firstPayloadOffset(), batch.firstPayloadLength());
            batch.reset();
            return;
        }
        IovArray iov = batch.iov();
        try {
            out.gather(iov);
            if (!iov.isEmpty()) {
                if (unsent.fits(iov.remaining())) unsent.appendRemaining(iov);
                else slowReader(iov.remaining());
            }
        } catch (ErrnoException e) {
            close("writev failed: " + e.getMessage());
        }
        batch.reset();
    }

    /** Whether a deferred batch waits for the end of the loop turn. */
    boolean dirty() { return dirty; }

    /** The socket can take more: send the unsent queue; once it is empty, read again. */
    void onWritable() {
        if (closed) return;
        try {
            if (!unsent.drain()) return;
        } catch (ErrnoException e) {
            close("send failed: " + e.getMessage());
            return;
        }
        if (closeWhenSent != null) {
            close(closeWhenSent);
            return;
        }
        // Requests completed while output was backed up are handled now.
        if (input.available() >= RequestHeader.SIZE) handleRequests();
    }

    boolean wants(int evType, int causePid) { return subscriptions.wants(evType, causePid, peerPid); }

    boolean hasSubscriptions() { return !subscriptions.isEmpty(); }

    @Override
    public void publish(int evType, MemorySegment payload, long off, long len, int causePid) {
        host.publish(evType, payload, off, len, causePid);
    }

    @Override
    public ServerConfig config() { return config; }

    @Override
    public void helloDone() { helloDone = true; }

    @Override
    public void subscribe(int evType, boolean suppressSelf) {
        subscriptions.add(evType, suppressSelf);
        host.subscriptionsChanged(this);
    }

    @Override
    public void unsubscribeAll() {
        subscriptions.clear();
        host.subscriptionsChanged(this);
    }

    @Override
    public MemorySegment scratch() { return host.scratch(); }

    private static void log(Level level, String format, Object... args) {
        if (LOG.isLoggable(level)) LOG.log(level, String.format(format, args));
    }

    /** Closes the socket, frees every buffer, and tells the loop why. Idempotent. */
    void close(String reason) {
        if (closed) return;
        closed = true;
        out.close();
        unsent.close();
        batch.close();
        input.close();
        arena.close();
        host.closed(this, reason);
    }
}
