package org.sysframe.transport.internal.server;

import org.sysframe.transport.Reply;
import org.sysframe.transport.Request;
import org.sysframe.transport.ServerConfig;
import org.sysframe.transport.internal.io.InputBuffer;
import org.sysframe.transport.internal.io.Outlet;
import org.sysframe.transport.internal.io.OutputBatch;
import org.sysframe.transport.internal.io.Pool;
import org.sysframe.transport.internal.io.SafeLogger;
import org.sysframe.transport.internal.jfr.Jfr;
import org.sysframe.transport.internal.jfr.ServerRequestEvent;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.EventHeader;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.transport.wire.ResponseHeader;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.UnixSocket;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The protocol side of one server connection: cuts requests out of its {@link InputBuffer}, dispatches
 * them to handlers, and answers through its {@link ConnectionOutput} (now, or in a deferred batch).
 * How bytes move and how the loop waits is its {@link Outlet}'s and its loop's business.
 * Driven by its loop thread only.
 */
public final class ServerConnection implements Responder, ConnectionOutput.Owner {
    private static final HandlerAccess ACCESS = HandlerAccess.get();

    private static final Logger LOG = SafeLogger.of("org.sysframe.server");

    public final long tag;
    private final ServerLoop<?> host;
    private final ServerConfig config;
    private final Routes routes;
    private final Outlet out;
    private final int peerPid;
    private final int peerUid;
    private final Arena arena = Arena.ofConfined();
    private final InputBuffer input;
    private final ConnectionOutput output;
    private final Subscriptions subscriptions = new Subscriptions();
    private final Request request = ACCESS.newRequest();
    private final Reply reply = ACCESS.newReply();
    private boolean helloDone;
    private boolean backlogged; // complete requests wait in the input for the next loop turn
    private boolean closed;
    private String closeWhenSent; // set: read nothing more, close once the unsent queue is empty
    private long requests;
    // requestsPerRead (0: no cap): Grout's api.c handles one request per read and keeps the rest for the next.
    private final int perRead;
    private int sinceRead;        // requests handled since the last read brought bytes
    private boolean held;         // a complete request waits for the next read (the cap was reached)
    // Bounds in time and memory (loop timer: checkTimers); times are the loop turn's, never read per request.
    private final ServerLimits limits;
    private boolean partial;      // a request has started and is not complete
    private long partialSince;    // when it started (or when the server read again after waiting for the peer)
    private long lastInput;       // when bytes last came (kept only with an idle timeout)
    private final boolean idleTimed;
    private boolean memoryWait;   // the large buffer of the request in part waits for the memory budget
    private int memoryNeed;       // the bytes that request needs
    private boolean timed;        // counted in the loop's connections that need its timer
    private Runnable onClose;     // a shared-memory channel of this connection ends with it

    /** A connection handling at most requestsPerRead requests per read (0: every complete one). */
    ServerConnection(ServerLoop<?> host, ServerConfig config, Routes routes, long tag, Outlet out, int peerPid,
            int peerUid, int requestsPerRead) {
        this.host = host;
        this.perRead = requestsPerRead;
        this.config = config;
        this.idleTimed = !config.idleTimeout().isZero();
        this.routes = routes;
        this.tag = tag;
        this.out = out;
        this.peerPid = peerPid;
        this.peerUid = peerUid;
        this.limits = host.limits();
        this.input = new InputBuffer(host.inputBuffers(), config.readBuffer(), limits.memory);
        this.lastInput = host.now();
        this.output = new ConnectionOutput(this, config, out, arena);
    }

    @Override
    public int peerPid() { return peerPid; }
    public int peerUid() { return peerUid; }
    long requests() { return requests; }
    @Override
    public boolean isClosed() { return closed; }
    Outlet outlet() { return out; }
    public InputBuffer input() { return input; }

    /** Runs r when this connection closes (once): its shared-memory channel ends with it; null: none. Loop thread. */
    public void onClose(Runnable r) { this.onClose = r; }

    /** Whether a shared-memory channel of this connection ends with it ({@link #onClose}). */
    public boolean hasChannel() { return onClose != null; }

    /** Whether every answer produced so far has left (nothing queued). */
    public boolean allSent() { return output.allSent(); }

    /** The connection's socket, when its driver lets it be used directly (epoll), else null. */
    public UnixSocket socketOrNull() { return out instanceof LoopSocket ls ? ls.unixSocket() : null; }

    /** Whether the loop should read now: not while output waits for room or the connection is closing. */
    public boolean wantsInput() {
        return !closed && !backlogged && !memoryWait && output.caughtUp() && closeWhenSent == null;
    }

    /** Bytes were received into {@link #input()}: handle every complete request (at most requestsPerRead). */
    public void onInput() {
        if (idleTimed) lastInput = host.now(); // (no clock read per input without an idle timeout)
        sinceRead = 0;
        handleRequests();
    }

    /** The peer closed its end. */
    public void onEof() { close(input.available() > 0 ? "peer closed in the middle of a request" : "peer closed"); }

    /** Receiving failed; a peer that died with bytes it never read shows up as ECONNRESET, not EOF: the same end. */
    public void onReadFailed(ErrnoException e) {
        if (e.errno() == Errno.ECONNRESET) {
            close(input.available() > 0 ? "peer closed in the middle of a request (ECONNRESET)"
                    : "peer closed (ECONNRESET)");
        } else {
            close("recv failed: " + e.getMessage());
        }
    }

    /** The loop gives this connection another turn for the requests it left in its buffer. */
    void continueRequests() {
        backlogged = false;
        if (!closed) handleRequests();
    }

    private void handleRequests() {
        if (memoryWait) return; // its request in part waits for the large buffer: nothing complete is there
        held = false;
        int need = 0;
        boolean consumed = false;
        int budget = config.maxRequestsPerTurn();
        while (input.available() >= RequestHeader.SIZE) {
            if (budget-- == 0) {
                // Fairness: the rest waits for the next loop turn, after the other connections.
                backlogged = true;
                host.requestsLeft(this);
                break;
            }
            MemorySegment in = input.segment();
            int at = input.start();
            long plen = RequestHeader.payloadLen(in, at);
            if (plen > GroutApi.MAX_MSG_LEN) {
                limits.oversize.warn(
                        String.format("pid=%d: request payload_len %d over GR_API_MAX_MSG_LEN %d: closing the "
                        + "connection",
                        peerPid, plen, GroutApi.MAX_MSG_LEN));
                // Answers to the requests before it were produced: they leave first, then the connection closes.
                closeWhenSent = "payload_len " + plen + " over the maximum";
                output.flush(); // a deferred batch; nothing in IMMEDIATE mode, where answers left already
                if (!closed && output.caughtUp()) close(closeWhenSent);
                return;
            }
            int total = RequestHeader.SIZE + (int) plen;
            if (input.available() < total) {
                need = total;
                break;
            }
            if (perRead > 0 && sinceRead == perRead) {
                held = true; // as Grout's api.c: kept, already read, until the next read brings bytes
                break;
            }
            dispatch(in, at, (int) plen);
            if (closed) return;
            input.consume(total);
            consumed = true;
            sinceRead++;
        }
        output.flush();
        if (closed) return;
        // Held requests never fill the buffer (each read handles one first): move them so the next read has room.
        if (held) need = input.available() + 1;
        if (!input.compact(need, RequestHeader.SIZE)) waitForMemory(need);
        if (input.available() == 0 || held) { // a held request is complete: no request timeout runs for it
            partial = false;
        } else if (!partial || consumed) {
            partial = true;
            partialSince = host.now();
        }
        updateTimed();
    }

    /** The request in part needs the large buffer and the budget has no room: stop reading until it has. */
    private void waitForMemory(int need) {
        memoryWait = true;
        memoryNeed = need;
        host.waitForMemory(this);
        try {
            out.pauseInput(true);
        } catch (ErrnoException e) {
            close("cannot stop reading: " + e.getMessage());
        }
    }

    /**
     * The loop saw room in the memory budget: takes the large buffer and reads again. False when there
     * was not room enough after all (the connection keeps waiting); true when done or closed.
     */
    boolean retryMemory() {
        if (closed || !memoryWait) return true;
        if (!input.compact(memoryNeed, RequestHeader.SIZE)) return false;
        memoryWait = false;
        try {
            out.pauseInput(false);
        } catch (ErrnoException e) {
            close("cannot read again: " + e.getMessage());
            return true;
        }
        updateTimed();
        return true;
    }

    /** Whether this connection waits for the memory budget. */
    public boolean waitsForMemory() { return memoryWait; }

    private void updateTimed() {
        boolean t = !closed && (partial || memoryWait || input.isLarge());
        if (t == timed) return;
        timed = t;
        host.timed(t ? 1 : -1);
    }

    /**
     * The loop's timer, with the turn's time: closes the connection if its request in part is past the
     * request timeout or it has been idle past the idle timeout (both logged); gives back memory it
     * does not use now. A request's clock restarts while the server does not read because the peer
     * has not taken its answers (that is the output limit's business, not the peer's slowness).
     */
    void checkTimers(long now) {
        if (closed) return;
        if (partial) {
            if (!output.caughtUp() || backlogged) {
                partialSince = now;
            } else if (now - partialSince >= config.requestTimeout().toNanos()) {
                int have = input.available();
                String got = have < RequestHeader.SIZE ? have + " bytes of its header came"
                        : have + " of " + (RequestHeader.SIZE + RequestHeader.payloadLen(input.segment(),
                                input.start())) + " bytes came";
                limits.requestTimeout.warn(
                        String.format("pid=%d: request not complete within the %d ms request timeout (%s): closing the "
                        + "connection",
                        peerPid, config.requestTimeout().toMillis(), got));
                close("request timeout");
                return;
            }
        }
        if (idleTimed && now - lastInput >= config.idleTimeout().toNanos()) {
            limits.idleTimeout.warn(
                    String.format("pid=%d: nothing received within the %d ms idle timeout: closing the connection",
                    peerPid, config.idleTimeout().toMillis()));
            close("idle timeout");
            return;
        }
        input.releaseIfUnused();
        if (output.caughtUp()) out.releaseIdle();
        updateTimed();
    }

    private void dispatch(MemorySegment in, int at, int plen) {
        int id = RequestHeader.id(in, at);
        int type = RequestHeader.type(in, at);
        requests++;
        host.counts.request(RequestHeader.SIZE + plen);
        ACCESS.set(request, id, type, in, at + RequestHeader.SIZE, plen, peerPid, peerUid);
        if (!helloDone && type != GroutApi.HELLO) {
            log(Level.DEBUG, "pid=%d: %s before GR_HELLO", peerPid, routes.name(type));
            respond(id, Errno.EBADMSG, MemorySegment.NULL, 0, 0, false);
            return;
        }
        ChannelOpener opener = routes.channelOpener();
        if (opener != null && type == opener.type()) {
            opener.open(this, host, id);
            return;
        }
        Routes.Route route = routes.get(type);
        int status = route == null ? Errno.ENOTSUP : plen < route.minRequest() ? Errno.EMSGSIZE : 0;
        if (status != 0) {
            respond(id, status, MemorySegment.NULL, 0, 0, false);
            return;
        }
        ACCESS.bind(reply, this, request, route.minResponse());
        ServerRequestEvent event = null;
        if (Jfr.serverRequest()) {
            event = new ServerRequestEvent();
            event.begin();
        }
        try {
            route.handler().handle(request, reply);
        } catch (OutOfMemoryError e) {
            status = Errno.ENOMEM;
            log(Level.ERROR, "pid=%d: %s handler ran out of memory", peerPid, routes.name(type));
        } catch (Exception | StackOverflowError e) {
            status = Errno.EIO;
            // With its stack trace, as few times as the other warnings a peer can provoke at will.
            host.limits().handlerFailed.warn(String.format("pid=%d: %s handler failed: %s", peerPid, routes.name(type),
                    e), e);
        }
        if (!ACCESS.answered(reply) && !closed) {
            if (status == 0) {
                status = Errno.EIO;
                log(Level.ERROR, "pid=%d: %s handler returned without answering", peerPid, routes.name(type));
            }
            respond(id, status, MemorySegment.NULL, 0, 0, false);
        }
        if (event != null) {
            event.end();
            if (event.shouldCommit()) {
                event.type = type;
                event.typeName = routes.name(type);
                event.requestBytes = plen;
                event.status = status != 0 ? status : ACCESS.status(reply);
                event.peerPid = peerPid;
                event.peerUid = peerUid;
                event.commit();
            }
        }
    }

    @Override
    public void respond(int forId, int status, MemorySegment payload, long off, long len, boolean fromRequest) {
        if (closed) return;
        host.counts.answer(status, ResponseHeader.SIZE + len);
        output.respond(forId, status, payload, off, len, fromRequest);
    }

    @Override
    public long claim(long len) { return output.claim(len); }

    @Override
    public MemorySegment claimMemory() { return output.claimMemory(); }

    @Override
    public void commit(int forId, long len) {
        if (closed) return;
        host.counts.answer(0, ResponseHeader.SIZE + len);
        output.commit(forId, len);
    }

    /** Sends one event (its payload is copied when queued: the publisher's memory is not ours). */
    void sendEvent(int evType, MemorySegment payload, long off, long len) {
        if (closed) return;
        host.counts.event(EventHeader.SIZE + len);
        output.event(evType, payload, off, len);
    }

    /** Flushes the deferred batch at the end of the loop turn. */
    void flush() { output.flush(); }

    /** Whether a deferred batch waits for the end of the loop turn. */
    boolean dirty() { return output.dirty(); }

    /**
     * The socket can take more: send the unsent queue; once it is empty, handle what was read meanwhile
     * (not a read: requestsPerRead's count of the last read goes on).
     */
    public void onWritable() {
        if (closed || !output.drain()) return;
        if (closeWhenSent != null) {
            close(closeWhenSent);
            return;
        }
        if (!backlogged && input.available() >= RequestHeader.SIZE) handleRequests();
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
    public ServerLimits limits() { return limits; }

    @Override
    public Pool<OutputBatch.Memory> batchMemory() { return host.batchMemory(); }

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

    @Override
    public MemorySegment claimArea() { return host.claimArea(); }

    @Override
    public void batchStarted() { host.markDirty(this); }

    private static void log(Level level, String format, Object... args) {
        if (LOG.isLoggable(level)) LOG.log(level, String.format(format, args));
    }

    /** Closes the socket, frees every buffer, and tells the loop why. Idempotent. */
    @Override
    public void close(String reason) {
        if (closed) return;
        closed = true;
        if (timed) {
            timed = false;
            host.timed(-1);
        }
        output.close(); // first: what is queued past an io_uring output area goes before the area lingers
        out.close();
        input.close();
        arena.close();
        host.closed(this, reason);
        // Last: a channel is seen ended (ShmServer.channels()) only once its socket is closed too.
        if (onClose != null) onClose.run();
    }
}
