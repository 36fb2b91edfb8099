package org.sysframe.examples;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.micrometer.GroutClientMetrics;
import org.sysframe.micrometer.GroutServerMetrics;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;
import org.sysframe.transport.wire.GroutApi;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** docs/observability.md's Micrometer snippet, run against a real server on a socket in a temp dir. */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class MicrometerExamplesTest {
    @TempDir
    Path dir;

    @Test
    void aClientAndAServerBoundToARegistry() throws Exception {
        String socketPath = dir.resolve("metered.sock").toString();
        String out = Printed.by(() -> {
            MeterRegistry registry = new SimpleMeterRegistry(); // your application's registry
            try (GroutServer server = GroutServer.start(ServerOptions.defaults().socketPath(socketPath));
                 GroutServerMetrics serverMetrics = new GroutServerMetrics(server);
                 GroutClient client = GroutClient.connect(socketPath);
                 GroutClientMetrics clientMetrics = new GroutClientMetrics(client, Tags.of("app", "billing"))) {
                serverMetrics.bindTo(registry);
                clientMetrics.bindTo(registry);
                for (int i = 0; i < 10; i++) client.call(GroutApi.PING);
                System.out.println(registry.get("sysframe.client.calls")
                        .functionCounter().count());                                    // 11.0: GR_HELLO too
                System.out.println(registry.get("sysframe.client.syscalls").tag("kind", "sendto")
                        .functionCounter().count());                                    // 11.0 on epoll
                System.out.println(registry.get("sysframe.server.connections").gauge().value()); // 1.0
            } // closed in reverse order: each binder's meters leave the registry before its client or server closes
            System.out.println(registry.getMeters().size());                                    // 0
        });
        assertEquals("11.0\n11.0\n1.0\n0\n", out);
    }
}
