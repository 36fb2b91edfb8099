package org.sysframe.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerConfig;
import org.sysframe.transport.ServerOptions;

import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The snippet of docs/guarantees.md: the bounds it spells out are the defaults, and a server started with them serves.
 */
class BoundsExamplesTest {
    @TempDir
    Path dir;

    @Test
    void theBoundsShownAreTheDefaults() throws Exception {
        String socketPath = dir.resolve("bounded.sock").toString();

        ServerOptions bounded = ServerOptions.defaults().socketPath(socketPath)
                // a started request is whole within 10 s, or its connection closes
                .requestTimeout(Duration.ofSeconds(10))
                .idleTimeout(Duration.ZERO)               // off: a client subscribed to events may rightly stay silent
                .memoryBudget(64L << 20)                  // large requests + unsent output, all connections together
                // unsent output of one connection before it is closed as a slow reader
                .maxQueuedOutput(4 << 20)
                // warnings a peer can provoke: 10 per kind per 10 s, the rest counted
                .logLimit(10, Duration.ofSeconds(10));

        ServerConfig shown = bounded.freeze(), defaults = ServerOptions.defaults().socketPath(socketPath).freeze();
        assertEquals(defaults.requestTimeout(), shown.requestTimeout());
        assertEquals(defaults.idleTimeout(), shown.idleTimeout());
        assertEquals(defaults.memoryBudget(), shown.memoryBudget());
        assertEquals(defaults.maxQueuedOutput(), shown.maxQueuedOutput());
        assertEquals(defaults.logLinesPerInterval(), shown.logLinesPerInterval());
        assertEquals(defaults.logInterval(), shown.logInterval());
        // The rest of the page's tables, where a setting says them.
        assertEquals(8192, defaults.readBuffer(), "server read buffer per connection");
        assertEquals(128, defaults.maxRequestsPerTurn(), "requests of one connection per loop turn");
        assertEquals(0600, defaults.mode(), "socket file mode");
        assertEquals(128 * 1024, GroutApi.MAX_MSG_LEN, "GR_API_MAX_MSG_LEN");
        assertEquals(5000, ClientOptions.DEFAULT_RECEIVE_TIMEOUT_MILLIS, "the client's receive timeout");
        assertEquals(5000, ClientOptions.defaults().freeze().receiveTimeoutMillis());

        try (GroutServer server = GroutServer.start(bounded);
             GroutClient client = GroutClient.connect(socketPath);
             Arena arena = Arena.ofConfined()) {
            assertEquals(32, client.call(GroutApi.PING, arena.allocate(32)).length());
        }
    }
}
