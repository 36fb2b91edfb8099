package org.sysframe.bench.table;

import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.peer.CPeer;
import org.sysframe.bench.peer.ChannelSide;
import org.sysframe.bench.peer.ClientThreadsProbe;
import org.sysframe.bench.peer.JavaLeanPeer;
import org.sysframe.bench.peer.PeerThread;
import org.sysframe.bench.peer.PingPeer;
import org.sysframe.bench.peer.SysframePeer;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerConfig;
import org.sysframe.transport.ServerOptions;

import java.io.IOException;
import java.util.List;

/**
 * One cell of the wait table: a server in the cell's wait mode and placement, and a client in its own:
 * sysframe's, the Java lean loop ({@link JavaLeanPeer}), or, with a {@link CPeer}, the C client. A
 * server whose loop sleeps when idle is started once and kept; one that spins is started for each run
 * and stopped after it, so that it burns no CPU while other cells are measured (its kernel counts are
 * not read: see {@link ServerSample#take}). A server offering shared-memory channels is measured by the
 * loop serving its channel ({@link ChannelSide}). Every client is kept across runs (the C client's
 * process as a Java client's thread) and connects anew to a server started anew.
 */
final class WaitProbe implements Cell.Probe, AutoCloseable {
    private final ServerOptions serverOptions;
    private final boolean serverPerRun;
    private final String socket;
    private final PingPeer peer; // a client of this JVM, or null for the C client
    private final CPeer.Runner c; // its processes kept across runs, reconnected to a server started anew
    private final boolean channel; // a shared-memory server: its side is the loop serving the channel
    private PeerThread client;
    private GroutServer server;

    private WaitProbe(ServerOptions serverOptions, String socket, PingPeer peer, CPeer c) {
        this.serverOptions = serverOptions;
        ServerConfig config = serverOptions.freeze();
        this.serverPerRun = !config.waitMode().blocks()
                || (config.sharedMemory() && !config.channelWaitMode().blocks());
        this.channel = config.sharedMemory() && peer != null;
        this.socket = socket;
        this.peer = peer;
        this.c = c == null ? null : c.probe(socket, ServerSample.Source.NONE);
    }

    /** sysframe's client with clientOptions against a server with serverOptions on socket. */
    static WaitProbe sysframe(String name, ClientOptions clientOptions, ServerOptions serverOptions, String socket) {
        return new WaitProbe(serverOptions.socketPath(socket), socket,
                new SysframePeer(name, clientOptions.socketPath(socket)), null);
    }

    /** The Java lean loop, its thread on cpu, against a server with serverOptions on socket. */
    static WaitProbe javaLean(String name, int cpu, ServerOptions serverOptions, String socket) {
        return new WaitProbe(serverOptions.socketPath(socket), socket, new JavaLeanPeer(name, cpu), null);
    }

    /** The C client c against a server with serverOptions on socket. */
    static WaitProbe c(CPeer c, ServerOptions serverOptions, String socket) {
        return new WaitProbe(serverOptions.socketPath(socket), socket, null, c);
    }

    @Override
    public Measurement measure(Cell cell, long calls, int round) throws IOException {
        boolean fresh = server == null;
        if (fresh) server = GroutServer.start(serverOptions);
        try {
            if (c != null) {
                if (fresh) c.reconnect(ServerSample.Source.of(server));
                return c.measure(cell, calls, round);
            }
            if (client == null) client = new PeerThread(peer);
            if (fresh) client.onThread(() -> {
                peer.close();
                peer.open(socket);
            });
            ServerSample.Source side = channel ? new ChannelSide(server) : ServerSample.Source.of(server);
            return new ClientThreadsProbe(List.of(client), side).measure(cell, calls, round);
        } finally {
            if (serverPerRun) stopServer();
        }
    }

    private void stopServer() throws IOException {
        if (client != null) client.onThread(peer::close);
        server.close();
        server = null;
    }

    @Override
    public void close() throws IOException {
        if (c != null) c.close();
        if (client != null) client.close();
        if (server != null) server.close();
    }
}
