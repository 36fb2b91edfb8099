package org.sysframe.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;
import org.sysframe.transport.SharedGroutClient;
import org.sysframe.transport.wire.GroutApi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** docs/concurrency.md's snippet, run against a real server on a socket in a temp dir. */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ConcurrencyExamplesTest {
    @TempDir
    Path dir;

    @Test
    void theSharedClient() throws Exception {
        String socketPath = dir.resolve("shared.sock").toString();
        try (GroutServer server = GroutServer.start(ServerOptions.defaults().socketPath(socketPath));
             Arena arena = Arena.ofShared()) {
            MemorySegment payload = arena.allocate(16);
            payload.fill((byte) 7);
            MemorySegment answer = arena.allocate(GroutApi.MAX_MSG_LEN);
            String out = Printed.by(() -> {
                try (SharedGroutClient client = SharedGroutClient.connect(socketPath)) {   // GR_HELLO as GroutClient does
                    // from any thread, platform or virtual, at the same time:
                    long n = client.call(GroutApi.PING, payload, 0, payload.byteSize(), answer); // answer: the caller's own segment
                    CompletableFuture<byte[]> f = client.callAsync(GroutApi.PING, payload, 0, payload.byteSize());
                    System.out.println(n + " and " + f.join().length + " bytes back");
                }
            });
            assertEquals("16 and 16 bytes back\n", out);
            assertEquals(7, answer.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 15), "the echo in the caller's own segment");
        }
    }
}
