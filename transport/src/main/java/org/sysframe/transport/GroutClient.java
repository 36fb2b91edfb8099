package org.sysframe.transport;

import org.sysframe.transport.internal.client.Call;
import org.sysframe.transport.internal.client.Conduit;
import org.sysframe.transport.internal.client.Events;
import org.sysframe.transport.internal.client.MainModulePayloads;
import org.sysframe.transport.internal.client.Multiplexer;
import org.sysframe.transport.internal.client.PipelineRole;
import org.sysframe.transport.internal.io.FdPoller;
import org.sysframe.transport.internal.jfr.Jfr;
import org.sysframe.transport.internal.jfr.RoundTripEvent;
import org.sysframe.transport.internal.shm.ShmClientLink;
import org.sysframe.transport.internal.uring.UringLink;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.MessageSpecs;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.PeerCredentials;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.uring.UringCounts;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReferenceArray;
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
 * <p><b>Servers that answer one request per read</b> (Grout's own API server does) leave all but the
 * first of several requests sent together unanswered: {@link ClientOptions#maxInFlight}(1) keeps one
 * request per connection on the wire, and {@link ClientOptions#connections} gives callers several
 * connections to overlap on. A call that times out in such a stall says so.
 *
 * <p>The steady path of {@link #call} allocates nothing on the Java heap once a thread made its first
 * call; {@link #callAsync} allocates its future and its answer.
 */
public final class GroutClient implements AutoCloseable {
    private final ClientConfig options;
    private final MessageSpecs specs;
    /** The connections; a pooled one that broke is connected anew in its place (under its slot's monitor). */
    private final AtomicReferenceArray<ClientConnection> pool;
    private final Object[] slots;
    /**
     * With a pool, the sum of every connection's counters; null with one connection (its socket's are the client's).
     */
    private final SyscallCounters sum;
    private final ThreadLocal<Mine> mine = ThreadLocal.withInitial(Mine::new);
    private final String name;
    private final RoundTrips trips;
    private volatile boolean closed;
    /** A pool of epoll connections: its one I/O thread (null: a standby thread per connection, when one is needed). */
    private Multiplexer mux;

    /** A thread's own call and views of its answers, and the connection it used last. */
    private static final class Mine {
        Call call = Call.of(Call.Kind.BLOCKING);
        final Response response = new Response();
        final Event event = new Event();
        int home;
    }

    private GroutClient(ClientConfig options, ClientConnection first, SyscallCounters sum) {
        this.options = options;
        this.specs = options.specs();
        this.sum = sum;
        this.pool = new AtomicReferenceArray<>(options.connections());
        this.slots = new Object[options.connections()];
        for (int i = 0; i < slots.length; i++) slots[i] = new Object();
        this.pool.set(0, first);
        this.name = first.socket.name();
        this.trips = new RoundTrips(name, first.backendName, first.transportName, specs);
    }

    /**
     * Connects to options' socket and performs GR_HELLO (and, with {@link ClientOptions#sharedMemory},
     * asks for the channel), on each of {@link ClientOptions#connections} connections. Failures say what
     * to check: no socket file, a path that is not a socket, a refused API version (EBADMSG), a server
     * that closed right after connect (a uid it does not admit).
     */
    public static GroutClient connect(ClientOptions builder) throws IOException {
        ClientConfig options = builder.freeze();
        Jfr.watch();
        SyscallCounters sum = options.connections() > 1 ? SyscallCounters.summing("client " + options.socketPath())
                : null;
        GroutClient c = new GroutClient(options, ClientConnection.open(options, sum, AsyncCall::complete), sum);
        try {
            for (int i = 1; i < options.connections(); i++) c.pool.set(i,
                    ClientConnection.open(options, sum, AsyncCall::complete));
            c.multiplex();
            return c;
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /**
     * A pool of connections that all move their bytes with epoll over the socket and read ahead gets one I/O
     * thread for all of them (see {@link Multiplexer}).
     */
    private void multiplex() {
        if (slots.length == 1 || options.sharedMemory()) return;
        for (int i = 0; i < slots.length; i++) if (!pool.get(i).multiplexable()) return;
        mux = new Multiplexer(name, slots.length, sum);
        for (int i = 0; i < slots.length; i++) mux.attach(i, pool.get(i).conduit);
    }

    /** Connects to the server at path, with {@link ClientOptions#defaults()} otherwise. */
    public static GroutClient connect(String path) throws IOException {
        return connect(ClientOptions.defaults().socketPath(path));
    }

    /**
     * The connection a call of this thread goes to: the one it used last while that one has nothing in
     * flight, else the one with the fewest calls in flight or waiting (the last used on a tie); a broken
     * one counts as idle and is connected anew (see {@link ClientOptions#connections}).
     */
    private ClientConnection pick(Mine m) throws IOException {
        int n = slots.length;
        if (n == 1) return pool.get(0);
        int best = m.home;
        int least = load(pool.get(best));
        for (int k = 1; k < n && least > 0; k++) {
            int i = (m.home + k) % n;
            int load = load(pool.get(i));
            if (load < least) {
                least = load;
                best = i;
            }
        }
        m.home = best;
        return connection(best);
    }

    private static int load(ClientConnection c) { return c.conduit.endedHint() ? 0 : c.conduit.load(); }

    /**
     * Connection i; with a pool, one that broke is closed and connected anew first (its calls failed
     * with the error that broke it). Never more than {@link ClientOptions#connections} are open.
     */
    private ClientConnection connection(int i) throws IOException {
        ClientConnection c = pool.get(i);
        if (slots.length == 1 || !c.conduit.endedHint() || closed) return c;
        synchronized (slots[i]) {
            c = pool.get(i);
            if (!c.broken() || closed) return c;
            c.close();
            ClientConnection fresh = ClientConnection.open(options, sum, AsyncCall::complete);
            pool.set(i, fresh);
            if (mux != null) mux.attach(i, fresh.conduit);
            if (closed) fresh.close(); // closed meanwhile: the caller gets ENOTCONN from it
            return fresh;
        }
    }

    /** The first connection: events and their subscriptions, the server's credentials, hello's result. */
    private ClientConnection first() throws IOException { return connection(0); }

    /**
     * Whether requests go through a shared-memory channel ({@link ClientOptions#sharedMemory}) rather than the socket.
     */
    public boolean sharedMemory() { return pool.get(0).link instanceof ShmClientLink; }

    /** What the server said in its GR_HELLO response; -1 when it answered without it (older servers). */
    public int maxIfaces() { return pool.get(0).maxIfaces(); }

    /** The settings this client runs with. */
    public ClientConfig config() { return options; }

    /** The server process as the kernel recorded it (SO_PEERCRED): its pid, uid and gid. */
    public PeerCredentials serverCredentials() throws ErrnoException {
        return pool.get(0).socket.peerCredentials();
    }

    /**
     * Every syscall this client made on its connections, by kind, whichever thread made it (live): with
     * {@link ClientOptions#connections} over 1, the sum of {@link #connectionCounters()} (replaced
     * connections' included) and of {@link #ioThreadCounts()}.
     */
    public SyscallCounters counters() { return sum != null ? sum : pool.get(0).socket.counters(); }

    /**
     * The syscalls of a pool's one I/O thread (epoll connections; see {@link ClientOptions#connections}): its
     * {@code epoll_wait} over the connections, and its wake-ups through an eventfd (a {@code write} by the thread
     * that queued work while it slept, a {@code read} by it). Part of {@link #counters()}, in no connection's; zero
     * with one connection. ({@code read} and {@code write} are not kinds of
     * {@link org.sysframe.unix.SyscallKind#LIBRARY}: the kernel's per-thread count does not check them.)
     */
    public SyscallCounts ioThreadCounts() { return mux != null ? mux.counts() : SyscallCounts.ZERO; }

    /**
     * Each connection's own counters, in pool order (the connections open now); with a pool's I/O thread, see
     * {@link #ioThreadCounts()}.
     */
    public List<SyscallCounters> connectionCounters() {
        List<SyscallCounters> all = new ArrayList<>(slots.length);
        for (int i = 0; i < slots.length; i++) all.add(pool.get(i).socket.counters());
        return List.copyOf(all);
    }

    /**
     * The epoll_wait calls of the JVM's one poller thread ({@code sysframe-poller}), where virtual
     * threads of every client park while they wait: cumulative, JVM-wide, zero before its first use.
     */
    public static SyscallCounts pollerCounts() { return FdPoller.countsIfStarted(); }

    /**
     * The backend this client runs on: {@link Backend#EPOLL} or {@link Backend#IO_URING} (AUTO resolved at connect).
     */
    public Backend backend() { return pool.get(0).link instanceof UringLink ? Backend.IO_URING : Backend.EPOLL; }

    /** With the io_uring backend, the first connection's SQEs by opcode and its CQEs so far (zero with epoll). */
    public UringCounts uringCounts() { return pool.get(0).link.uringCounts(); }

    /**
     * The calls, batches, dropped answers, events, failures and bytes so far, summed over the connections (the largest
     * batch: the largest of any).
     */
    public ClientStats stats() {
        long[] t = new long[13];
        for (int i = 0; i < slots.length; i++) {
            long[] c = pool.get(i).conduit.counts();
            for (int k = 0; k < t.length; k++) t[k] = k == 2 || k == 3 ? Math.max(t[k], c[k]) : t[k] + c[k];
        }
        return new ClientStats(t[0], t[1], t[2], t[3], t[4], t[5], (int) t[6], t[7], t[8], t[9], t[10], t[11], t[12]);
    }

    /**
     * The Linux thread id of the first connection's own thread, {@code sysframe-client(<socket>)} (for
     * {@link org.sysframe.unix.KernelSyscallCounter#forThread(int)}): started by the first
     * {@link #callAsync} or {@link #onEvent} on it; 0 before. A pool of epoll connections has one such thread
     * for all of them (its event listener aside): then its id, until a listener starts the first connection's own.
     * (A pool on io_uring or over shared memory: each connection has its own.)
     */
    public int clientThreadId() { return pool.get(0).conduit.standby().tid(); }

    /**
     * False after {@link #close()}; with one connection, also once a failure broke it (a pool connects a
     * broken one anew).
     */
    public boolean isUsable() {
        if (closed) return false;
        if (slots.length > 1) return true;
        ClientConnection c = pool.get(0);
        return c.conduit.isUsable() && c.socket.isOpen();
    }

    // ---------------------------------------------------------------- calls

    /**
     * Sends a request with an empty payload and waits for its answer (see
     * {@link #call(int, MemorySegment, long, long)}).
     */
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
        ClientConnection cn = pick(m);
        if (!Jfr.roundTrip()) {
            run(cn, m, type, payload, offset, length);
            return finish(m, type);
        }
        RoundTripEvent e = new RoundTripEvent();
        e.begin();
        int status = -1;
        try {
            run(cn, m, type, payload, offset, length);
            Response r = finish(m, type);
            status = 0;
            e.responseBytes = r.length();
            return r;
        } catch (ApiException x) {
            status = x.status();
            throw x;
        } finally {
            e.end();
            trips.record(e, "call", type, length, status, Thread.currentThread());
        }
    }

    private static void run(ClientConnection cn, Mine m, int type, MemorySegment payload, long offset,
            long length) throws ErrnoException {
        Call c = m.call;
        try {
            cn.conduit.call(c, type, payload, offset, length);
        } catch (ErrnoException | RuntimeException e) {
            if (c.kind() == Call.Kind.BLOCKING && !c.failed() && c.id() != 0 && c.status() == 0 && c.length() == 0) {
                // Abandoned (timeout, interrupt): its id stays taken until its late answer comes, so the thread takes a
                // new call.
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
            throw new ErrnoException(specs.name(type), Errno.EINVAL,
                    "a stream request has several answers: use stream(), not call()");
        }
    }

    private void check(int type, Response r) throws ApiException, ErrnoException { check(specs, type, r); }

    /** ApiException for a non-zero status; EMSGSIZE for a payload shorter than the type's declared minimum. */
    static void check(MessageSpecs specs, int type, Response r) throws ApiException, ErrnoException {
        if (r.status() != 0) throw new ApiException(specs.name(type), type, r.status());
        int min = specs.minResponse(type);
        if (r.length() < min) {
            throw new ErrnoException(specs.name(type), Errno.EMSGSIZE,
                    "response payload of " + r.length() + " bytes, at least " + min + " expected");
        }
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
    public CompletableFuture<Response> callAsync(int type, MemorySegment payload, long offset,
            long length) throws IOException {
        checkLength(type, length);
        return new AsyncCall(pick(mine.get()).conduit, trips, specs, type, length).send(payload, offset, length);
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
        Conduit conduit = pick(mine.get()).conduit;
        ResponseStream s = new ResponseStream(this, conduit, type, c, length);
        conduit.call(c, type, payload, offset, length);
        return s;
    }

    void recordStream(RoundTripEvent e, int type, long requestBytes, int status) {
        trips.record(e, "stream", type, requestBytes, status, Thread.currentThread());
    }

    MessageSpecs specs() { return specs; }

    /**
     * A pipeline on this client: many requests in flight from one thread, sent a batch per syscall,
     * answers taken as they come (see {@link Pipeline}). While it is open, its thread does the
     * client's I/O: other threads' calls go out with its flushes and their answers come in with its
     * polls.
     */
    public Pipeline pipeline(PipelineOptions options) throws IOException {
        ClientConnection cn = pick(mine.get());
        PipelineRole role = new PipelineRole(cn.conduit);
        role.acquire();
        try {
            return new Pipeline(this, cn.conduit, role, cn.link, cn.reader, cn.socket.counters(), options);
        } catch (RuntimeException | Error e) {
            role.release();
            throw e;
        }
    }

    void recordPipelined(int type, long responseBytes, int status, long latencyNanos) {
        if (!Jfr.roundTrip()) return;
        RoundTripEvent e = new RoundTripEvent();
        e.responseBytes = responseBytes;
        e.latency = latencyNanos; // its duration is 0: recorded with a threshold of 0 ms (docs/observability.md)
        trips.record(e, "pipeline", type, 0, status, Thread.currentThread());
    }

    // ---------------------------------------------------------------- events

    /**
     * Subscribes the client (its first connection, which takes the events) to ev_type (or {@link GroutApi#EVENT_ALL}).
     */
    public void subscribe(int evType, boolean suppressSelfEvents) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment req = MainModulePayloads.subscribe(a, evType, suppressSelfEvents);
            onFirst(GroutApi.EVENT_SUBSCRIBE, req);
        }
    }

    /** Removes every subscription of the client. */
    public void unsubscribe() throws IOException {
        onFirst(GroutApi.EVENT_UNSUBSCRIBE, MemorySegment.NULL);
    }

    /** A call on the first connection, the one whose events the client takes. */
    private void onFirst(int type, MemorySegment payload) throws IOException {
        Mine m = mine.get();
        run(first(), m, type, payload, 0, payload.byteSize());
        finish(m, type);
    }

    /**
     * The oldest event received and not taken yet, or the next one to come within timeout; null when
     * none came by then. The event is this thread's own view, valid until its next event call.
     * IllegalStateException with a listener ({@link #onEvent}), which takes every event.
     */
    public Event nextEvent(Duration timeout) throws IOException {
        noListener();
        long nanos = timeout.toNanos();
        Events.Kept k = first().conduit.events().await(System.nanoTime() + Math.max(0, nanos));
        return k == null ? null : view(k);
    }

    /** The oldest event received and not taken yet, or null; never waits, never reads the socket. */
    public Event pollEvent() {
        noListener();
        Events.Kept k = pool.get(0).conduit.events().poll();
        return k == null ? null : view(k);
    }

    /** Events received and not yet taken. */
    public int pendingEvents() { return pool.get(0).conduit.events().pending(); }

    /**
     * Hands every event from now on to listener, in arrival order, on the client's own thread
     * {@code sysframe-client(<socket>)} (events kept so far included); a listener that throws gets the
     * next event still. The event is valid during the call only. Once set, it stays for the client's life.
     */
    public void onEvent(Consumer<Event> listener) {
        Objects.requireNonNull(listener);
        Event view = new Event();
        pool.get(0).conduit.standby().listen(k -> {
            view.set(k.type(), MemorySegment.ofArray(k.payload()), 0, k.payload().length);
            listener.accept(view);
        });
    }

    private void noListener() {
        if (pool.get(0).conduit.standby().hasListener()) {
            throw new IllegalStateException("GroutClient(" + name
                    + ") hands its events to the listener set by onEvent");
        }
    }

    private Event view(Events.Kept k) {
        Event e = mine.get().event;
        e.set(k.type(), MemorySegment.ofArray(k.payload()), 0, k.payload().length);
        return e;
    }

    /** Callers parked while another does the I/O (tests: none once every call returned). */
    int listedCallers() {
        int n = 0;
        for (int i = 0; i < slots.length; i++) n += pool.get(i).conduit.listedCallers();
        return n;
    }

    /** The first connection's socket descriptor, -1 once closed (tests: when it is closed). */
    int descriptor() { return pool.get(0).socket.fd(); }

    // ---------------------------------------------------------------- close

    /**
     * Fails every waiting call (ENOTCONN, "the client was closed while the call waited"), shuts the
     * socket down and frees the client's memory and descriptors: at once, or as soon as the thread doing
     * its I/O leaves its receive, which the shutdown ends (a future's completion or an event listener that
     * closes the client keeps them until it returns). Until then the descriptor is not closed, so that
     * thread never reaches a file opened meanwhile under the same number. From any thread, once (later
     * calls do nothing).
     */
    @Override
    public void close() {
        closed = true;
        for (int i = 0; i < slots.length; i++) {
            synchronized (slots[i]) {
                ClientConnection c = pool.get(i);
                if (c != null) c.close();
            }
        }
        if (mux != null) mux.stop();
    }
}
