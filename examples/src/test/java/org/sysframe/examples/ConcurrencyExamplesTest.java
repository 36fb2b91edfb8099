package org.sysframe.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.Response;
import org.sysframe.transport.ServerOptions;
import org.sysframe.transport.wire.GroutApi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** docs/concurrency.md's snippets, run against a real server on a socket in a temp dir. */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ConcurrencyExamplesTest {
    @TempDir
    Path dir;

    @Test
    void oneClientForManyThreads() throws Exception {
        String socketPath = dir.resolve("shared.sock").toString();
        try (GroutServer server = GroutServer.start(ServerOptions.defaults().socketPath(socketPath));
             Arena arena = Arena.ofShared()) {
            MemorySegment payload = arena.allocate(16);
            payload.fill((byte) 7);
            String out = Printed.by(() -> {
                try (GroutClient client = GroutClient.connect(socketPath);
                     ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
                    List<Future<Long>> calls = new ArrayList<>();
                    // 1000 virtual threads, one client, at the same time
                    for (int i = 0; i < 1000; i++) {
                        // each thread's own Response
                        calls.add(threads.submit(() -> client.call(GroutApi.PING, payload).length()));
                    }
                    // a Response the caller owns
                    CompletableFuture<Response> f = client.callAsync(GroutApi.PING, payload);
                    long bytes = 0;
                    for (Future<Long> c : calls) bytes += c.get();
                    System.out.println(bytes + " bytes back to 1000 threads, " + f.join().length() + " to the future; "
                            + client.stats().calls() + " calls");  // GR_HELLO is one
                }
            });
            assertEquals("16000 bytes back to 1000 threads, 16 to the future; 1002 calls\n", out);
        }
    }

    /**
     * Against a server that answers one request per read (sysframe's emulation of Grout's api.c): the cap and the pool.
     */
    @Test
    void aCapOfOneAndAPoolForAServerThatAnswersOneRequestPerRead() throws Exception {
        String path = dir.resolve("api-c.sock").toString();
        try (GroutServer server = GroutServer.start(ServerOptions.defaults().socketPath(path).requestsPerRead(1));
             Arena arena = Arena.ofShared()) {
            MemorySegment payload = arena.allocate(16);
            GroutClient client = GroutClient.connect(ClientOptions.defaults().socketPath(path).maxInFlight(1)
                    .connections(4));
            try (client; ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<Long>> calls = new ArrayList<>();
                for (int i = 0; i < 256; i++) calls.add(threads.submit(() ->
                        client.call(GroutApi.PING, payload).length()));
                long bytes = 0;
                for (Future<Long> c : calls) bytes += c.get();
                assertEquals(256 * 16, bytes, "every call got through");
                assertEquals(4, client.connectionCounters().size());
                assertEquals(4 + 256, client.stats().calls(), "four GR_HELLOs and the calls");
            }
        }
    }
}
