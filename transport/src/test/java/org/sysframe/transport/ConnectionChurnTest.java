package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.transport.support.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.sysframe.testsupport.Gc;
import org.sysframe.testsupport.ProcessProbe;
import org.sysframe.testsupport.ProcessProbe.Nmt;
import org.sysframe.transport.support.ServerFixture;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Opening and closing many connections leaks nothing: the process's descriptors return exactly to
 * their count before, and native memory (NMT's "Other" category, where FFM arenas allocate) stays
 * flat. The surefire JVM runs with -XX:NativeMemoryTracking=summary.
 */
@EachBackend
class ConnectionChurnTest {
    private static final int WARM_UP = 500;
    private static final int CONNECTIONS = 10_000;
    private static final long MAX_OTHER_GROWTH = 1L << 20;

    @TempDir
    Path dir;

    private GroutServer server;

    @AfterEach
    void tearDown() {
        if (server != null) server.close();
    }

    private void awaitNoConnections() {
        ServerFixture.awaitConnectionCount(server, 0);
    }

    private static void churn(String path, int count, MemorySegment payload) throws IOException {
        ClientOptions options = ClientOptions.defaults().socketPath(path).receiveTimeoutMillis(20_000);
        for (int i = 0; i < count; i++) {
            try (GroutClient c = GroutClient.connect(options)) {
                payload.set(JAVA_INT_UNALIGNED, 0, i);
                Response r = c.call(GroutApi.PING, payload, 0, payload.byteSize());
                if (r.status() != 0 || r.length() != payload.byteSize()
                        || MemorySegment.mismatch(r.buffer(), r.offset(), r.offset() + r.length(), payload, 0,
                                payload.byteSize()) != -1) {
                    throw new AssertionError("connection " + i + ": bad echo " + r);
                }
            }
        }
    }

    @Test
    void tenThousandConnectionsOpenedAndClosedLeaveDescriptorsAndNativeMemoryAsTheyWere() throws Exception {
        String path = dir.resolve("churn.sock").toString();
        server = TestServers.start(ServerOptions.defaults().socketPath(path));

        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment payload = a.allocate(32, 8);
                for (int i = 4; i < 32; i++) payload.set(JAVA_BYTE, i, (byte) (i * 5 + 1));

                // Warm-up: classes loaded, code compiled, the MBean server and NMT reporting set up.
                churn(path, WARM_UP, payload);
                awaitNoConnections();
                Gc.settle();
                ProcessProbe.nativeMemory();
                ProcessProbe.openFds();

                Nmt before = ProcessProbe.nativeMemory();
                long fdsBefore = ProcessProbe.openFds();
                System.out.printf(Locale.ROOT, "churn: before %,d connections: %d open fds, NMT %s%n", CONNECTIONS,
                        fdsBefore, before);

                churn(path, CONNECTIONS, payload);
                awaitNoConnections();
                Gc.settle();

                Nmt after = ProcessProbe.nativeMemory();
                long fdsAfter = ProcessProbe.openFds();
                System.out.printf(Locale.ROOT, "churn: after  %,d connections: %d open fds, NMT %s%n", CONNECTIONS,
                        fdsAfter, after);
                System.out.printf(Locale.ROOT,
                        "churn: growth: fds %+d, Other committed %+,d bytes, total committed %+,d KiB%n",
                        fdsAfter - fdsBefore, after.otherCommitted() - before.otherCommitted(),
                        (after.totalCommitted() - before.totalCommitted()) / 1024);

                assertEquals(fdsBefore, fdsAfter, "open file descriptors after " + CONNECTIONS + " connections");
                long growth = after.otherCommitted() - before.otherCommitted();
                assertTrue(growth < MAX_OTHER_GROWTH, "NMT Other committed grew by " + growth + " bytes over "
                        + CONNECTIONS + " connections (" + before + " -> " + after + ")");
            }
        });

        // Every connection was recorded (the server keeps the latest 10,000), each with hello + one ping.
        var closed = server.closedConnections();
        assertEquals(CONNECTIONS, closed.size());
        for (ConnectionStats s : closed) assertEquals(2, s.requests(), s.toString());
    }
}
