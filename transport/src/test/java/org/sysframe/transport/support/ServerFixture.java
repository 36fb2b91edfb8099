package org.sysframe.transport.support;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.sysframe.testsupport.Awaits;
import org.junit.jupiter.api.function.Executable;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * JUnit 5 extension ({@code @RegisterExtension}): a fresh temp dir per test, GroutServers started on sockets
 * in it, and everything tracked closed after the test, last opened first, whatever happened.
 */
public final class ServerFixture implements BeforeEachCallback, AfterEachCallback {
    /** Bound on a whole test body: a hang guard only, never a timing assertion. */
    public static final Duration HANG_GUARD = Duration.ofSeconds(90);
    /** Receive timeout of the test clients: a hang guard only. */
    public static final int CLIENT_RECV_TIMEOUT_MS = 30_000;

    private final List<AutoCloseable> resources = new CopyOnWriteArrayList<>();
    private Path dir;

    @Override
    public void beforeEach(ExtensionContext context) throws IOException {
        dir = Files.createTempDirectory("sysframe-test-");
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        List<AutoCloseable> all = new ArrayList<>(resources);
        resources.clear();
        Collections.reverse(all);
        Throwable first = null;
        for (AutoCloseable r : all) {
            try {
                r.close();
            } catch (Throwable e) {
                System.err.println("tear-down: " + e);
                if (first == null) first = e;
            }
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
        if (first instanceof Exception e) throw e;
        if (first instanceof Error e) throw e;
    }

    /** The test's temp dir. */
    public Path dir() { return dir; }

    /** The path of a socket named name in the test's temp dir. */
    public String path(String name) { return dir.resolve(name).toString(); }

    /** Starts a server with options as given (their socket path included), closed after the test. */
    public GroutServer start(ServerOptions options) throws IOException {
        return track(TestServers.start(options));
    }

    /** Starts a server on epoll whatever the default backend (see {@link TestServers#startEpoll}). */
    public GroutServer startEpoll(String name, ServerOptions options) throws IOException {
        return track(TestServers.startEpoll(options.socketPath(path(name))));
    }

    /** Starts a server on the socket named name in the temp dir; its path is {@link #path(String) path(name)}. */
    public GroutServer start(String name, ServerOptions options) throws IOException {
        return start(options.socketPath(path(name)));
    }

    /** Closes r after the test (before what was tracked earlier). */
    public <T extends AutoCloseable> T track(T r) {
        resources.add(r);
        return r;
    }

    /** Runs body, failing it if it runs past {@link #HANG_GUARD} (a hung test fails instead of stalling the suite). */
    public static void guard(Executable body) {
        assertTimeoutPreemptively(HANG_GUARD, body);
    }

    /**
     * Client options for path with the test clients' receive timeout, over the suite's transport
     * ({@link TestClients#options}).
     */
    public static ClientOptions clientOptions(String path) {
        return TestClients.options(path).receiveTimeoutMillis(CLIENT_RECV_TIMEOUT_MS);
    }

    /** A polite client pinging path on its own thread (see {@link PoliteClient}), stopped after the test. */
    public PoliteClient polite(String path, String name, int seed, int maxLen) {
        return track(new PoliteClient(path, name, seed, maxLen));
    }

    /** Waits (hang guard only) until the server counts expected connections, then asserts it does. */
    public static void awaitConnectionCount(GroutServer server, int expected) {
        Awaits.awaitEquals(expected, server::connectionCount, Awaits.HANG_GUARD, "server.connectionCount()");
    }
}
