package org.sysframe.bench.peer;

import org.sysframe.transport.Backend;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.Response;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.uring.UringCounts;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * sysframe's own client with the given options.
 */
public final class SysframePeer implements PingPeer {
    private final String name;
    private final ClientOptions options;
    private Arena arena;            // confined to the peer's thread: made in open()
    private MemorySegment payload;
    private GroutClient client;
    private int len;
    private final int type;

    public SysframePeer(String name, ClientOptions options) {
        this(name, options, false);
    }

    /** With ping2, every ping is a GR_PING2 of its fixed 32 bytes (prepare's length is ignored). */
    public SysframePeer(String name, ClientOptions options, boolean ping2) {
        this.name = name;
        this.options = options;
        this.type = ping2 ? GroutApi.PING2 : GroutApi.PING;
    }

    /** The connected client (after open). */
    GroutClient client() { return client; }

    @Override
    public SyscallCounts libraryCounts() { return client.counters().snapshot(); }

    @Override
    public long serverPid() throws ErrnoException { return client.serverCredentials().pid(); }

    @Override
    public SyscallCounts emptyCounts() { return client.counters().emptySnapshot(); }

    @Override
    public String backend() { return client.backend().toString(); }

    @Override
    public String transport() { return client.sharedMemory() ? "shm" : "socket"; }

    @Override
    public UringCounts uringCounts() {
        return client.backend() == Backend.IO_URING ? client.uringCounts() : null;
    }

    @Override public String name() { return name; }

    @Override public String framing() {
        return "FFM send/recv, " + options.freeze().send() + " / " + options.freeze().recv();
    }

    @Override
    public void open(String path) throws IOException {
        arena = Arena.ofConfined();
        payload = arena.allocate(GroutApi.MAX_MSG_LEN);
        client = GroutClient.connect(options.socketPath(path));
    }

    @Override
    public void prepare(int len) {
        this.len = type == GroutApi.PING2 ? GroutApi.PING2_SIZE : len;
        Echo.fill(payload, this.len);
    }

    @Override
    public void ping() throws IOException {
        Response r = client.call(type, payload, 0, len);
        Echo.check(type, payload, len, r.buffer(), r.offset(), r.length());
    }

    /** Closes the connection and its memory (if open); {@link #open} connects again, as for a server started anew. */
    @Override
    public void close() {
        if (client != null) client.close();
        if (arena != null) arena.close();
        client = null;
        arena = null;
    }
}
