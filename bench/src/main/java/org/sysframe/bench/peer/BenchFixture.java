package org.sysframe.bench.peer;

import org.sysframe.bench.measure.KernelCounters;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * What a table runs on: embedded servers on sockets in a temp dir of their own and client peers on
 * their own threads, all closed (and the dir removed) by {@link #close()}.
 */
public final class BenchFixture implements AutoCloseable {
    private final Path dir;
    private final List<GroutServer> servers = new ArrayList<>();
    private final List<PeerThread> peers = new ArrayList<>();
    private final List<AutoCloseable> others = new ArrayList<>();

    public BenchFixture(String what) throws IOException {
        dir = Files.createTempDirectory("sysframe-" + what);
    }

    /** A socket path in this fixture's dir. */
    public String socket(String name) { return dir.resolve(name + ".sock").toString(); }

    /** Starts a server (kept until close). */
    public GroutServer server(ServerOptions options) throws IOException {
        GroutServer s = GroutServer.start(options);
        servers.add(s);
        return s;
    }

    /** Starts peer on a thread of its own and connects it to socket there (kept until close). */
    public PeerThread peer(PingPeer peer, String socket) throws IOException {
        PeerThread t = new PeerThread(peer);
        peers.add(t);
        t.onThread(() -> peer.open(socket));
        return t;
    }

    /** Keeps c until close, which closes it first (before the peers and servers). */
    public <T extends AutoCloseable> T closing(T c) {
        others.add(c);
        return c;
    }

    @Override
    public void close() throws IOException {
        for (AutoCloseable c : others) {
            try {
                c.close();
            } catch (Exception e) {
                System.err.println("closing " + c + ": " + e.getMessage());
            }
        }
        KernelCounters.closeAll();
        for (PeerThread p : peers) {
            try {
                p.close();
            } catch (IOException | RuntimeException e) {
                System.err.println("closing " + p.peer().name() + ": " + e.getMessage());
            }
        }
        for (GroutServer s : servers) s.close();
        removeTree(dir);
    }

    /** Removes dir and everything in it. */
    public static void removeTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }
}
