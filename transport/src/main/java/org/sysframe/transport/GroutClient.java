package org.sysframe.transport;

import org.sysframe.transport.internal.client.ClientConnect;
import org.sysframe.transport.internal.client.MainModulePayloads;
import org.sysframe.transport.internal.epoll.SocketLink;
import org.sysframe.transport.internal.io.ClientLink;
import org.sysframe.transport.internal.io.Inbox;
import org.sysframe.transport.internal.io.MessageReader;
import org.sysframe.transport.internal.io.MessageWriter;
import org.sysframe.transport.internal.jfr.ConnectionEvent;
import org.sysframe.transport.internal.jfr.RoundTripEvent;
import org.sysframe.transport.internal.uring.UringLink;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.MessageSpecs;
import org.sysframe.transport.wire.RequestHeader;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.UnixSocket;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A client of a Grout-style API socket: connects, says GR_HELLO, then sends requests and receives
 * responses and events with the framing chosen in {@link ClientOptions} (frozen at connect).
 *
 * <p>Thread-confined, like Grout's C client: the thread that connects it is the only one that may use
 * it (one client per thread); a call from another thread throws {@link WrongThreadException} naming
 * the client, both threads and this rule (many threads, platform or virtual, may share one
 * {@link SharedGroutClient} instead). On a virtual thread, a wait for the server parks the virtual
 * thread (the JVM's poller watches the socket) instead of blocking its carrier in recv or send (epoll
 * backend). {@link #close()} may be called from any thread (e.g. once the
 * owner ended): it closes the socket and frees the client's memory. {@link #sendRecv} allocates nothing
 * on the Java heap; the {@link Response} it returns is a flyweight valid until the next call.
 * Responses whose id is not the one awaited are kept aside (copied) and handed out when their id is
 * awaited; events that arrive while a response is awaited are kept for {@link #nextEvent()}.
 *
 * <p>Request ids run from 1 to 0xffff and wrap, so that a header's first word tells a response
 * (for_id &lt;= 0xffff) from an event (ev_type, whose module is never 0).
 *
 * <p>After a failure that leaves the byte stream out of step (timeout, EOF, a payload_len over
 * 128 KiB) the client is broken: every later call fails with ENOTCONN naming the first failure.
 */
public final class GroutClient implements AutoCloseable {
    private final ClientConfig options;
    private final MessageSpecs specs;
    // Shared, so that close() may free it from any thread; every other use is checked to be the owner's.
    private final Arena arena = Arena.ofShared();
    private final Thread owner = Thread.currentThread();
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
    private final UnixSocket socket;
    private final ClientLink link;
    private final MessageWriter writer;
    private final MemorySegment requestHeader;
    private final Response response = new Response();
    private final Event event = new Event();
    private final Inbox inbox;
    private final ResponseStream stream = new ResponseStream(this);
    private int lastId;
    private int maxIfaces;
    private ErrnoException broken;

    private GroutClient(ClientConfig options, UnixSocket socket, ClientLink link) {
        this.options = options;
        this.specs = options.specs();
        this.socket = socket;
        this.link = link;
        this.writer = new MessageWriter(link, options.send(), arena);
        this.inbox = new Inbox(new MessageReader(link, options.recv(), arena, options.receiveTimeoutMillis()), socket.name());
        this.requestHeader = arena.allocate(RequestHeader.SIZE, 8);
    }

    private static ClientLink link(ClientConfig options, UnixSocket socket) throws ErrnoException {
        if (options.backend().resolve("client(" + socket.name() + ")") == Backend.EPOLL) {
            return new SocketLink(socket, options.waitMode(), options.receiveTimeoutMillis(), options.sendTimeoutMillis());
        }
        return new UringLink(socket, options.waitMode(), options.receiveTimeoutMillis(), options.sendTimeoutMillis(), options.sqpoll());
    }

    /**
     * Connects to options' socket and performs GR_HELLO. Failures say what to check: no socket file,
     * a path that is not a socket, a refused API version (EBADMSG), a server that closed right after
     * connect (a uid it does not admit).
     */
    public static GroutClient connect(ClientOptions builder) throws IOException {
        ClientConfig options = builder.freeze();
        UnixSocket socket = ClientConnect.open(options);
        ClientLink link;
        try {
            link = link(options, socket);
        } catch (ErrnoException | RuntimeException e) {
            socket.close();
            throw e;
        }
        GroutClient c = new GroutClient(options, socket, link);
        try {
            c.hello();
            return options.sharedMemory() ? c.overSharedMemory() : c;
        } catch (ErrnoException e) {
            org.sysframe.unix.PeerCredentials server = c.credentialsOrNull();
            c.close();
            throw ClientConnect.hello(options.apiVersion(), e, server);
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    public static GroutClient connect(String path) throws IOException {
        return connect(ClientOptions.defaults().socketPath(path));
    }

    private void hello() throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment req = MainModulePayloads.hello(a, options.apiVersion(), options.version());
            int id = queue(GroutApi.HELLO, req, 0, req.byteSize());
            awaitResponse(id);
            inbox.answered(id);
            if (response.status() == Errno.EBADMSG) {
                throw ClientConnect.refusedVersion(options.apiVersion(), MainModulePayloads.serverVersion(response));
            }
            checkResponse(GroutApi.HELLO, response, false);
            maxIfaces = MainModulePayloads.maxIfaces(response);
        }
    }

    /**
     * Asks for a shared-memory channel (nothing is in flight right after GR_HELLO): a client over it
     * that takes this one's place (same socket, ids and hello result), or this one when the server
     * answered an error, or when the backend or the thread cannot wait on the channel (io_uring, virtual).
     */
    private GroutClient overSharedMemory() throws IOException {
        if (backend() != Backend.EPOLL || Thread.currentThread().isVirtual()) return this;
        ClientLink shm;
        try {
            shm = org.sysframe.transport.internal.shm.ShmClient.negotiate(options, socket, nextId());
        } catch (ErrnoException e) {
            close();
            throw e;
        }
        if (shm == null) return this;
        GroutClient s = new GroutClient(options, socket, shm);
        s.lastId = lastId;
        s.maxIfaces = maxIfaces;
        // This client's memory goes; the socket stays with the new one.
        closed.set(true);
        link.close();
        if (arena.scope().isAlive()) arena.close();
        return s;
    }

    /** Whether requests go through a shared-memory channel ({@link ClientOptions#sharedMemory}) rather than the socket. */
    public boolean sharedMemory() { return link instanceof org.sysframe.transport.internal.shm.ShmClientLink; }

    /** What the server said in its GR_HELLO response; -1 when it answered without it (older servers). */
    public int maxIfaces() { return maxIfaces; }

    /** The settings this client runs with. */
    public ClientConfig config() { return options; }

    public SendFraming sendFraming() { return writer.framing(); }

    public RecvFraming recvFraming() { return options.recv(); }

    /** The server process as the kernel recorded it (SO_PEERCRED): its pid, uid and gid. */
    public org.sysframe.unix.PeerCredentials serverCredentials() throws ErrnoException {
        return socket.peerCredentials();
    }

    private org.sysframe.unix.PeerCredentials credentialsOrNull() {
        try {
            return socket.peerCredentials();
        } catch (ErrnoException e) {
            return null;
        }
    }

    /** Every send and recv (or io_uring_enter) this client made, by kind. */
    public SyscallCounters counters() { return socket.counters(); }

    /** The backend this client runs on: {@link Backend#EPOLL} or {@link Backend#IO_URING} (AUTO resolved at connect). */
    public Backend backend() { return link instanceof UringLink ? Backend.IO_URING : Backend.EPOLL; }

    /** With the io_uring backend, the SQEs by opcode and the CQEs so far (zero with epoll). */
    public org.sysframe.unix.uring.UringCounts uringCounts() { return link.uringCounts(); }

    /** Sends a request with an empty payload and waits for its response. */
    public Response sendRecv(int type) throws IOException {
        return sendRecv(type, MemorySegment.NULL, 0, 0);
    }

    public Response sendRecv(int type, MemorySegment payload) throws IOException {
        return sendRecv(type, payload, 0, payload.byteSize());
    }

    /**
     * Sends a request and returns its response; a non-zero status throws {@link ApiException}, a
     * payload shorter than the type's declared minimum throws EMSGSIZE.
     */
    public Response sendRecv(int type, MemorySegment payload, long offset, long length) throws IOException {
        // With io_uring, the request's send goes out with the receive of its answer: one io_uring_enter.
        if (!RoundTripEvent.PROBE.isEnabled()) return recv(type, queue(type, payload, offset, length));
        RoundTripEvent e = new RoundTripEvent();
        e.begin();
        int status = -1;
        try {
            Response r = recv(type, queue(type, payload, offset, length));
            status = 0;
            e.responseBytes = r.length();
            return r;
        } catch (ApiException x) {
            status = x.status();
            throw x;
        } finally {
            e.end();
            if (e.shouldCommit()) {
                e.socket = socket.name();
                e.type = type;
                e.typeName = specs.name(type);
                e.requestBytes = length;
                e.status = status;
                e.commit();
            }
        }
    }

    /** Sends a request without waiting; returns its id, for {@link #recv(int, int)}. */
    public int send(int type, MemorySegment payload, long offset, long length) throws IOException {
        int id = queue(type, payload, offset, length);
        try {
            link.flush();
        } catch (ErrnoException e) {
            throw breakWith(e);
        }
        return id;
    }

    /** Writes a request to the link: sent (epoll), or queued until the next receive or flush (io_uring). */
    private int queue(int type, MemorySegment payload, long offset, long length) throws IOException {
        usable();
        if (length < 0 || length > GroutApi.MAX_MSG_LEN) {
            throw new ErrnoException(specs.name(type), Errno.EMSGSIZE,
                    "request payload of " + length + " bytes, GR_API_MAX_MSG_LEN is " + GroutApi.MAX_MSG_LEN);
        }
        int id = nextId();
        RequestHeader.write(requestHeader, 0, id, type, (int) length);
        try {
            writer.write(requestHeader, 0, RequestHeader.SIZE, payload, offset, length);
        } catch (ErrnoException e) {
            throw breakWith(e);
        }
        return id;
    }

    /** The next request id (1..0xffff, wrapping). */
    int nextId() {
        int id = lastId == MessageReader.MAX_ID ? 1 : lastId + 1;
        lastId = id;
        // A response for this id that came before the request (unsolicited, or from before the ids
        // wrapped) does not answer it.
        inbox.issued(id);
        return id;
    }

    /**
     * A pipeline on this client: many requests in flight, sent a batch per syscall, answers taken as
     * they come (see {@link Pipeline}). Thread-confined like the client; one at a time.
     */
    public Pipeline pipeline(PipelineOptions options) throws ErrnoException {
        usable();
        return new Pipeline(this, options);
    }

    /** Waits for the response to request id (of type, for its minimum size). */
    public Response recv(int type, int id) throws IOException {
        usable();
        awaitResponse(id);
        inbox.answered(id);
        checkResponse(type, response, false);
        return response;
    }

    /**
     * Sends a stream request; iterate its responses with {@link ResponseStream#next()}. Closing the
     * stream early drains the rest, so the client stays usable. One stream at a time.
     */
    public ResponseStream stream(int type, MemorySegment payload, long offset, long length) throws IOException {
        int id = queue(type, payload, offset, length);
        stream.open(type, id);
        return stream;
    }

    /** Subscribes this connection to ev_type (or {@link GroutApi#EVENT_ALL}). */
    public void subscribe(int evType, boolean suppressSelfEvents) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment req = MainModulePayloads.subscribe(a, evType, suppressSelfEvents);
            sendRecv(GroutApi.EVENT_SUBSCRIBE, req, 0, req.byteSize());
        }
    }

    /** Removes every subscription of this connection. */
    public void unsubscribe() throws IOException {
        sendRecv(GroutApi.EVENT_UNSUBSCRIBE);
    }

    /** Blocks until an event arrives (or returns one that arrived while a response was awaited). */
    public Event nextEvent() throws IOException {
        usable();
        try {
            inbox.nextEvent(event);
        } catch (ErrnoException e) {
            throw breakWith(e);
        }
        return event;
    }

    /** Events received and not yet taken by {@link #nextEvent()}. */
    public int pendingEvents() {
        if (Thread.currentThread() != owner) throw wrongThread();
        return inbox.eventCount();
    }

    /** The client as its stream cursor sees it. */
    /** The next item of the stream request id (its status is the stream's to check); the terminator ends the request. */
    Response awaitStreamItem(int id) throws IOException {
        usable();
        awaitResponse(id);
        if (response.status() != 0 || response.length() == 0) inbox.answered(id); // the stream's end
        return response;
    }

    /** Fails when a stream item's payload is shorter than type's declared minimum. */
    void checkStreamItem(int type, Response r) throws ErrnoException {
        checkResponse(type, r, true);
    }


    private void awaitResponse(int id) throws ErrnoException {
        try {
            inbox.awaitResponse(id, response);
        } catch (ErrnoException e) {
            throw breakWith(e);
        }
    }

    private void checkResponse(int type, Response r, boolean inStream) throws ApiException, ErrnoException {
        if (r.status() != 0) throw new ApiException(specs.name(type), type, r.status());
        boolean terminator = inStream && r.length() == 0;
        int min = specs.minResponse(type);
        if (r.length() < min && !terminator) {
            throw new ErrnoException(specs.name(type), Errno.EMSGSIZE,
                    "response payload of " + r.length() + " bytes, at least " + min + " expected");
        }
    }

    /** The link, inbox and specs, for this client's pipeline. */
    ClientLink link() { return link; }

    Inbox inbox() { return inbox; }

    MessageSpecs specs() { return specs; }

    /** Fails if the client is broken (also for its pipeline). */
    void usable() throws ErrnoException {
        if (Thread.currentThread() != owner) throw wrongThread();
        if (closed.get()) throw new ErrnoException("client(" + socket.name() + ")", Errno.ENOTCONN, "the client was closed");
        if (broken != null) {
            throw new ErrnoException("client(" + socket.name() + ")", Errno.ENOTCONN,
                    "unusable since: " + broken.getMessage());
        }
    }

    private WrongThreadException wrongThread() {
        return new WrongThreadException("GroutClient(" + socket.name() + ") was used from thread \"" + Thread.currentThread().getName()
                + "\" but is confined to thread \"" + owner.getName() + "\", which connected it: use one GroutClient per thread,"
                + " connected on the thread that uses it, or one SharedGroutClient for all threads");
    }

    /** Marks the client broken by e and returns e (also for its pipeline). */
    ErrnoException breakWith(ErrnoException e) {
        if (broken == null) broken = e;
        return e;
    }

    /** False once a failure left the connection out of step (see the class comment). */
    public boolean isUsable() { return broken == null && socket.isOpen(); }

    /**
     * Closes the socket and frees the client's buffers; from any thread, once (later calls do nothing).
     * Another thread should close a client only when its owner no longer uses it.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        if (ConnectionEvent.ClientClosed.PROBE.isEnabled()) {
            ConnectionEvent.ClientClosed e = new ConnectionEvent.ClientClosed();
            if (e.shouldCommit()) {
                SyscallCounts counts = socket.counters().snapshot();
                e.socket = socket.name();
                e.backend = backend().name().toLowerCase(java.util.Locale.ROOT);
                e.syscalls = counts.total();
                e.syscallsByKind = counts.toString();
                e.commit();
            }
        }
        link.close();
        socket.close();
        if (arena.scope().isAlive()) arena.close();
    }
}
