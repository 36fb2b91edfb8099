package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.wire.GroutApi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sysframe.transport.support.ServerFixture;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.UnixSocket;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.sysframe.transport.support.ServerFixture.guard;
import static org.sysframe.transport.support.ServerFixture.clientOptions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sysframe.transport.support.Pings.ping;

/**
 * The socket file deleted or replaced under a running server: its connections go on, new clients go to
 * whoever owns the file now, and closing the server leaves another server's file in place.
 * Outcomes are exact; waits are bounded only as hang guards.
 */
@EachBackend
class SocketFileTest {

    @RegisterExtension
    final ServerFixture fx = new ServerFixture();

    private static void closeAll(List<GroutClient> clients) {
        for (GroutClient c : clients) c.close();
    }

    @Test
    void socketFileDeletedWhileRunningKeepsConnectionsServesNoNewOnesAndCloseStillWorks() throws Exception {
        String p = fx.path("deleted.sock");
        guard(() -> {
            GroutServer s = fx.start(ServerOptions.defaults().socketPath(p));
            try (GroutClient c = GroutClient.connect(clientOptions(p))) {
                ping(c, 1, 100);
                Files.delete(Path.of(p));

                for (int len : new int[] {0, 1, 4096, GroutApi.MAX_MSG_LEN}) ping(c, 2, len);
                ErrnoException e = assertThrows(ErrnoException.class, () ->
                        GroutClient.connect(clientOptions(p)).close());
                assertEquals(Errno.ENOENT, e.errno(), e.getMessage());
                ErrnoException raw = assertThrows(ErrnoException.class, () -> UnixSocket.connect(p).close());
                assertEquals(Errno.ENOENT, raw.errno(), raw.getMessage());
                assertEquals(1, s.connectionCount());
                assertEquals(6, s.openConnections().get(0).requests());

                s.close(); // the file is already gone: no failure
                assertFalse(Files.exists(Path.of(p), LinkOption.NOFOLLOW_LINKS));
                assertEquals(0, s.connectionCount());
                assertEquals(List.of("server shutdown"),
                        s.closedConnections().stream().map(ConnectionStats::closeReason).toList());
            }
        });
    }

    @Test
    void replacedSocketFileSendsNewClientsToTheNewServerAndOldClientsStay() throws Exception {
        String p = fx.path("replaced.sock");
        guard(() -> {
            GroutServer first = fx.start(ServerOptions.defaults().socketPath(p).maxIfaces(1001));
            List<GroutClient> clients = new ArrayList<>();
            try {
                GroutClient old = GroutClient.connect(clientOptions(p));
                clients.add(old);
                assertEquals(1001, old.maxIfaces());
                Files.delete(Path.of(p));
                // The path is free, so a second server binds it (no EADDRINUSE: that check needs the file).
                GroutServer second = fx.start(ServerOptions.defaults().socketPath(p).maxIfaces(1002));

                GroutClient fresh = GroutClient.connect(clientOptions(p));
                clients.add(fresh);
                assertEquals(1002, fresh.maxIfaces(), "a new client reaches the server that owns the file now");
                ping(old, 3, 5000);
                ping(fresh, 4, 5000);
                assertEquals(1, first.connectionCount());
                assertEquals(1, second.connectionCount());
                assertEquals(2, first.openConnections().get(0).requests());
                assertEquals(2, second.openConnections().get(0).requests());
            } finally {
                closeAll(clients);
            }
        });
    }

    @Test
    void closingAServerWhoseSocketFileWasReplacedLeavesTheNewServersFileInPlace() throws Exception {
        String p = fx.path("replaced-close.sock");
        guard(() -> {
            GroutServer first = fx.start(ServerOptions.defaults().socketPath(p).maxIfaces(1001));
            Files.delete(Path.of(p));
            GroutServer second = fx.start(ServerOptions.defaults().socketPath(p).maxIfaces(1002));
            first.close();
            // The file at p is the second server's, not the first's: the first has no business removing it.
            assertTrue(Files.exists(Path.of(p), LinkOption.NOFOLLOW_LINKS),
                    "the first server's close() removed the socket file of the second, which still runs");
            try (GroutClient c = GroutClient.connect(clientOptions(p))) {
                assertEquals(1002, c.maxIfaces());
                ping(c, 6, 64);
                assertEquals(1, second.connectionCount());
            }
        });
    }
}
