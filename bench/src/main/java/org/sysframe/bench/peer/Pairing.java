package org.sysframe.bench.peer;

import org.sysframe.transport.Backend;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.FlushMode;
import org.sysframe.transport.RecvFraming;
import org.sysframe.transport.SendFraming;
import org.sysframe.transport.ServerOptions;
import org.sysframe.transport.WaitMode;
import org.sysframe.transport.wire.RequestHeader;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A client framing paired with a server framing: one column of the comparison, with the settings a
 * {@code --pairing} may also give (see {@link org.sysframe.bench.explore.PairingSpec}): the server's high-water mark,
 * how the client waits, the CPU it is pinned to, and how many requests it keeps in flight.
 *
 * @param highWater  bytes a deferred server queues before it flushes early
 * @param clientWait how the client waits for its answer
 * @param clientCpu  the CPU the client is pinned to, -1 for none
 * @param serverCpu  the CPU the server's loop is pinned to, -1 for none
 * @param depth      requests in flight (1: one call at a time; more: a {@link PipelinedPeer} refilling the whole
 * window)
 * @param clientBackend how the client moves its bytes (epoll: a syscall per send and receive; io_uring)
 * @param serverBackend how the server's loops move theirs
 */
public record Pairing(String name, String description, SendFraming clientSend, RecvFraming clientRecv,
                      SendFraming serverSend, FlushMode serverFlush, int highWater, WaitMode clientWait, int clientCpu,
                      int serverCpu, int depth, Backend clientBackend, Backend serverBackend) {

    public Pairing {
        if (depth < 1) throw new IllegalArgumentException("depth=" + depth + ": at least 1");
        if (depth > 1 && clientSend.kind() == SendFraming.Kind.SPLIT) {
            throw new IllegalArgumentException("depth=" + depth
                    + ": a pipelined client never splits its sends; use client-send copy, gather or copygather");
        }
    }

    /** A pairing with the default high-water mark, a blocking unpinned client, one call at a time. */
    public Pairing(String name, String description, SendFraming clientSend, RecvFraming clientRecv,
                   SendFraming serverSend, FlushMode serverFlush) {
        this(name, description, clientSend, clientRecv, serverSend, serverFlush, FlushMode.DEFAULT_HIGH_WATER,
                WaitMode.BLOCK, -1, -1, 1, Backend.EPOLL, Backend.EPOLL);
    }

    /** This pairing under another name and description. */
    public Pairing renamed(String newName, String newDescription) {
        return new Pairing(newName, newDescription, clientSend, clientRecv, serverSend, serverFlush, highWater,
                clientWait, clientCpu, serverCpu, depth, clientBackend, serverBackend);
    }

    /** The four pairings of the benchmark; the first is the baseline ratios are taken against. */
    public static List<Pairing> standard() {
        return List.of(
                new Pairing("baseline", "two syscalls per message (Grout before the change)",
                        SendFraming.SPLIT, RecvFraming.EXACT, SendFraming.SPLIT, FlushMode.IMMEDIATE),
                new Pairing("seed-v3", "seed patch: copy <= 1024 + read-ahead 1024, server copy",
                        SendFraming.copy(1024), RecvFraming.readAhead(1024), SendFraming.copy(1024),
                        FlushMode.IMMEDIATE),
                new Pairing("merged", "Grout's merged change: sendmsg + read-ahead 8192, server writev deferred",
                        SendFraming.GATHER, RecvFraming.READAHEAD, SendFraming.GATHER, FlushMode.DEFERRED),
                new Pairing("sysframe",
                        "sysframe default: copy <= 1024 else sendmsg, read-ahead 8192; server deferred, a batch of one "
                        + "small response copied and sent once",
                        SendFraming.COPY_GATHER, RecvFraming.READAHEAD, SendFraming.COPY_GATHER, FlushMode.DEFERRED));
    }

    /** The standard pairing of that name. */
    public static Pairing named(String name) {
        for (Pairing p : standard()) if (p.name().equals(name)) return p;
        throw new IllegalArgumentException("no pairing " + name);
    }

    public ClientOptions client(String path) {
        return ClientOptions.defaults().socketPath(path).send(clientSend).recv(clientRecv).waitMode(clientWait)
                .cpu(clientCpu)
                .backend(clientBackend);
    }

    public ServerOptions server(String path) {
        ServerOptions o = ServerOptions.defaults().socketPath(path).send(serverSend).flush(serverFlush)
                .highWater(highWater)
                .backend(serverBackend);
        return serverCpu < 0 ? o : o.cpus(serverCpu);
    }

    /**
     * The client of this pairing, named name: one call at a time, or a pipeline of {@link #depth} in flight
     * refilled a whole window at a time, copying a request into its batch as the client's send framing would
     * (copy kinds: up to their threshold, less the request header; gather: never).
     */
    public PingPeer peer(String peerName, String path) {
        if (depth == 1) return new SysframePeer(peerName, client(path));
        boolean copies = clientSend.kind() == SendFraming.Kind.COPY
                || clientSend.kind() == SendFraming.Kind.COPY_GATHER;
        return new PipelinedPeer(peerName, client(path), depth, depth, copies
                ? Math.max(0, clientSend.copyThreshold() - RequestHeader.SIZE) : 0);
    }

    /** e.g. {@code client copy:1024/readahead:8192, server copy:1024/immediate}, then whatever is not the default. */
    public String framing() {
        List<String> extra = new ArrayList<>();
        if (highWater != FlushMode.DEFAULT_HIGH_WATER) extra.add("high-water " + highWater);
        if (!clientWait.equals(WaitMode.BLOCK)) extra.add("client wait " + clientWait);
        if (clientCpu >= 0) extra.add("client on CPU " + clientCpu);
        if (serverCpu >= 0) extra.add("server on CPU " + serverCpu);
        if (depth != 1) extra.add("depth " + depth);
        if (clientBackend != Backend.EPOLL || serverBackend != Backend.EPOLL) extra.add("backends " + clientBackend
                + "/" + serverBackend);
        return "client " + clientSend + "/" + clientRecv + ", server " + serverSend + "/"
                + serverFlush.name().toLowerCase(Locale.ROOT)
                        + (extra.isEmpty() ? "" : ", " + String.join(", ", extra));
    }
}
