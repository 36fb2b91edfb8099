package org.sysframe.transport;

import org.sysframe.transport.internal.lookup.TypeTable;
import org.sysframe.transport.internal.server.BuiltinHandlers;
import org.sysframe.transport.internal.server.Routes;
import org.sysframe.transport.internal.shm.ShmSegment;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.MessageSpecs;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * Builder of a {@link GroutServer}'s settings; {@link GroutServer#start} freezes them into a
 * {@link ServerConfig}, so changing a builder after start changes nothing in the running server.
 *
 * <p>Defaults: the socket of {@link GroutApi#defaultSocketPath()} with mode 0600 (an abstract name
 * admits only the server's own uid), {@link SendFraming#COPY_GATHER} with {@link FlushMode#DEFERRED}
 * (64 KiB high-water: a batch of one small response is copied and sent once, a larger batch leaves in
 * one writev), API version 11, max_ifaces 1024, an 8 KiB read buffer per connection, at most 4 MiB of
 * unsent output per connection before it is closed as a slow reader, one event loop that blocks in
 * epoll_wait and is not pinned, the epoll backend, a request timeout of 10 s, no idle timeout, a
 * 64 MiB memory budget for large requests and unsent output across all connections, at most 10
 * warnings of one kind per 10 s (the rest counted in one line), and Grout's
 * built-in messages (GR_HELLO, GR_PING, GR_PING2, GR_EVENT_SUBSCRIBE, GR_EVENT_UNSUBSCRIBE).
 */
public final class ServerOptions {
    private String socketPath = GroutApi.defaultSocketPath();
    private int mode = 0600;
    private Set<Integer> allowedUids;
    private boolean allowAnyUid;
    private SendFraming send = SendFraming.COPY_GATHER;
    private FlushMode flush = FlushMode.DEFERRED;
    private int highWater = FlushMode.DEFAULT_HIGH_WATER;
    private int apiVersion = GroutApi.DEFAULT_API_VERSION;
    private int maxIfaces = 1024;
    private boolean emptyHelloResponse;
    private int sharedMemoryRing;
    private WaitMode sharedMemoryWait;
    private int sharedMemoryChannels = 16;
    private int sharedMemoryChannelsPerUid = 4;
    private int readBuffer = 8192;
    private int maxQueuedOutput = 4 << 20;
    private int backlog = 128;
    private int socketBufferSize;
    private int loops = 1;
    private WaitMode waitMode = WaitMode.BLOCK;
    private Backend backend = Backend.configuredDefault();
    private int[] cpus = new int[0];
    private int maxRequestsPerTurn = 128;
    private int requestsPerRead;
    private Duration requestTimeout = Duration.ofSeconds(10);
    private Duration idleTimeout = Duration.ZERO;
    private long memoryBudget = 64L << 20;
    private int logLines = 10;
    private Duration logInterval = Duration.ofSeconds(10);
    private int uringEntries = 256;
    private int uringCompletions = 512;
    private MessageSpecs specs = MessageSpecs.grout();
    private final TypeTable<Handler> handlers = BuiltinHandlers.table();

    /** Made by {@link #defaults()}. */
    private ServerOptions() {}

    /** A new builder holding the defaults listed above. */
    public static ServerOptions defaults() { return new ServerOptions(); }

    /**
     * The socket to listen on: a file path, or {@code @name} for an abstract name
     * (default {@link GroutApi#defaultSocketPath()}).
     */
    public ServerOptions socketPath(String p) { this.socketPath = Objects.requireNonNull(p); return this; }

    /** File mode of the socket (octal, e.g. 0600); never wider unless asked. Ignored for abstract names. */
    public ServerOptions mode(int m) {
        this.mode = Rules.mode(m);
        return this;
    }

    /**
     * Only these uids may connect (checked with SO_PEERCRED at accept). When not set (null): on a
     * socket file the file mode decides; on an abstract name, which has no file mode, only the
     * server's own uid may connect.
     */
    public ServerOptions allowedUids(Set<Integer> uids) {
        this.allowedUids = uids == null ? null : Set.copyOf(uids); return this;
    }

    /**
     * Admits every uid on an abstract name (which has no file mode: by default only the server's own
     * uid may connect there). Not combined with {@link #allowedUids}.
     */
    public ServerOptions allowAnyUid(boolean any) { this.allowAnyUid = any; return this; }

    /** How responses are handed to the kernel (default {@link SendFraming#COPY_GATHER}). */
    public ServerOptions send(SendFraming f) { this.send = Objects.requireNonNull(f); return this; }

    /** When responses are written (default {@link FlushMode#DEFERRED}). */
    public ServerOptions flush(FlushMode f) { this.flush = Objects.requireNonNull(f); return this; }

    /** Queued output at which a {@link FlushMode#DEFERRED} batch is flushed early (at least 1024 bytes). */
    public ServerOptions highWater(int bytes) {
        this.highWater = Rules.highWater(bytes);
        return this;
    }

    /**
     * The API version this server speaks (default {@value GroutApi#DEFAULT_API_VERSION}): a GR_HELLO with another
     * one is refused with EBADMSG.
     */
    public ServerOptions apiVersion(int v) { this.apiVersion = v; return this; }

    /** The {@code max_ifaces} the server answers GR_HELLO with (0 to 65535). */
    public ServerOptions maxIfaces(int n) {
        this.maxIfaces = Rules.maxIfaces(n);
        return this;
    }

    /**
     * Answer GR_HELLO with an empty payload instead of {@code u16 max_ifaces}: what Grout servers of
     * older API versions did, and what their clients expect (they fail on a payload they did not ask for).
     */
    public ServerOptions emptyHelloResponse(boolean empty) { this.emptyHelloResponse = empty; return this; }

    /** Per-connection read buffer; a request larger than it switches that connection to a 128 KiB one. */
    public ServerOptions readBuffer(int bytes) {
        this.readBuffer = Rules.readBuffer(bytes);
        return this;
    }

    /** Unsent output a connection may have queued before it is closed as a slow reader. */
    public ServerOptions maxQueuedOutput(int bytes) {
        this.maxQueuedOutput = Rules.maxQueuedOutput(bytes, highWater);
        return this;
    }

    /** The listen backlog of the socket (default 128). */
    public ServerOptions backlog(int n) { this.backlog = n; return this; }

    /** SO_SNDBUF and SO_RCVBUF of every accepted socket (0: the kernel's default). */
    public ServerOptions socketBufferSize(int bytes) {
        if (bytes < 0) throw new IllegalArgumentException("buffer " + bytes);
        this.socketBufferSize = bytes;
        return this;
    }

    /**
     * Event-loop threads (default 1). Loop 0 also accepts; each new connection goes to the loop with
     * the fewest connections and stays there.
     */
    public ServerOptions loops(int n) {
        this.loops = Rules.loops(n);
        return this;
    }

    /**
     * How each loop waits for events (default {@link WaitMode#BLOCK}: epoll_wait sleeps). SPIN polls
     * with epoll_wait(0) and never sleeps (a core per loop); SPIN_THEN_BLOCK polls up to its budget
     * after the last event, then sleeps; YIELD polls and yields the CPU between empty polls.
     */
    public ServerOptions waitMode(WaitMode mode) { this.waitMode = Objects.requireNonNull(mode); return this; }

    /**
     * The I/O driver of every loop (default {@link Backend#EPOLL}, or the one {@code -Dsysframe.backend} names).
     * {@link Backend#IO_URING} fails at start, naming the cause in one line, where io_uring is unusable;
     * {@link Backend#AUTO} then falls back to epoll and logs one WARNING line saying so and why.
     */
    public ServerOptions backend(Backend b) { this.backend = Objects.requireNonNull(b); return this; }

    /**
     * The size of each io_uring loop's ring (default 256 SQEs and 512 CQEs; the epoll backend ignores
     * it): sqEntries a power of two from 8 to 32768, cqEntries a power of two from sqEntries to 65536.
     * A full completion queue loses nothing (the kernel keeps the overflow and the loop flushes it,
     * at one more io_uring_enter); a full submission queue is submitted early, at one more too.
     */
    public ServerOptions uringRing(int sqEntries, int cqEntries) {
        Rules.uringRing(sqEntries, cqEntries);
        this.uringEntries = sqEntries;
        this.uringCompletions = cqEntries;
        return this;
    }

    /**
     * Requests one connection may have handled per loop turn (default 128): a client that pipelines
     * thousands cannot hold the loop while others wait; the rest are handled in the next turns.
     */
    public ServerOptions maxRequestsPerTurn(int n) {
        this.maxRequestsPerTurn = Rules.maxRequestsPerTurn(n);
        return this;
    }

    /**
     * For testing clients against Grout's own API server (its main/api.c): handle at most n requests per
     * read of a connection's socket, and keep the rest, already read, until the next read brings bytes
     * (then at most n more, oldest first). Grout's libevent {@code read_cb} handles one request per call
     * and libevent does not call it again for bytes it has buffered already, so a client that sends
     * several requests at once gets one answer, then nothing until it sends more: {@code requestsPerRead(1)}
     * does the same. Default 0: every complete request read is handled. Socket connections only (a
     * shared-memory channel handles every request). The requests kept stay in the connection's
     * {@link #readBuffer(int) read buffer}: once they fill it, a read takes only the room the handled ones
     * left, so a client keeping more than a read buffer of requests unanswered gets answers sooner than
     * from Grout, whose buffer grows.
     */
    public ServerOptions requestsPerRead(int n) {
        this.requestsPerRead = Rules.requestsPerRead(n);
        return this;
    }

    /**
     * How long a started request may take to arrive whole (default 10 s): from its first byte (or from
     * when the server reads again after waiting for the peer to take its answers) to its last. A peer
     * whose request stops short (a slow loris) or dribbles past it has its connection closed, logged.
     * Checked by a timer of the loop that runs only while some connection has a request in part (or
     * holds memory to give back, or an idle timeout is set): precision about a quarter of the timeout
     * (at least 10 ms, at most 1 s).
     */
    public ServerOptions requestTimeout(Duration d) {
        this.requestTimeout = Rules.requestTimeout(d);
        return this;
    }

    /**
     * Closes a connection from which no byte came for this long (logged). Default {@link Duration#ZERO}:
     * off, because a Grout client subscribed to events may rightly stay silent for hours; the request
     * timeout, the per-connection output limit and the memory budget bound a silent peer anyway.
     */
    public ServerOptions idleTimeout(Duration d) {
        this.idleTimeout = Rules.idleTimeout(d);
        return this;
    }

    /**
     * Bytes, across all connections of the server, for large-request input buffers (128 KiB each, taken
     * by a connection whose request is larger than its read buffer) and unsent output (default 64 MiB).
     * At the budget a new large request waits, its connection not read, until memory is given back or
     * its request timeout closes it; output that cannot be queued within it closes its connection.
     */
    public ServerOptions memoryBudget(long bytes) {
        this.memoryBudget = Rules.memoryBudget(bytes);
        return this;
    }

    /**
     * Warnings a peer can provoke (refused uid, GR_HELLO of another version, over-size request, request
     * or idle timeout, slow reader, output over the budget): at most lines of each kind per interval,
     * then one line counting the rest (default 10 per 10 s).
     */
    public ServerOptions logLimit(int lines, Duration interval) {
        Rules.logLimit(lines, interval);
        this.logLines = lines;
        this.logInterval = interval;
        return this;
    }

    /** Pins loop i to {@code cpus[i % cpus.length]} when it starts (none given: not pinned). */
    public ServerOptions cpus(int... cpus) {
        this.cpus = Rules.cpus(cpus);
        return this;
    }

    /** The declared message sizes (the same table a client uses; set it before {@link #handle}, which adds to it). */
    public ServerOptions specs(MessageSpecs s) { this.specs = Objects.requireNonNull(s).copy(); return this; }

    /** Adds a handler for type (replacing a built-in one if the type is GR_PING, say). */
    public ServerOptions handle(int type, int minRequestLen, Handler handler) {
        return handle(type, minRequestLen, 0, handler);
    }

    /**
     * Adds a handler whose requests must carry at least minRequestLen bytes (shorter ones are answered
     * EMSGSIZE, the handler not called) and whose successful answers (stream items included, the empty
     * terminator excepted) must carry at least minResponseLen bytes: a shorter one is a handler bug,
     * answered EIO and logged, so no client ever sees a short payload from us. Both sizes go into
     * {@link #specs}.
     */
    public ServerOptions handle(int type, int minRequestLen, int minResponseLen, Handler handler) {
        if (minRequestLen < 0
                || minRequestLen > GroutApi.MAX_MSG_LEN) throw new IllegalArgumentException("min request "
                        + minRequestLen);
        if (minResponseLen < 0 || minResponseLen
                > GroutApi.MAX_MSG_LEN) throw new IllegalArgumentException("min response " + minResponseLen);
        handlers.put(type, Objects.requireNonNull(handler));
        specs.put(type, minRequestLen, minResponseLen, specs.isStream(type));
        return this;
    }

    /** Who may connect, as the start-up line says it (see {@link ServerConfig#access()}). */
    public String access() { return freeze().access(); }

    /**
     * Offers shared-memory channels (off by default): a sysframe client that asks for one after
     * GR_HELLO gets a sealed memfd holding two rings of ringBytes each (a power of two from 4 KiB to
     * 64 MiB; {@code true} alone: 256 KiB), served by the loop of the client's socket beside its
     * sockets (no thread per channel), on either backend; see docs/shared-memory.md.
     */
    public ServerOptions sharedMemory(boolean on) {
        this.sharedMemoryRing = on ? ShmSegment.DEFAULT_CAPACITY : 0;
        return this;
    }

    /**
     * How each shared-memory channel waits for requests (default: as {@link #waitMode} says for the
     * loops). A loop serving channels waits as the most eager of its own mode and theirs: a channel that
     * spins makes its loop spin while it is open, so with spinning channels the loops may block by
     * themselves.
     */
    public ServerOptions sharedMemoryWaitMode(WaitMode mode) {
        this.sharedMemoryWait = Objects.requireNonNull(mode); return this;
    }

    /**
     * At most n shared-memory channels open at once (default 16): each is a segment and an eventfd, served by a
     * loop, whose bytes are also taken from the {@link #memoryBudget} (with the default 256 KiB rings a segment is
     * 528,384 bytes: 16 of them take 8.1 MiB of the default 64 MiB budget, the rest stays for large
     * requests and queued answers). Past the cap, the {@link #sharedMemoryChannelsPerUid per-uid cap}
     * or the budget, SHM_OPEN is answered EBUSY (logged, rate-limited) and the client stays on the socket.
     * A server whose cap does not fit its budget says so at start.
     */
    public ServerOptions sharedMemoryChannels(int n) {
        this.sharedMemoryChannels = Rules.channels("shared-memory channels", n);
        return this;
    }

    /**
     * At most n shared-memory channels open at once for the connections of one peer uid (default 4), so
     * that one local user cannot take every channel, thread and byte the server has for them.
     */
    public ServerOptions sharedMemoryChannelsPerUid(int n) {
        this.sharedMemoryChannelsPerUid = Rules.channels("shared-memory channels per uid", n);
        return this;
    }

    /** As {@link #sharedMemory(boolean)} on, with rings of ringBytes each. */
    public ServerOptions sharedMemoryRing(int ringBytes) {
        this.sharedMemoryRing = Rules.ring(ringBytes, false);
        return this;
    }

    /** The settings as they are now, frozen. */
    public ServerConfig freeze() {
        return new ServerConfig(socketPath, mode, allowedUids, allowAnyUid, send, flush, highWater, apiVersion,
                maxIfaces,
                emptyHelloResponse, readBuffer, maxQueuedOutput, backlog, socketBufferSize, loops, waitMode, cpus,
                        maxRequestsPerTurn, backend,
                requestTimeout, idleTimeout, memoryBudget, logLines, logInterval, uringEntries, uringCompletions,
                        sharedMemoryRing, sharedMemoryWait, sharedMemoryChannels,
                sharedMemoryChannelsPerUid, requestsPerRead);
    }

    /** The dispatch table as it is now (handlers and their declared sizes), for a server that starts. */
    Routes routes() { return new Routes(handlers, specs); }

    @Override
    public String toString() { return freeze().toString(); }
}
