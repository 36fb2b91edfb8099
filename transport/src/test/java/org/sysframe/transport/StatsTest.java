package org.sysframe.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.TestClients;
import org.sysframe.transport.support.TestServers;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.transport.wire.ResponseHeader;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The client's and the server's stats count the same calls from both sides, exactly: requests, frame
 * bytes (headers included) each way, error answers (the server's) and failed calls (the client's).
 */
@EachBackend(alsoOverSharedMemory = true)
class StatsTest {
    private static final int CALLS = 100;

    @TempDir Path dir;

    @Test
    void bothSidesCountTheSameRequestsAndBytes() throws Exception {
        String path = dir.resolve("stats.sock").toString();
        GroutServer server = TestServers.start(ServerOptions.defaults().socketPath(path));
        ServerStats last;
        try (server;
             GroutClient c = TestClients.connect(path);
             Arena a = Arena.ofConfined()) {
            ServerStats s0 = server.stats();
            ClientStats c0 = c.stats();
            assertEquals(c.sharedMemory() ? 2 : 1, s0.requests(), "GR_HELLO, and SHM_OPEN for the channel");
            MemorySegment payload = a.allocate(300);
            long payloadBytes = 0;
            for (int i = 0; i < CALLS; i++) {
                int len = (i * 37) % 300;
                assertEquals(len, c.call(GroutApi.PING, payload, 0, len).length());
                payloadBytes += len;
            }
            ClientStats c1 = c.stats();
            ServerStats s1 = server.stats();
            assertEquals(CALLS, c1.calls() - c0.calls());
            assertEquals(CALLS * RequestHeader.SIZE + payloadBytes, c1.bytesSent() - c0.bytesSent());
            assertEquals(CALLS * ResponseHeader.SIZE + payloadBytes, c1.bytesReceived() - c0.bytesReceived());
            assertEquals(CALLS, s1.requests() - s0.requests());
            assertEquals(c1.bytesSent() - c0.bytesSent(), s1.bytesReceived() - s0.bytesReceived());
            assertEquals(c1.bytesReceived() - c0.bytesReceived(), s1.bytesSent() - s0.bytesSent());
            assertEquals(0, s1.errors());
            assertEquals(0, c1.failed());

            ErrnoException e = assertThrows(ErrnoException.class, () -> c.call(0x7e570009));
            assertEquals(Errno.ENOTSUP, e.errno());
            assertEquals(1, server.stats().errors(), "the server's ENOTSUP answer");
            assertEquals(0, c.stats().failed(), "an error answer is an answer, not a failed call");
            assertEquals(0, c.stats().timedOut());
            last = server.stats();
        }
        assertEquals(last, server.stats(), "closed, its loops ended: their counts stay in the sums");
    }
}
