package org.sysframe.transport;

import java.util.Objects;
import java.util.Set;

/**
 * Settings of a {@link GroutServer}. Defaults: the socket of {@link GroutApi#defaultSocketPath()} with
 * mode 0600, any uid allowed, {@link SendFraming#COPY_GATHER} with {@link FlushMode#DEFERRED} (64 KiB
 * high-water: a batch of one small response is copied and sent once, a larger batch leaves in one
 * writev), API version 11, max_ifaces 1024, an 8 KiB read buffer per connection, and at most
 * 4 MiB of unsent output queued per connection before it is closed as a slow reader.
 */
public final class ServerOptions {
    private String socketPath = GroutApi.defaultSocketPath();
    private int mode = 0600;
    private Set<Integer> allowedUids;
    private boolean allowAnyUid;
    private static final int OWN_UID = org.sysframe.unix.Self.uid();
    private SendFraming send = SendFraming.COPY_GATHER;
    private FlushMode flush = FlushMode.DEFERRED;
    private int highWater = FlushMode.DEFAULT_HIGH_WATER;
    private int apiVersion = GroutApi.DEFAULT_API_VERSION;
    private int maxIfaces = 1024;
    private boolean emptyHelloResponse;
    private int readBuffer = 8192;
    private int maxQueuedOutput = 4 << 20;
    private int backlog = 128;
    private int socketBufferSize;
    private int loops = 1;
    private final HandlerRegistry handlers = new HandlerRegistry();

    public ServerOptions() {
        BuiltinHandlers.registerAll(handlers);
    }

    public static ServerOptions defaults() { return new ServerOptions(); }

    public ServerOptions socketPath(String p) { this.socketPath = Objects.requireNonNull(p); return this; }

    /** File mode of the socket (octal, e.g. 0600); never wider unless asked. Ignored for abstract names. */
    public ServerOptions mode(int m) {
        if ((m & ~0777) != 0) throw new IllegalArgumentException("mode 0" + Integer.toOctalString(m));
        this.mode = m;
        return this;
    }

    /**
     * Only these uids may connect (checked with SO_PEERCRED at accept). When not set (null): on a
     * socket file the file mode decides; on an abstract name, which has no file mode, only the
     * server's own uid may connect.
     */
    public ServerOptions allowedUids(Set<Integer> uids) { this.allowedUids = uids == null ? null : Set.copyOf(uids); return this; }

    /**
     * Admits every uid on an abstract name (which has no file mode: by default only the server's own
     * uid may connect there). Not combined with {@link #allowedUids}.
     */
    public ServerOptions allowAnyUid(boolean any) { this.allowAnyUid = any; return this; }

    public boolean allowAnyUid() { return allowAnyUid; }

    /** Whether a peer of this uid may connect, by the rules of {@link #allowedUids} and {@link #allowAnyUid}. */
    boolean admits(int uid) {
        if (allowAnyUid) return true;
        if (allowedUids == null) return !socketPath.startsWith("@") || uid == OWN_UID;
        return allowedUids.contains(uid);
    }

    /** Who may connect, in one phrase for start-up lines: the file mode, or the uids of an abstract name. */
    public String access() {
        if (allowAnyUid) return socketPath.startsWith("@") ? "abstract name, any uid may connect" : "mode 0" + Integer.toOctalString(mode);
        if (socketPath.startsWith("@")) {
            java.util.SortedSet<Integer> uids = new java.util.TreeSet<>(allowedUids == null ? Set.of(OWN_UID) : allowedUids);
            return "abstract name, no file mode: only uid" + (uids.size() > 1 ? "s " : " ") + joined(uids) + " may connect";
        }
        String m = "mode 0" + Integer.toOctalString(mode);
        return allowedUids == null ? m : m + ", only uid" + (allowedUids.size() > 1 ? "s " : " ") + joined(new java.util.TreeSet<>(allowedUids));
    }

    private static String joined(java.util.SortedSet<Integer> uids) {
        return uids.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(", "));
    }

    public ServerOptions send(SendFraming f) { this.send = Objects.requireNonNull(f); return this; }

    public ServerOptions flush(FlushMode f) { this.flush = Objects.requireNonNull(f); return this; }

    public ServerOptions highWater(int bytes) {
        if (bytes < 1024) throw new IllegalArgumentException("high-water " + bytes);
        this.highWater = bytes;
        return this;
    }

    public ServerOptions apiVersion(int v) { this.apiVersion = v; return this; }

    public ServerOptions maxIfaces(int n) {
        if (n < 0 || n > 0xffff) throw new IllegalArgumentException("max_ifaces " + n);
        this.maxIfaces = n;
        return this;
    }

    /**
     * Answer GR_HELLO with an empty payload instead of {@code u16 max_ifaces}: what Grout servers of
     * older API versions did, and what their clients expect (they fail on a payload they did not ask for).
     */
    public ServerOptions emptyHelloResponse(boolean empty) { this.emptyHelloResponse = empty; return this; }

    public boolean emptyHelloResponse() { return emptyHelloResponse; }

    /** Per-connection read buffer; a request larger than it switches that connection to a 128 KiB one. */
    public ServerOptions readBuffer(int bytes) {
        if (bytes < 64) throw new IllegalArgumentException("read buffer " + bytes);
        this.readBuffer = bytes;
        return this;
    }

    /** Unsent output a connection may have queued before it is closed as a slow reader. */
    public ServerOptions maxQueuedOutput(int bytes) {
        if (bytes < 2 * (GroutApi.MAX_MSG_LEN + EventHeader.SIZE) + highWater) {
            throw new IllegalArgumentException("max queued output " + bytes + " is below two full messages plus the high-water mark");
        }
        this.maxQueuedOutput = bytes;
        return this;
    }

    public ServerOptions backlog(int n) { this.backlog = n; return this; }

    /** Adds a handler for type (replacing a built-in one if the type is GR_PING, say). */
    public ServerOptions handle(int type, int minRequestLen, Handler handler) {
        handlers.register(type, minRequestLen, handler);
        return this;
    }

    /** Adds a handler whose successful answers carry at least minResponseLen bytes (see {@link HandlerRegistry}). */
    public ServerOptions handle(int type, int minRequestLen, int minResponseLen, Handler handler) {
        handlers.register(type, minRequestLen, minResponseLen, handler);
        return this;
    }

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
        if (n < 1 || n > 64) throw new IllegalArgumentException("loops " + n + ": expected 1..64");
        this.loops = n;
        return this;
    }

    public int loops() { return loops; }
    public int socketBufferSize() { return socketBufferSize; }
    public String socketPath() { return socketPath; }
    public int mode() { return mode; }
    public Set<Integer> allowedUids() { return allowedUids; }
    public SendFraming send() { return send; }
    public FlushMode flush() { return flush; }
    public int highWater() { return highWater; }
    public int apiVersion() { return apiVersion; }
    public int maxIfaces() { return maxIfaces; }
    public int readBuffer() { return readBuffer; }
    public int maxQueuedOutput() { return maxQueuedOutput; }
    public int backlog() { return backlog; }
    HandlerRegistry handlers() { return handlers; }

    @Override
    public String toString() {
        return "socket " + socketPath + " (" + access() + "), send " + send + ", flush "
                + flush.name().toLowerCase(java.util.Locale.ROOT) + ", api " + apiVersion;
    }
}
