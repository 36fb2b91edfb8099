package org.sysframe.transport.shm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.testsupport.ProcessProbe;
import org.sysframe.transport.Backend;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;
import org.sysframe.transport.WaitMode;
import org.sysframe.transport.internal.server.ServerLimits;
import org.sysframe.transport.internal.shm.ShmServer;
import org.sysframe.transport.support.Pings;
import org.sysframe.transport.support.ServerLogs;
import org.sysframe.unix.Errno;
import org.sysframe.unix.Self;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Nothing a channel holds outlives its connection, whatever the peer asked for: a second SHM_OPEN on a
 * connection that has a channel is refused (EALREADY), one uid holds at most its share of channels, and
 * channels asked to spin spin only while the server has CPUs to spare for them. Threads, descriptors and
 * mappings are counted back to where they were.
 */
class SharedMemoryChannelLeaksTest {
    @TempDir Path dir;

    private static long channelThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("sysframe-shm-"))
                .count();
    }

    /** Mappings of channel segments in this process (the server's, and the raw peer's of the same memfd). */
    private static long segmentMappings() throws IOException {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.filter(l -> l.contains("/memfd:sysframe-shm")).count();
        }
    }

    /** Waits (a hang guard, 20 s) until every channel has ended: its thread gone and its segment unmapped. */
    private static void awaitNoChannels() throws Exception {
        long end = System.nanoTime() + 20_000_000_000L;
        while (!ShmServer.channels().isEmpty() || channelThreads() > 0 || segmentMappings() > 0) {
            assertTrue(System.nanoTime() < end, "channels left after 20 s: " + ShmServer.channels().size() + " loops, "
                    + channelThreads() + " threads, " + segmentMappings() + " mappings");
            Thread.sleep(5);
        }
    }

    @Test
    void aSecondOpenOnOneConnectionIsRefusedAndEveryChannelIsGoneWithItsConnection() throws Exception {
        String path = dir.resolve("again.sock").toString();
        final int rounds = 40;
        try (ServerLogs logs = new ServerLogs();
             GroutServer s = GroutServer.start(ServerOptions.defaults().socketPath(path).backend(Backend.EPOLL)
                     .sharedMemoryRing(4096).sharedMemoryChannels(4).sharedMemoryChannelsPerUid(4))) {
            awaitNoChannels();
            long fds = ProcessProbe.openFds();
            for (int i = 0; i < rounds; i++) {
                try (RawChannel raw = RawChannel.open(path)) {
                    assertEquals(Errno.EALREADY, raw.openAgain(3), "round " + i);
                    assertEquals(1, ShmServer.channels().size(), "round " + i + ": one channel for the connection");
                }
                awaitNoChannels();
            }
            assertEquals(fds, ProcessProbe.openFds(), "descriptors after " + rounds
                    + " connections, each asking twice");
            List<String> lines = logs.lines(l -> l.contains("its connection has one already"));
            assertFalse(lines.isEmpty(), logs.lines().toString());
            // Every place and byte came back: the server's whole cap opens again at once.
            List<GroutClient> all = new ArrayList<>();
            try {
                for (int i = 0; i < 4; i++) {
                    GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path)
                            .backend(Backend.EPOLL).sharedMemory(true));
                    all.add(c);
                    assertTrue(c.sharedMemory(), "channel " + (i + 1) + " of 4 after " + rounds + " rounds");
                    Pings.ping(c, i, 100);
                }
            } finally {
                for (GroutClient c : all) c.close();
            }
            awaitNoChannels();
            assertEquals(fds, ProcessProbe.openFds());
        }
    }

    @Test
    void oneUidHoldsAtMostItsShareOfChannels() throws Exception {
        String path = dir.resolve("peruid.sock").toString();
        int uid = Self.uid();
        try (ServerLogs logs = new ServerLogs();
             GroutServer s = GroutServer.start(ServerOptions.defaults().socketPath(path).backend(Backend.EPOLL)
                     .sharedMemoryRing(4096).sharedMemoryChannels(8).sharedMemoryChannelsPerUid(2))) {
            ClientOptions o = ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL).sharedMemory(true);
            try (GroutClient a = GroutClient.connect(o); GroutClient b = GroutClient.connect(o); GroutClient c =
                    GroutClient.connect(o)) {
                assertTrue(a.sharedMemory());
                assertTrue(b.sharedMemory());
                assertFalse(c.sharedMemory(), "the uid's third channel is refused: it stays on the socket");
                for (GroutClient x : List.of(a, b, c)) Pings.ping(x, 5, 1000);
                List<String> lines = logs.lines(l -> l.contains("shared-memory channel refused"));
                assertEquals(1, lines.size(), logs.lines().toString());
                assertTrue(lines.getFirst().endsWith("shared-memory channel refused: uid " + uid
                        + " has 2 channels open, the limit per uid: the client stays on the socket"), lines.getFirst());
            }
            awaitNoChannels();
        }
    }

    @Test
    void channelsAskedToSpinBeyondTheServersCpusSpinThenSleepAndNewClientsAreServed() throws Exception {
        String path = dir.resolve("spin.sock").toString();
        ServerOptions options = ServerOptions.defaults().socketPath(path).backend(Backend.EPOLL)
                .sharedMemoryRing(4096).sharedMemoryWaitMode(WaitMode.SPIN).sharedMemoryChannels(8)
                        .sharedMemoryChannelsPerUid(8);
        int spinning = ServerLimits.spinningChannelLimit(options.freeze());
        int open = Math.min(8, spinning + 3);
        try (ServerLogs logs = new ServerLogs(); GroutServer s = GroutServer.start(options)) {
            List<GroutClient> channels = new ArrayList<>();
            try {
                ClientOptions o = ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL).sharedMemory(true);
                for (int i = 0; i < open; i++) {
                    GroutClient c = GroutClient.connect(o);
                    channels.add(c);
                    assertTrue(c.sharedMemory());
                }
                List<String> lines = logs.lines(l -> l.contains("shared-memory channel waits"));
                assertEquals(open - spinning, lines.size(), "channels beyond the " + spinning + " that may spin: "
                        + logs.lines());
                assertTrue(lines.getFirst()
                        .endsWith("waits spin:50us, not spin: as many channels spin as the server's CPUs allow"),
                        lines.getFirst());
                // The loop that accepts still has a CPU: a client on the socket connects and is served.
                try (GroutClient plain = GroutClient.connect(ClientOptions.defaults().socketPath(path)
                        .backend(Backend.EPOLL))) {
                    Pings.ping(plain, 9, 100);
                }
                for (GroutClient c : channels) Pings.ping(c, 3, 100);
            } finally {
                for (GroutClient c : channels) c.close();
            }
            awaitNoChannels();
        }
    }
}
