package org.sysframe.transport;

import org.sysframe.transport.internal.client.Call;
import org.sysframe.transport.internal.client.ClientConnect;
import org.sysframe.transport.internal.client.Conduit;
import org.sysframe.transport.internal.client.Events;
import org.sysframe.transport.internal.client.MainModulePayloads;
import org.sysframe.transport.internal.client.PipelineRole;
import org.sysframe.transport.internal.epoll.SocketLink;
import org.sysframe.transport.internal.io.ClientLink;
import org.sysframe.transport.internal.io.FdPoller;
import org.sysframe.transport.internal.io.MessagePump;
import org.sysframe.transport.internal.io.MessageReader;
import org.sysframe.transport.internal.io.MessageWriter;
import org.sysframe.transport.internal.jfr.ConnectionEvent;
import org.sysframe.transport.internal.jfr.RoundTripEvent;
import org.sysframe.transport.internal.shm.ShmClient;
import org.sysframe.transport.internal.shm.ShmClientLink;
import org.sysframe.transport.internal.uring.UringLink;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.MessageSpecs;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.PeerCredentials;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.UnixSocket;
import org.sysframe.unix.uring.UringCounts;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * A client of a Grout-style API socket: connects, says GR_HELLO, then sends requests and receives
 * answers and events with the framing, backend ({@link Backend}) and transport (the socket, or the
 * shared-memory channel) chosen in {@link ClientOptions}, frozen at connect. One client serves any
 * number of threads, platform or virtual, at once.
 *
 * <p><b>Calls.</b> {@link #call} sends a request and waits for its answer: a {@link Response}
 * that is the calling thread's own (valid until the same thread's next call on this client).
 * {@link #callAsync} returns a future of an answer the caller owns. {@link #stream} iterates the
 * answers of a stream request; {@link #pipeline} keeps many requests in flight from one thread.
 *
 * <p><b>How the bytes move.</b> One thread at a time does the connection's I/O. A caller that finds
 * nobody doing it sends its request itself (with the send framing) and receives until its answer
 * came, handing every other answer to its caller; then the oldest caller still waiting takes over.
 * A caller that finds another doing the I/O has its request copied into a queue that the other sends
 * in one send before its next receive (a request the queue has no room for is sent by its caller once
 * it holds the role; a future's, or a virtual thread's on the channel, by the holder, from a copy). So a
 * caller alone costs exactly what a thread-confined client would (epoll, one at a time: one
 * {@code sendto} and one {@code recvfrom} per call; io_uring: one {@code io_uring_enter}; the
 * channel spinning: no syscall), and many callers share sends and receives. Futures are received
 * for by whoever does the I/O, or by the client's own thread, {@code sysframe-client(<socket>)}.
 *
 * <p><b>No carrier pinning.</b> A virtual thread never blocks in the kernel: it parks while it waits
 * for its answer, and its own receives and sends wait in the JVM's poller. On the shared-memory
 * channel a virtual thread does no I/O at all: the client's own thread sends and receives for it.
 *
 * <p><b>Bounds.</b> A call waits at most the receive timeout (ETIMEDOUT; the client stays usable, the
 * late answer is dropped and counted, never handed to another call); an interrupt ends the wait with
 * EINTR the same way. A failure that leaves the byte stream out of step (EOF, a send timeout, a
 * payload_len over 128 KiB) fails every waiting call with it and breaks the client: later calls fail
 * with ENOTCONN naming it. {@link #close()} may be called from any thread; it fails the waiting calls
 * and frees the descriptor and memory once. Request ids run 1..0xffff: at most 65535 calls in flight.
 *
 * <p>The steady path of {@link #call} allocates nothing on the Java heap once a thread made its first
 * call; {@link #callAsync} allocates its future and its answer.
 */
public final class GroutClient implements AutoCloseable {
    private final ClientConfig options;
    private final MessageSpecs specs;
    private final Arena arena = Arena.ofShared();
    private final UnixSocket socket;
    private final ClientLink link;
    private final Conduit conduit;
    private final MessageReader reader;
    private final ThreadLocal<Mine> mine = ThreadLocal.withInitial(Mine::new);
    private final String backendName;
    private final String transportName;
    private volatile int maxIfaces;
    private final java.util.concurrent.atomic.AtomicBoolean freed = new java.util.concurrent.atomic.AtomicBoolean();

    /** A thread's own call and views of its answers. */
    private static final class Mine {
        Call call = Call.of(Call.Kind.BLOCKING);
        final Response response = new Response();
        final Event event = new Event();
    }

    private GroutClient(ClientConfig options, UnixSocket socket, ClientLink link) {
        this.options = options;
        this.specs = options.specs();
        this.socket = socket;
        this.link = link;
        this.reader = new MessageReader(link, options.recv(), arena, options.receiveTimeoutMillis());
        MessageWriter writer = new MessageWriter(link, options.send(), arena);
        this.conduit = new Conduit(socket.name(), link, writer, new MessagePump(reader), arena, options.receiveTimeoutMillis(), specs,
                this::free);
        this.conduit.router().completion(this::complete);
        this.backendName = link instanceof UringLink ? "io_uring" : "epoll";
        this.transportName = link instanceof ShmClientLink ? "shared memory" : "socket";
    }

    private static ClientLink link(ClientConfig options, UnixSocket socket) throws ErrnoException {
        if (options.backend().resolve("client(" + socket.name() + ")") == Backend.EPOLL) {
            return new SocketLink(socket, options.waitMode(), options.receiveTimeoutMillis(), options.sendTimeoutMillis());
        }
        return new UringLink(socket, options.waitMode(), options.receiveTimeoutMillis(), options.sendTimeoutMillis(), options.sqpoll());
    }

    /**
     * Connects to options' socket and performs GR_HELLO (and, with {@link ClientOptions#sharedMemory},
     * asks for the channel). Failures say what to check: no socket file, a path that is not a socket, a
     * refused API version (EBADMSG), a server that closed right after connect (a uid it does not admit).
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
            PeerCredentials server = c.credentialsOrNull();
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
            Mine m = mine.get();
            conduit.call(m.call, GroutApi.HELLO, req, 0, req.byteSize());
            Response r = view(m);
            if (r.status() == Errno.EBADMSG) {
                throw ClientConnect.refusedVersion(options.apiVersion(), MainModulePayloads.serverVersion(r));
            }
            check(GroutApi.HELLO, r);
            maxIfaces = MainModulePayloads.maxIfaces(r);
        }
    }

    /**
     * Asks for a shared-memory channel (nothing is in flight right after GR_HELLO): a client over it
     * that takes this one's place (same socket, hello result), or this one when the server answered an
     * error or the backend is io_uring.
     */
    private GroutClient overSharedMemory() throws IOException {
        if (backend() != Backend.EPOLL) return this;
        ClientLink shm;
        try {
            shm = ShmClient.negotiate(options, socket, SHM_OPEN_ID);
        } catch (ErrnoException e) {
            close();
            throw e;
        }
        if (shm == null) return this;
        GroutClient s = new GroutClient(options, socket, shm);
        s.maxIfaces = maxIfaces;
        // This client's memory goes; the socket stays with the new one.
        conduit.close(() -> { });
        return s;
    }

    /** SHM_OPEN's request id: nothing is in flight after GR_HELLO (id 1), and the client over the channel starts its ids anew. */
    private static final int SHM_OPEN_ID = 2;

    /** The memory goes once close() happened and no thread uses it any more. */
    private void free() {
        if (!freed.compareAndSet(false, true)) return;
        link.close();
        if (arena.scope().isAlive()) arena.close();
    }

    /** Whether requests go through a shared-memory channel ({@link ClientOptions#sharedMemory}) rather than the socket. */
    public boolean sharedMemory() { return link instanceof ShmClientLink; }

    /** What the server said in its GR_HELLO response; -1 when it answered without it (older servers). */
    public int maxIfaces() { return maxIfaces; }

    /** The settings this client runs with. */
    public ClientConfig config() { return options; }

    /** The server process as the kernel recorded it (SO_PEERCRED): its pid, uid and gid. */
    public PeerCredentials serverCredentials() throws ErrnoException {
        return socket.peerCredentials();
    }

    private PeerCredentials credentialsOrNull() {
        try {
            return socket.peerCredentials();
        } catch (ErrnoException e) {
            return null;
        }
    }

    /** Every syscall this client made on its connection, by kind, whichever thread made it (live). */
    public SyscallCounters counters() { return socket.counters(); }

    /**
     * The epoll_wait calls of the JVM's one poller thread ({@code sysframe-poller}), where virtual
     * threads of every client park while they wait: cumulative, JVM-wide, zero before its first use.
     */
    public static SyscallCounts pollerCounts() { return FdPoller.countsIfStarted(); }

    /** The backend this client runs on: {@link Backend#EPOLL} or {@link Backend#IO_URING} (AUTO resolved at connect). */
    public Backend backend() { return link instanceof UringLink ? Backend.IO_URING : Backend.EPOLL; }

    /** With the io_uring backend, the SQEs by opcode and the CQEs so far (zero with epoll). */
    public UringCounts uringCounts() { return link.uringCounts(); }

    /** The calls, batches, dropped answers and events so far. */
    public ClientStats stats() {
        long[] c = conduit.counts();
        return new ClientStats(c[0], c[1], c[2], c[3], c[4], c[5], (int) c[6], c[7], c[8]);
    }

    /**
     * The Linux thread id of the client's own thread, {@code sysframe-client(<socket>)} (for
     * {@link org.sysframe.unix.KernelSyscallCounter#forThread(int)}): started by the first
     * {@link #callAsync} or {@link #onEvent}; 0 before.
     */
    public int clientThreadId() { return conduit.standby().tid(); }

    /** False once a failure broke the connection, or after {@link #close()}. */
    public boolean isUsable() { return conduit.isUsable() && socket.isOpen(); }

    // ---------------------------------------------------------------- calls

    /** Sends a request with an empty payload and waits for its answer (see {@link #call(int, MemorySegment, long, long)}). */
    public Response call(int type) throws IOException {
        return call(type, MemorySegment.NULL, 0, 0);
    }

    /** Sends payload and waits for the answer (see {@link #call(int, MemorySegment, long, long)}). */
    public Response call(int type, MemorySegment payload) throws IOException {
        return call(type, payload, 0, payload.byteSize());
    }

    /**
     * Sends a request and waits for its answer, returned as this thread's own view, valid until this
     * thread's next call on this client. A non-zero status throws {@link ApiException}; a payload
     * shorter than the type's declared minimum throws EMSGSIZE; no answer within the receive timeout
     * ETIMEDOUT. The payload may be on the heap or native; it is not kept after the call.
     */
    public Response call(int type, MemorySegment payload, long offset, long length) throws IOException {
        checkLength(type, length);
        Mine m = mine.get();
        if (!RoundTripEvent.PROBE.isEnabled()) {
            run(m, type, payload, offset, length);
            return finish(m, type);
        }
        RoundTripEvent e = new RoundTripEvent();
        e.begin();
        int status = -1;
        try {
            run(m, type, payload, offset, length);
            Response r = finish(m, type);
            status = 0;
            e.responseBytes = r.length();
            return r;
        } catch (ApiException x) {
            status = x.status();
            throw x;
        } finally {
            e.end();
            record(e, "call", type, length, status, Thread.currentThread());
        }
    }

    private void run(Mine m, int type, MemorySegment payload, long offset, long length) throws ErrnoException {
        Call c = m.call;
        try {
            conduit.call(c, type, payload, offset, length);
        } catch (ErrnoException | RuntimeException e) {
            if (c.kind() == Call.Kind.BLOCKING && !c.failed() && c.id() != 0 && c.status() == 0 && c.length() == 0) {
                // Abandoned (timeout, interrupt): its id stays taken until its late answer comes, so the thread takes a new call.
                m.call = Call.of(Call.Kind.BLOCKING);
            }
            throw e;
        }
    }

    private Response finish(Mine m, int type) throws IOException {
        Response r = view(m);
        check(type, r);
        return r;
    }

    private Response view(Mine m) {
        Call c = m.call;
        m.response.set(c.id(), c.status(), c.answer(), 0, c.length());
        return m.response;
    }

    private void checkLength(int type, long length) throws ErrnoException {
        if (length < 0 || length > GroutApi.MAX_MSG_LEN) {
            throw new ErrnoException(specs.name(type), Errno.EMSGSIZE,
                    "request payload of " + length + " bytes, GR_API_MAX_MSG_LEN is " + GroutApi.MAX_MSG_LEN);
        }
        if (specs.isStream(type)) {
            throw new ErrnoException(specs.name(type), Errno.EINVAL, "a stream request has several answers: use stream(), not call()");
        }
    }

    private void check(int type, Response r) throws ApiException, ErrnoException {
        if (r.status() != 0) throw new ApiException(specs.name(type), type, r.status());
        int min = specs.minResponse(type);
        if (r.length() < min) {
            throw new ErrnoException(specs.name(type), Errno.EMSGSIZE,
                    "response payload of " + r.length() + " bytes, at least " + min + " expected");
        }
    }

    private void record(RoundTripEvent e, String call, int type, long requestBytes, int status, Thread caller) {
        if (!e.shouldCommit()) return;
        e.socket = socket.name();
        e.call = call;
        e.caller = caller;
        e.type = String.format("0x%08x", type);
        e.typeName = specs.name(type);
        e.backend = backendName;
        e.transport = transportName;
        e.requestBytes = requestBytes;
        e.status = status;
        e.commit();
    }

    /** As {@link #callAsync(int, MemorySegment, long, long)} with an empty payload. */
    public CompletableFuture<Response> callAsync(int type) throws IOException {
        return callAsync(type, MemorySegment.NULL, 0, 0);
    }

    /** As {@link #callAsync(int, MemorySegment, long, long)} with the whole of payload. */
    public CompletableFuture<Response> callAsync(int type, MemorySegment payload) throws IOException {
        return callAsync(type, payload, 0, payload.byteSize());
    }

    /**
     * Sends a request and returns a future of its answer, a {@link Response} the caller owns (a copy).
     * It fails as {@link #call} would, with the same exceptions; past the receive timeout with
     * ETIMEDOUT. The request is sent (or copied) before this returns: the payload may change after.
     * The future completes on the thread that received the answer (a caller of this client, or its
     * own thread): dependent stages that block (another call of this client, say) must be *Async ones.
     */
    public CompletableFuture<Response> callAsync(int type, MemorySegment payload, long offset, long length) throws IOException {
        checkLength(type, length);
        conduit.standby().start();
        Answer f = new Answer(type, length, Thread.currentThread());
        Call c = f.call;
        conduit.send(c, type, payload, offset, length);
        f.id = c.id();
        long timeout = conduit.receiveTimeoutNanos();
        if (timeout <= 0) return f;
        return f.orTimeout(timeout, TimeUnit.NANOSECONDS).handle((v, t) -> {
            if (t == null) return v;
            Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
            if (cause instanceof TimeoutException) {
                f.abandon();
                throw new CompletionException(new ErrnoException(specs.name(type), Errno.ETIMEDOUT, "no answer to request " + f.id
                        + " within the receive timeout of " + options.receiveTimeoutMillis() + " ms (the client stays usable; a late answer is dropped)"));
            }
            throw t instanceof CompletionException ce ? ce : new CompletionException(t);
        });
    }

    /** A future's answer: completed by the router with a copy of the call's answer. */
    private final class Answer extends CompletableFuture<Response> {
        final Call call = Call.of(Call.Kind.FUTURE);
        final int type;
        final long requestBytes;
        final Thread caller;
        final RoundTripEvent event;
        volatile int id;

        Answer(int type, long requestBytes, Thread caller) {
            this.type = type;
            this.requestBytes = requestBytes;
            this.caller = caller;
            this.event = RoundTripEvent.PROBE.isEnabled() ? new RoundTripEvent() : null;
            if (event != null) event.begin();
            call.attach(this);
        }

        void abandon() { conduit.abandon(call); }
    }

    /** The router completes a future's call (its answer copied in, or its error). */
    private void complete(Call c) {
        Answer f = (Answer) c.attachment();
        f.id = c.id();
        int status = -1;
        try {
            if (c.failed()) {
                f.completeExceptionally(c.error());
                return;
            }
            Response r = new Response();
            byte[] copy = c.answer().asSlice(0, c.length()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            r.set(c.id(), c.status(), MemorySegment.ofArray(copy), 0, copy.length);
            try {
                check(f.type, r);
                status = 0;
                f.complete(r);
            } catch (ApiException e) {
                status = e.status();
                f.completeExceptionally(e);
            } catch (ErrnoException e) {
                f.completeExceptionally(e);
            }
        } finally {
            if (f.event != null) {
                f.event.end();
                f.event.responseBytes = c.length();
                record(f.event, "async", f.type, f.requestBytes, status, f.caller);
            }
        }
    }

    // ---------------------------------------------------------------- streams and pipelines

    /**
     * Sends a stream request; iterate its answers with {@link ResponseStream#next()} on this thread.
     * Closing the stream early drains the rest.
     */
    public ResponseStream stream(int type, MemorySegment payload, long offset, long length) throws IOException {
        if (length < 0 || length > GroutApi.MAX_MSG_LEN) {
            throw new ErrnoException(specs.name(type), Errno.EMSGSIZE,
                    "request payload of " + length + " bytes, GR_API_MAX_MSG_LEN is " + GroutApi.MAX_MSG_LEN);
        }
        Call c = Call.of(Call.Kind.STREAM);
        ResponseStream s = new ResponseStream(this, type, c, length);
        conduit.call(c, type, payload, offset, length);
        return s;
    }

    /** The stream's next item into its call (waiting within the receive timeout); false once the stream ended. */
    boolean nextItem(Call c) throws ErrnoException {
        return conduit.nextItem(c);
    }

    void recordStream(RoundTripEvent e, int type, long requestBytes, int status) {
        record(e, "stream", type, requestBytes, status, Thread.currentThread());
    }

    MessageSpecs specs() { return specs; }

    /**
     * A pipeline on this client: many requests in flight from one thread, sent a batch per syscall,
     * answers taken as they come (see {@link Pipeline}). While it is open, its thread does the
     * client's I/O: other threads' calls go out with its flushes and their answers come in with its
     * polls.
     */
    public Pipeline pipeline(PipelineOptions options) throws ErrnoException {
        PipelineRole role = new PipelineRole(conduit);
        role.acquire();
        try {
            return new Pipeline(this, conduit, role, link, reader, options);
        } catch (RuntimeException | Error e) {
            role.release();
            throw e;
        }
    }

    void recordPipelined(int type, long responseBytes, int status, long latencyNanos) {
        if (!RoundTripEvent.PROBE.isEnabled()) return;
        RoundTripEvent e = new RoundTripEvent();
        e.responseBytes = responseBytes;
        e.latency = latencyNanos; // its duration is 0: recorded with a threshold of 0 ms (docs/observability.md)
        record(e, "pipeline", type, 0, status, Thread.currentThread());
    }

    // ---------------------------------------------------------------- events

    /** Subscribes this connection to ev_type (or {@link GroutApi#EVENT_ALL}). */
    public void subscribe(int evType, boolean suppressSelfEvents) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment req = MainModulePayloads.subscribe(a, evType, suppressSelfEvents);
            call(GroutApi.EVENT_SUBSCRIBE, req, 0, req.byteSize());
        }
    }

    /** Removes every subscription of this connection. */
    public void unsubscribe() throws IOException {
        call(GroutApi.EVENT_UNSUBSCRIBE);
    }

    /**
     * The oldest event received and not taken yet, or the next one to come within timeout; null when
     * none came by then. The event is this thread's own view, valid until its next event call.
     * IllegalStateException with a listener ({@link #onEvent}), which takes every event.
     */
    public Event nextEvent(Duration timeout) throws IOException {
        noListener();
        long nanos = timeout.toNanos();
        Events.Kept k = conduit.events().await(System.nanoTime() + Math.max(0, nanos));
        return k == null ? null : view(k);
    }

    /** The oldest event received and not taken yet, or null; never waits, never reads the socket. */
    public Event pollEvent() {
        noListener();
        Events.Kept k = conduit.events().poll();
        return k == null ? null : view(k);
    }

    /** Events received and not yet taken. */
    public int pendingEvents() { return conduit.events().pending(); }

    /**
     * Hands every event from now on to listener, in arrival order, on the client's own thread
     * {@code sysframe-client(<socket>)} (events kept so far included); a listener that throws gets the
     * next event still. The event is valid during the call only. Once set, it stays for the client's life.
     */
    public void onEvent(Consumer<Event> listener) {
        java.util.Objects.requireNonNull(listener);
        Event view = new Event();
        conduit.standby().listen(k -> {
            view.set(k.type(), MemorySegment.ofArray(k.payload()), 0, k.payload().length);
            listener.accept(view);
        });
    }

    private void noListener() {
        if (conduit.standby().hasListener()) {
            throw new IllegalStateException("GroutClient(" + socket.name() + ") hands its events to the listener set by onEvent");
        }
    }

    private Event view(Events.Kept k) {
        Event e = mine.get().event;
        e.set(k.type(), MemorySegment.ofArray(k.payload()), 0, k.payload().length);
        return e;
    }

    /** Callers parked while another does the I/O (tests: none once every call returned). */
    int listedCallers() { return conduit.listedCallers(); }

    // ---------------------------------------------------------------- close

    /**
     * Fails every waiting call (ENOTCONN, "the client was closed while the call waited"), closes the
     * socket and frees the client's memory (at once, or as soon as the thread doing its I/O leaves its
     * receive, which the shutdown ends); from any thread, once (later calls do nothing).
     */
    @Override
    public void close() {
        if (ConnectionEvent.ClientClosed.PROBE.isEnabled() && conduit.isUsable()) {
            ConnectionEvent.ClientClosed e = new ConnectionEvent.ClientClosed();
            if (e.shouldCommit()) {
                SyscallCounts counts = socket.counters().snapshot();
                e.socket = socket.name();
                e.backend = backend().name().toLowerCase(Locale.ROOT);
                e.syscalls = counts.total();
                e.syscallsByKind = counts.toString();
                e.commit();
            }
        }
        conduit.close(socket::close);
    }
}
