package org.sysframe.transport;

import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.MessageSpecs;

import java.util.Objects;
import java.util.Set;

/**
 * Builder of a {@link GroutClient}'s settings; {@link GroutClient#connect} freezes them into a
 * {@link ClientConfig}, so changing a builder after connect changes nothing in the client. Defaults: the socket of
 * {@link GroutApi#defaultSocketPath()}, API version 11, {@link SendFraming#COPY_GATHER} (one send of
 * a copy up to 1024 bytes, one sendmsg above),
 * {@link RecvFraming#READAHEAD} (8192 bytes), receive, connect and send timeouts of 5 s,
 * Grout's message sizes, blocking receives, no CPU pinning, the epoll backend (or the one
 * {@code -Dsysframe.backend} names), and the server checked as {@link #serverUids} says.
 */
public final class ClientOptions {
    /**
     * The default receive timeout: 5 s. A local Grout server answers in microseconds (a slow operation
     * in milliseconds); one that sends nothing for seconds is stopped or stuck, and a client should say
     * so rather than wait until killed. Operations known to take longer need a larger one (or 0).
     */
    public static final long DEFAULT_RECEIVE_TIMEOUT_MILLIS = 5000;

    /** The default connect timeout: 5 s (a connect waits only while the server's listen backlog is full). */
    public static final long DEFAULT_CONNECT_TIMEOUT_MILLIS = 5000;

    /**
     * The default send timeout: 5 s (a send waits only while the server does not read and the socket buffer is full).
     */
    public static final long DEFAULT_SEND_TIMEOUT_MILLIS = 5000;

    private String socketPath = GroutApi.defaultSocketPath();
    private int apiVersion = GroutApi.DEFAULT_API_VERSION;
    private String version = "sysframe";
    private SendFraming send = SendFraming.COPY_GATHER;
    private RecvFraming recv = RecvFraming.READAHEAD;
    private long receiveTimeoutMillis = DEFAULT_RECEIVE_TIMEOUT_MILLIS;
    private long connectTimeoutMillis = DEFAULT_CONNECT_TIMEOUT_MILLIS;
    private long sendTimeoutMillis = DEFAULT_SEND_TIMEOUT_MILLIS;
    private Set<Integer> serverUids;
    private boolean anyServerUid;
    private MessageSpecs specs = MessageSpecs.grout();
    private int socketBufferSize;
    private WaitMode waitMode = WaitMode.BLOCK;
    private int cpu = -1;
    private Backend backend = Backend.configuredDefault();
    private boolean sqpoll;
    private boolean sharedMemory;
    private int maxInFlight = MAX_IN_FLIGHT;
    private int connections = 1;

    /**
     * The most requests a connection can have in flight: its 16-bit request ids, 1..65535 (the default: no cap below
     * it).
     */
    public static final int MAX_IN_FLIGHT = 0xffff;

    /** The most connections one client may keep: {@value}. */
    public static final int MAX_CONNECTIONS = 64;

    /** Made by {@link #defaults()}. */
    private ClientOptions() {}

    /** A new builder holding the defaults listed above. */
    public static ClientOptions defaults() { return new ClientOptions(); }

    /**
     * The server's socket: a file path, or {@code @name} for an abstract name
     * (default {@link GroutApi#defaultSocketPath()}).
     */
    public ClientOptions socketPath(String path) { this.socketPath = Objects.requireNonNull(path); return this; }

    /**
     * The API version sent in GR_HELLO (default {@value GroutApi#DEFAULT_API_VERSION}); a server that speaks
     * another one refuses the connect.
     */
    public ClientOptions apiVersion(int v) { this.apiVersion = v; return this; }

    /** The version string sent in GR_HELLO (at most 127 bytes). */
    public ClientOptions version(String v) {
        this.version = Rules.helloVersion(v);
        return this;
    }

    /** How requests leave (default {@link SendFraming#COPY_GATHER}). */
    public ClientOptions send(SendFraming f) { this.send = Objects.requireNonNull(f); return this; }

    /** How answers and events are read (default {@link RecvFraming#READAHEAD}). */
    public ClientOptions recv(RecvFraming f) { this.recv = Objects.requireNonNull(f); return this; }

    /**
     * How long a receive may wait for the server (default {@value #DEFAULT_RECEIVE_TIMEOUT_MILLIS} ms):
     * for a call's answer, counted from when its request left, and for the rest of a message once it
     * started, in every wait mode and backend. A call whose answer did not come by then fails with
     * ETIMEDOUT and the client stays usable (the late answer is dropped); a message that stopped half-way
     * fails the client with ETIMEDOUT naming what did not come (its stream is out of step). 0: wait
     * forever. {@link GroutClient#nextEvent(java.time.Duration)} waits for an event's start without it
     * (events may be rare), and with it for the rest of the event.
     */
    public ClientOptions receiveTimeoutMillis(long ms) {
        this.receiveTimeoutMillis = Rules.timeoutMillis("timeout", ms);
        return this;
    }

    /**
     * How long connect may wait for the server to take the connection (default
     * {@value #DEFAULT_CONNECT_TIMEOUT_MILLIS} ms): on a Unix socket a connect waits only while the
     * listener's backlog is full (a server that does not accept). Past it connect fails with ETIMEDOUT.
     * 0: wait forever.
     */
    public ClientOptions connectTimeoutMillis(long ms) {
        this.connectTimeoutMillis = Rules.timeoutMillis("connect timeout", ms);
        return this;
    }

    /**
     * How long a send may wait for the server to take a request's bytes (default
     * {@value #DEFAULT_SEND_TIMEOUT_MILLIS} ms): a send waits only while the server reads nothing and the
     * socket buffer is full. Past it the call fails with ETIMEDOUT and the client is no longer usable
     * (part of the request may have left). Both backends; 0: wait forever.
     */
    public ClientOptions sendTimeoutMillis(long ms) {
        this.sendTimeoutMillis = Rules.timeoutMillis("send timeout", ms);
        return this;
    }

    /**
     * The uids a server may run as (SO_PEERCRED, read right after connect, before any byte is sent):
     * another uid fails the connect with EPERM naming the server's uid and pid. Default (null): for
     * an abstract name ({@code @name}, which any process of the network namespace can bind first) the
     * client's own uid or root; for a socket file any uid, because the file's directory decides who
     * could have bound it. Not combined with {@link #anyServerUid}.
     */
    public ClientOptions serverUids(Set<Integer> uids) {
        this.serverUids = uids == null ? null : Set.copyOf(uids);
        return this;
    }

    /** Accepts a server of any uid, abstract names included (off by default). Not combined with {@link #serverUids}. */
    public ClientOptions anyServerUid(boolean any) { this.anyServerUid = any; return this; }

    /** Message sizes, for the minimum response check; add your own module's messages here. */
    public ClientOptions specs(MessageSpecs s) { this.specs = Objects.requireNonNull(s); return this; }

    /** SO_SNDBUF and SO_RCVBUF of the client socket (0: the kernel's default); small values force partial I/O. */
    public ClientOptions socketBufferSize(int bytes) {
        this.socketBufferSize = Rules.socketBufferSize(bytes);
        return this;
    }

    /**
     * How the client waits for an answer (default {@link WaitMode#BLOCK}): spinning trades a busy core
     * and empty recv calls (counted apart) for a shorter wake-up.
     */
    public ClientOptions waitMode(WaitMode mode) { this.waitMode = Objects.requireNonNull(mode); return this; }

    /**
     * Pins the thread that connects (the client's owner: it is thread-confined) to cpu at connect;
     * -1 (the default) leaves it where the scheduler puts it. A CPU outside the allowed set fails the
     * connect with EINVAL naming it.
     */
    public ClientOptions cpu(int cpu) {
        this.cpu = Rules.clientCpu(cpu);
        return this;
    }

    /**
     * Which kernel interface moves the bytes (default {@link Backend#EPOLL}: a syscall per send and per
     * receive). {@link Backend#IO_URING}: a round trip is one io_uring_enter that submits the request
     * and waits for its answer; {@link Backend#AUTO}: io_uring where it is available, else epoll (logged).
     */
    public ClientOptions backend(Backend b) { this.backend = Objects.requireNonNull(b); return this; }

    /**
     * io_uring only: a kernel thread polls the submission queue (IORING_SETUP_SQPOLL), so submitting
     * costs no syscall; it keeps a core busy while the client is active. Off by default (2 cores here).
     */
    public ClientOptions sqpoll(boolean on) { this.sqpoll = on; return this; }

    /**
     * Asks the server for a shared-memory channel after GR_HELLO (off by default): requests, answers
     * and events then go through two rings in a sealed memfd the server passes over the socket, with no
     * syscall per call while both sides spin ({@link #waitMode}); the socket stays open, and its end
     * is how the client learns that the server is gone. A server that does not offer it (Grout's own,
     * or one without {@link ServerOptions#sharedMemory}) answers an error and the client stays on the
     * socket, as does a client on the io_uring backend or on a virtual thread. See docs/shared-memory.md.
     */
    public ClientOptions sharedMemory(boolean on) { this.sharedMemory = on; return this; }

    /**
     * The most requests each connection has on the wire at once, 1..{@value #MAX_IN_FLIGHT} (default: no
     * cap below the request ids). Calls beyond it wait in the client, oldest first, not on the wire: a
     * blocking call parks until an answer makes room (within its receive timeout), a future's request is
     * copied and sent when room comes, a {@link Pipeline}'s {@code queue} answers
     * {@link Pipeline#BACK_PRESSURED}. 1 is what a server that answers one request per socket read needs
     * (Grout's own API server does): see docs/concurrency.md.
     */
    public ClientOptions maxInFlight(int n) { this.maxInFlight = Rules.maxInFlight(n); return this; }

    /**
     * How many connections the client keeps, 1..{@value #MAX_CONNECTIONS} (default 1). Each call goes
     * to a connection with room under {@link #maxInFlight}; with none, to the one whose calls wait least.
     * Each connection says GR_HELLO, has its own request ids, counters and (with {@link #sharedMemory})
     * channel; {@link GroutClient#stats()} sums them. Events and their subscriptions are the first
     * connection's. With several, one that breaks fails only the calls on it and is connected anew by
     * the next call that picks it.
     */
    public ClientOptions connections(int n) { this.connections = Rules.connections(n); return this; }

    /** The settings as they are now, frozen. */
    public ClientConfig freeze() {
        return new ClientConfig(socketPath, apiVersion, version, send, recv, receiveTimeoutMillis, specs,
                socketBufferSize, waitMode, cpu, backend, sqpoll,
                serverUids, anyServerUid, connectTimeoutMillis, sendTimeoutMillis, sharedMemory,
                maxInFlight, connections);
    }

    @Override
    public String toString() { return freeze().toString(); }
}
