package org.sysframe.transport.shm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.transport.Backend;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;
import org.sysframe.transport.internal.shm.ShmSegment;
import org.sysframe.transport.support.Pings;
import org.sysframe.transport.support.ServerLogs;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server's channels are bounded: at most {@code sharedMemoryChannels} open at once, and each
 * segment's bytes taken from the memory budget. A client past either stays on the socket (EBUSY,
 * one logged line) and works; a channel that ends gives its share back.
 */
class SharedMemoryLimitsTest {
    @TempDir Path dir;

    private static GroutClient client(String path) throws Exception {
        return GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL).sharedMemory(true));
    }

    @Test
    void pastTheChannelLimitAClientStaysOnTheSocketAndAClosedChannelGivesItsPlaceBack() throws Exception {
        String path = dir.resolve("limit.sock").toString();
        try (ServerLogs logs = new ServerLogs();
             GroutServer s = GroutServer.start(ServerOptions.defaults().socketPath(path).backend(Backend.EPOLL)
                     .sharedMemoryRing(4096).sharedMemoryChannels(2))) {
            GroutClient a = client(path), b = client(path), c = client(path);
            assertTrue(a.sharedMemory());
            assertTrue(b.sharedMemory());
            assertFalse(c.sharedMemory(), "the third of a 2-channel server stays on the socket");
            for (GroutClient x : List.of(a, b, c)) Pings.ping(x, 7, 100);
            List<String> lines = logs.lines(l -> l.contains("shared-memory channel refused"));
            assertEquals(1, lines.size(), logs.lines().toString());
            assertTrue(lines.getFirst()
                    .endsWith("shared-memory channel refused: 2 channels open, the limit: the client stays on the "
                            + "socket"), lines.getFirst());
            a.close();
            // The place comes back once the channel's segment is unmapped, after its thread ended: soon, not at once.
            GroutClient d = null;
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (d == null || !d.sharedMemory()) {
                if (d != null) d.close();
                assertTrue(System.nanoTime() < deadline, "a closed channel did not give its place back within 20 s");
                Thread.sleep(10);
                d = client(path);
            }
            Pings.ping(d, 8, 1000);
            d.close();
            b.close();
            c.close();
        }
    }

    @Test
    void aSegmentTheMemoryBudgetCannotHoldIsRefusedTheSameWay() throws Exception {
        String path = dir.resolve("budget.sock").toString();
        // 132 KiB: a budget of 1.5 of them still holds a large request (the least it may be)
        long segment = ShmSegment.sizeFor(65536);
        try (ServerLogs logs = new ServerLogs();
             GroutServer s = GroutServer.start(ServerOptions.defaults().socketPath(path).backend(Backend.EPOLL)
                     .sharedMemoryRing(65536).memoryBudget(segment + segment / 2));
             GroutClient a = client(path); GroutClient b = client(path)) {
            assertTrue(a.sharedMemory());
            assertFalse(b.sharedMemory(), "a second segment does not fit 1.5 segments of budget");
            Pings.ping(a, 1, 100);
            Pings.ping(b, 2, 100);
            List<String> lines = logs.lines(l -> l.contains("shared-memory channel refused"));
            assertEquals(1, lines.size(), logs.lines().toString());
            assertTrue(lines.getFirst().endsWith("shared-memory channel refused: its " + segment
                    + " bytes do not fit the memory budget ("
                    + segment + " of " + (segment + segment / 2) + " bytes used): the client stays on the socket"),
                    lines.getFirst());
        }
    }

    @Test
    void theLimitIsOneTo4096() {
        assertThrows(IllegalArgumentException.class, () -> ServerOptions.defaults().sharedMemoryChannels(0));
        assertThrows(IllegalArgumentException.class, () -> ServerOptions.defaults().sharedMemoryChannels(4097));
        assertEquals("shared-memory channels 0: 1 to 4096",
                assertThrows(IllegalArgumentException.class, () -> ServerOptions.defaults().sharedMemoryChannels(0))
                .getMessage());
    }
}
