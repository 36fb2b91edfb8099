package org.sysframe.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sysframe.transport.support.LoopsIndependent;
import org.sysframe.transport.support.RawServer;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A connect to a server that never accepts ends at the connect timeout; a send to a server that never
 * reads ends at the send timeout, leaving the client unusable with that reason; on both backends.
 * Outcomes are pinned; nothing is timed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@LoopsIndependent
class ConnectAndSendTimeoutsTest {
    @TempDir Path dir;

    @Test
    void theDefaultsAreFiveSeconds() {
        ClientConfig c = ClientOptions.defaults().freeze();
        assertEquals(List.of(5000L, 5000L), List.of(c.connectTimeoutMillis(), c.sendTimeoutMillis()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"epoll", "io_uring"})
    void aServerThatNeverAcceptsEndsTheConnectAtItsTimeout(String backend) throws Exception {
        String path = dir.resolve("no-accept.sock").toString();
        List<UnixSocket> queued = new ArrayList<>();
        try (UnixSocket listener = UnixSocket.listen(path, 0600, 1, false)) {
            // Fill the listen backlog: the connect that times out is the one past it.
            while (true) {
                try {
                    queued.add(UnixSocket.connect(path, new SyscallCounters("filler"), 100));
                } catch (ErrnoException e) {
                    break;
                }
                assertTrue(queued.size() < 64, "the backlog of 1 never filled");
            }
            ErrnoException e = assertThrows(ErrnoException.class, () -> GroutClient.connect(
                    ClientOptions.defaults().socketPath(path).backend(Backend.parse(backend))
                    .connectTimeoutMillis(200)));
            assertEquals("connect(" + path
                    + "): ETIMEDOUT (110) Connection timed out: the server accepted no connection within the connect "
                    + "timeout of 200 ms (its listen backlog is full: it does not accept, or not fast enough)",
                            e.getMessage());
        } finally {
            for (UnixSocket s : queued) s.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"epoll", "io_uring"})
    void aServerThatNeverReadsEndsTheSendAtItsTimeoutAndTheClientSaysWhy(String backend) throws Exception {
        String path = dir.resolve("no-read.sock").toString();
        CountDownLatch end = new CountDownLatch(1);
        try (RawServer raw = new RawServer(path, c -> end.await(30, TimeUnit.SECONDS));
             Arena a = Arena.ofConfined()) {
            GroutClient client = GroutClient.connect(ClientOptions.defaults().socketPath(path)
                    .backend(Backend.parse(backend))
                    .socketBufferSize(4096).sendTimeoutMillis(200).receiveTimeoutMillis(30_000));
            try {
                MemorySegment p = a.allocate(GroutApi.MAX_MSG_LEN);
                ErrnoException e = null;
                // A pipeline sends without waiting for answers (a call would wait for its answer, and on io_uring its
                // send is bounded by the receive timeout, as it goes out with the receive): each flush is one send.
                try (Pipeline pl = client.pipeline(PipelineOptions.window(64))) {
                    for (int i = 0; i < 64 && e == null; i++) {
                        try {
                            pl.queue(GroutApi.PING, p, 0, p.byteSize());
                            pl.flush();
                        } catch (ErrnoException x) {
                            e = x;
                        }
                    }
                }
                assertTrue(e != null, "64 sends of 128 KiB to a server that reads nothing all went out");
                String expected = backend.equals("epoll")
                        ? "send(" + path + "): ETIMEDOUT (110) Connection timed out: the server took "
                        : "send(" + path
                                + "): ETIMEDOUT (110) Connection timed out: the server did not take the request's "
                                        + "bytes within 200 ms (it does not read)";
                assertTrue(e.getMessage().startsWith(expected), e.getMessage());
                if (backend.equals("epoll")) assertTrue(e.getMessage()
                        .endsWith(" bytes within the send timeout of 200 ms (it does not read)"), e.getMessage());
                assertFalse(client.isUsable());
                ErrnoException after = assertThrows(ErrnoException.class, () -> client.call(GroutApi.PING));
                assertEquals("client(" + path
                        + "): ENOTCONN (107) Transport endpoint is not connected: unusable since: " + e.getMessage(),
                                after.getMessage());
            } finally {
                end.countDown();
                client.close();
            }
        }
    }
}
