package org.sysframe.bench.peer;

import org.sysframe.transport.Backend;
import org.sysframe.transport.ClientConfig;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.internal.client.ClientConnect;
import org.sysframe.transport.internal.client.MainModulePayloads;
import org.sysframe.transport.internal.epoll.SocketLink;
import org.sysframe.transport.internal.io.ClientLink;
import org.sysframe.transport.internal.io.MessagePump;
import org.sysframe.transport.internal.io.MessageReader;
import org.sysframe.transport.internal.io.MessageWriter;
import org.sysframe.transport.internal.uring.UringLink;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.UnixSocket;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The client's I/O core with nothing around it, on one thread: the same connect, link (epoll or
 * io_uring), writer, reader and pump the client uses, driven directly, one request at a time, with no
 * lock, no call table, no I/O role and no routing. It is the thread-confined client the one
 * {@code GroutClient} replaced, kept as the measure of what sharing costs a caller alone: the backends
 * table sets the client one caller at a time beside it (same server, same CPU, same syscalls).
 */
public final class ConfinedCorePeer implements PingPeer {
    private static final int ID = 1;

    private final String name;
    private final ClientOptions options;
    private ClientConfig config;
    private Arena arena;
    private UnixSocket socket;
    private ClientLink link;
    private MessageWriter writer;
    private MessagePump pump;
    private MemorySegment header;
    private MemorySegment payload;
    private int len;
    private final Answer answer = new Answer();

    public ConfinedCorePeer(String name, ClientOptions options) {
        this.name = name;
        this.options = options;
    }

    /** What the pump handed over last: the answer's id, status and where its bytes are. */
    private static final class Answer implements MessagePump.Sink {
        int id;
        int status;
        MemorySegment buffer;
        long offset;
        long length;

        @Override
        public void response(int forId, int st, MemorySegment b, long off, long n) {
            id = forId;
            status = st;
            buffer = b;
            offset = off;
            length = n;
        }

        @Override
        public void event(int evType, MemorySegment b, long off, long n) throws ErrnoException {
            throw new ErrnoException("confined core", Errno.EPROTO, "an event, not subscribed to");
        }
    }

    @Override
    public String name() { return name; }

    @Override
    public String framing() { return "the client's I/O core, confined: " + config().send() + " / " + config().recv(); }

    private ClientConfig config() {
        if (config == null) config = options.freeze();
        return config;
    }

    @Override
    public String backend() { return link instanceof UringLink ? "io_uring" : "epoll"; }

    @Override
    public SyscallCounts libraryCounts() { return socket.counters().snapshot(); }

    @Override
    public SyscallCounts emptyCounts() { return socket.counters().emptySnapshot(); }

    @Override
    public long serverPid() throws ErrnoException { return socket.peerCredentials().pid(); }

    @Override
    public void open(String path) throws IOException {
        config = options.socketPath(path).freeze();
        arena = Arena.ofConfined();
        try {
            socket = ClientConnect.open(config, null);
            link = config.backend() == Backend.IO_URING
                    ? new UringLink(socket, config.waitMode(), config.receiveTimeoutMillis(),
                            config.sendTimeoutMillis(), config.sqpoll())
                    : new SocketLink(socket, config.waitMode(), config.receiveTimeoutMillis(),
                            config.sendTimeoutMillis());
            writer = new MessageWriter(link, config.send(), arena);
            pump = new MessagePump(new MessageReader(link, config.recv(), arena, config.receiveTimeoutMillis()));
            header = arena.allocate(RequestHeader.SIZE, 8);
            payload = arena.allocate(GroutApi.MAX_MSG_LEN, 8);
            MemorySegment hello = MainModulePayloads.hello(arena, config.apiVersion(), config.version());
            call(GroutApi.HELLO, hello, hello.byteSize());
            if (answer.status != 0) {
                throw new ErrnoException("GR_HELLO", answer.status, "the server refused the confined core's hello");
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private void call(int type, MemorySegment p, long n) throws ErrnoException {
        RequestHeader.write(header, 0, ID, type, (int) n);
        writer.write(header, 0, RequestHeader.SIZE, p, 0, n);
        if (!pump.pumpBy(answer, 0, config.receiveTimeoutMillis() * 1_000_000L) || answer.id != ID) {
            throw new ErrnoException("confined core", Errno.EPROTO, "answer for id " + answer.id + ", not " + ID);
        }
    }

    @Override
    public void prepare(int n) {
        this.len = n;
        Echo.fill(payload, n);
    }

    @Override
    public void ping() throws IOException {
        call(GroutApi.PING, payload, len);
        Echo.check(GroutApi.PING, payload, len, answer.buffer, answer.offset, answer.length);
    }

    @Override
    public void close() {
        if (link != null) link.close();
        if (socket != null) socket.close();
        if (arena != null) arena.close();
        link = null;
        socket = null;
        arena = null;
    }
}
