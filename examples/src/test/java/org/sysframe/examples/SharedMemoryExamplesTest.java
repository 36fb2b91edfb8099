package org.sysframe.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.transport.Backend;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.Response;
import org.sysframe.transport.ServerOptions;
import org.sysframe.transport.WaitMode;
import org.sysframe.transport.wire.GroutApi;

import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** docs/shared-memory.md's snippets, run against a real server on a socket in a temp dir. */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SharedMemoryExamplesTest {
    @TempDir
    Path dir;

    @Test
    void aClientOnAChannel() throws Exception {
        String path = dir.resolve("shm.sock").toString();
        GroutServer server = GroutServer.start(ServerOptions.defaults().socketPath(path).sharedMemory(true));
        GroutClient client = GroutClient.connect(ClientOptions.defaults().socketPath(path).sharedMemory(true)
                .waitMode(WaitMode.SPIN));
        client.sharedMemory();   // true: the server gave a channel; false: it stays on the socket
        try (server; client) {
            // Epoll on both sides (the default backend): a channel; io_uring on either: the socket.
            assertEquals(server.backend() == Backend.EPOLL && client.backend() == Backend.EPOLL, client.sharedMemory());
            assertEquals(0, client.call(GroutApi.PING).length());
        }
    }

    /** A message of the test's own module: its answer is a counter, 8 bytes. */
    static final int COUNT = GroutApi.type(0x6c6d, 1);

    @Test
    void aHandlerThatWritesItsAnswerInTheRing() throws Exception {
        String path = dir.resolve("claim.sock").toString();
        long[] count = {0}; // the loop's thread only
        ServerOptions options = ServerOptions.defaults().socketPath(path).sharedMemory(true)
                .handle(COUNT, 0, 8, (request, reply) -> {          // answers of at least 8 bytes
                    long at = reply.claim(8);                       // room for the payload, past its header
                    reply.claimed().set(ValueLayout.JAVA_LONG_UNALIGNED, at, ++count[0]);
                    reply.commit();                                 // the answer, as it lies
                });
        try (GroutServer server = GroutServer.start(options);
             GroutClient client = GroutClient.connect(ClientOptions.defaults().socketPath(path).sharedMemory(true))) {
            assertEquals(server.backend() == Backend.EPOLL && client.backend() == Backend.EPOLL, client.sharedMemory());
            for (long i = 1; i <= 3; i++) {
                Response r = client.call(COUNT);
                assertEquals(i, r.buffer().get(ValueLayout.JAVA_LONG_UNALIGNED, r.offset()));
            }
        }
    }
}
