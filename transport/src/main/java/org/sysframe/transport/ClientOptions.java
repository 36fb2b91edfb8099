package org.sysframe.transport;

import java.util.Objects;

/**
 * Builder of a {@link GroutClient}'s settings; {@link GroutClient#connect} freezes them into a
 * {@link ClientConfig}, so changing a builder after connect changes nothing in the client. Defaults: the socket of
 * {@link GroutApi#defaultSocketPath()}, API version 11, {@link SendFraming#COPY_GATHER} (one send of
 * a copy up to 1024 bytes, one sendmsg above),
 * {@link RecvFraming#READAHEAD} (8192 bytes), no receive timeout, Grout's message sizes, blocking
 * receives, no CPU pinning, the epoll backend (or the one {@code -Dsysframe.backend} names).
 */
public final class ClientOptions {
    private String socketPath = GroutApi.defaultSocketPath();
    private int apiVersion = GroutApi.DEFAULT_API_VERSION;
    private String version = "sysframe";
    private SendFraming send = SendFraming.COPY_GATHER;
    private RecvFraming recv = RecvFraming.READAHEAD;
    private long receiveTimeoutMillis;
    private MessageSpecs specs = MessageSpecs.grout();
    private int socketBufferSize;
    private WaitMode waitMode = WaitMode.BLOCK;
    private int cpu = -1;
    private Backend backend = Backend.configuredDefault();
    private boolean sqpoll;

    public static ClientOptions defaults() { return new ClientOptions(); }

    public ClientOptions socketPath(String path) { this.socketPath = Objects.requireNonNull(path); return this; }

    public ClientOptions apiVersion(int v) { this.apiVersion = v; return this; }

    /** The version string sent in GR_HELLO (at most 127 bytes). */
    public ClientOptions version(String v) {
        if (v.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 127) throw new IllegalArgumentException("version over 127 bytes");
        this.version = v;
        return this;
    }

    public ClientOptions send(SendFraming f) { this.send = Objects.requireNonNull(f); return this; }

    public ClientOptions recv(RecvFraming f) { this.recv = Objects.requireNonNull(f); return this; }

    /** 0: wait forever. Past it a call fails with ETIMEDOUT and the client is no longer usable. */
    public ClientOptions receiveTimeoutMillis(long ms) {
        if (ms < 0) throw new IllegalArgumentException("timeout " + ms);
        this.receiveTimeoutMillis = ms;
        return this;
    }

    /** Message sizes, for the minimum response check; add your own module's messages here. */
    public ClientOptions specs(MessageSpecs s) { this.specs = Objects.requireNonNull(s); return this; }

    /** SO_SNDBUF and SO_RCVBUF of the client socket (0: the kernel's default); small values force partial I/O. */
    public ClientOptions socketBufferSize(int bytes) {
        if (bytes < 0) throw new IllegalArgumentException("buffer " + bytes);
        this.socketBufferSize = bytes;
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
        if (cpu < -1) throw new IllegalArgumentException("cpu " + cpu + ": expected a CPU number, or -1 for none");
        this.cpu = cpu;
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

    /** The settings as they are now, frozen. */
    public ClientConfig freeze() {
        return new ClientConfig(socketPath, apiVersion, version, send, recv, receiveTimeoutMillis, specs, socketBufferSize, waitMode, cpu, backend, sqpoll);
    }

    @Override
    public String toString() { return freeze().toString(); }
}
