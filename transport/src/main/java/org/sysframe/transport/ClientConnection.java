package org.sysframe.transport;

import org.sysframe.transport.internal.client.Call;
import org.sysframe.transport.internal.client.ClientConnect;
import org.sysframe.transport.internal.client.Conduit;
import org.sysframe.transport.internal.client.MainModulePayloads;
import org.sysframe.transport.internal.client.Router;
import org.sysframe.transport.internal.epoll.SocketLink;
import org.sysframe.transport.internal.io.ClientLink;
import org.sysframe.transport.internal.io.MessagePump;
import org.sysframe.transport.internal.io.MessageReader;
import org.sysframe.transport.internal.io.MessageWriter;
import org.sysframe.transport.internal.jfr.Jfr;
import org.sysframe.transport.internal.jfr.ConnectionEvent;
import org.sysframe.transport.internal.shm.ShmClient;
import org.sysframe.transport.internal.shm.ShmClientLink;
import org.sysframe.transport.internal.uring.UringLink;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.PeerCredentials;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.UnixSocket;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One connection of a {@link GroutClient}: its socket, the link that moves its bytes (epoll, io_uring
 * or the shared-memory channel), its reader and the {@link Conduit} that shares it among callers. It
 * says GR_HELLO (and asks for the channel) as it connects; its memory goes once it is closed and no
 * thread does its I/O.
 */
final class ClientConnection {
    /**
     * SHM_OPEN's request id: nothing is in flight after GR_HELLO (id 1), and the client over the channel starts its ids
     * anew.
     */
    private static final int SHM_OPEN_ID = 2;

    final UnixSocket socket;
    final ClientLink link;
    final Conduit conduit;
    final MessageReader reader;
    final String backendName;
    final String transportName;
    private final Arena arena = Arena.ofShared();
    private final AtomicBoolean freed = new AtomicBoolean();
    /** The socket went on to the connection over the shared-memory channel: this one's free leaves it open. */
    private boolean socketMoved;
    private int maxIfaces;

    private ClientConnection(ClientConfig options, UnixSocket socket, ClientLink link, Router.Completion completion) {
        this.socket = socket;
        this.link = link;
        this.reader = new MessageReader(link, options.recv(), arena, options.receiveTimeoutMillis());
        MessageWriter writer = new MessageWriter(link, options.send(), arena);
        this.conduit = new Conduit(socket.name(), link, writer, new MessagePump(reader), arena,
                options.receiveTimeoutMillis(), options.maxInFlight(), options.specs(), this::free);
        this.conduit.router().completion(completion);
        this.backendName = link instanceof UringLink ? "io_uring" : "epoll";
        this.transportName = link instanceof ShmClientLink ? "shared memory" : "socket";
    }

    /**
     * Connects, says GR_HELLO and, with {@link ClientOptions#sharedMemory}, asks for the channel. The
     * socket's counters add into sum (null: none). Failures say what to check (see {@link GroutClient#connect}).
     */
    static ClientConnection open(ClientConfig options, SyscallCounters sum,
            Router.Completion completion) throws IOException {
        UnixSocket socket = ClientConnect.open(options, sum);
        ClientLink link;
        try {
            link = link(options, socket);
        } catch (ErrnoException | RuntimeException e) {
            socket.close();
            throw e;
        }
        ClientConnection c = new ClientConnection(options, socket, link, completion);
        try {
            c.hello(options);
            return options.sharedMemory() ? c.overSharedMemory(options, completion) : c;
        } catch (ErrnoException e) {
            PeerCredentials server = c.credentialsOrNull();
            c.close();
            throw ClientConnect.hello(options.apiVersion(), e, server);
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private static ClientLink link(ClientConfig options, UnixSocket socket) throws ErrnoException {
        if (options.backend().resolve("client(" + socket.name() + ")") == Backend.EPOLL) {
            return new SocketLink(socket, options.waitMode(), options.receiveTimeoutMillis(),
                    options.sendTimeoutMillis());
        }
        return new UringLink(socket, options.waitMode(), options.receiveTimeoutMillis(), options.sendTimeoutMillis(),
                options.sqpoll());
    }

    private void hello(ClientConfig options) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment req = MainModulePayloads.hello(a, options.apiVersion(), options.version());
            Call call = Call.of(Call.Kind.BLOCKING);
            conduit.call(call, GroutApi.HELLO, req, 0, req.byteSize());
            Response r = new Response();
            r.set(call.id(), call.status(), call.answer(), 0, call.length());
            if (r.status() == Errno.EBADMSG) {
                throw ClientConnect.refusedVersion(options.apiVersion(), MainModulePayloads.serverVersion(r));
            }
            GroutClient.check(options.specs(), GroutApi.HELLO, r);
            maxIfaces = MainModulePayloads.maxIfaces(r);
        }
    }

    /**
     * Asks for a shared-memory channel (nothing is in flight right after GR_HELLO): a connection over it
     * that takes this one's place (same socket, hello result), or this one when the server answered an
     * error or the backend is io_uring.
     */
    private ClientConnection overSharedMemory(ClientConfig options, Router.Completion completion) throws IOException {
        if (!(link instanceof SocketLink)) return this;
        ClientLink shm;
        try {
            shm = ShmClient.negotiate(options, socket, SHM_OPEN_ID);
        } catch (ErrnoException e) {
            close();
            throw e;
        }
        if (shm == null) return this;
        ClientConnection s = new ClientConnection(options, socket, shm, completion);
        s.maxIfaces = maxIfaces;
        socketMoved = true;
        conduit.close(() -> { }); // this connection's memory goes; the socket stays with the new one
        return s;
    }

    /**
     * The memory and the descriptor go once close() happened and no thread uses them any more: a thread
     * that read the descriptor's number before close can never reach a file opened since.
     */
    private void free() {
        if (!freed.compareAndSet(false, true)) return;
        link.close();
        if (!socketMoved) socket.close();
        if (arena.scope().isAlive()) arena.close();
    }

    int maxIfaces() { return maxIfaces; }

    /** Whether a pool's one I/O thread may serve it: epoll over the socket, with a read-ahead framing. */
    boolean multiplexable() { return link instanceof SocketLink && conduit.readsAhead(); }

    PeerCredentials credentialsOrNull() {
        try {
            return socket.peerCredentials();
        } catch (ErrnoException e) {
            return null;
        }
    }

    /** Whether the connection broke (not closed by the client): a pool connects anew in its place. */
    boolean broken() { return !conduit.isUsable(); }

    /**
     * Fails the waiting calls and shuts the socket down (the thread doing the I/O returns from it); the
     * descriptor and the memory go once that thread has left (see {@link GroutClient#close()}).
     */
    void close() {
        if (Jfr.clientClosed() && conduit.isUsable()) {
            ConnectionEvent.ClientClosed e = new ConnectionEvent.ClientClosed();
            if (e.shouldCommit()) {
                SyscallCounts counts = socket.counters().snapshot();
                e.socket = socket.name();
                e.backend = backendName;
                e.syscalls = counts.total();
                e.syscallsByKind = counts.toString();
                e.commit();
            }
        }
        conduit.close(socket::shutdown);
    }
}
