package org.sysframe.bench.jmh;

import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;

/** A server of this JVM on a socket in a temp dir and one client of it, for a benchmark's trial. */
final class InJvmPair implements AutoCloseable {
    private final Path dir;
    final GroutServer server;
    final GroutClient client;

    private InJvmPair(Path dir, GroutServer server, GroutClient client) {
        this.dir = dir;
        this.server = server;
        this.client = client;
    }

    /** The server server(path) makes, and the client client(path) makes connected to it. */
    static InJvmPair open(Function<String, ServerOptions> server, Function<String, ClientOptions> client)
            throws IOException {
        Path dir = Files.createTempDirectory("sysframe-jmh");
        String path = dir.resolve("jmh.sock").toString();
        GroutServer s = GroutServer.start(server.apply(path));
        try {
            return new InJvmPair(dir, s, GroutClient.connect(client.apply(path)));
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    @Override
    public void close() throws IOException {
        client.close();
        server.close();
        Files.deleteIfExists(dir);
    }
}
