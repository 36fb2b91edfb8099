package org.sysframe.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.testsupport.WireBytes;
import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.PoolServer;
import org.sysframe.transport.support.RawRequest;
import org.sysframe.transport.support.TestServers;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sysframe.transport.support.Payloads.pattern;

/**
 * A pool of connections behind one client ({@link ClientOptions#connections}): calls go to a
 * connection with room; each connection keeps its own counters and the client's sum them exactly; a
 * connection the server closes fails only the call on it, and the next call that picks it connects
 * anew, never with more than the pool's size open.
 */
@EachBackend
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ConnectionPoolTest {
    @TempDir Path dir;

    private ClientOptions options(String path) {
        return ClientOptions.defaults().socketPath(path).receiveTimeoutMillis(20_000);
    }

    @Test
    void withACapOfOneFourCallsAtOnceGoOnFourConnections() throws Exception {
        String path = dir.resolve("four.sock").toString();
        CountDownLatch allIn = new CountDownLatch(4);
        // Each connection answers its first request only once all four connections have one: a pool that put
        // two calls on one connection (beyond the cap) would leave the latch short and every call would time out.
        try (PoolServer server = new PoolServer(path, (index, conn) -> {
                 RawRequest r = conn.readRequest();
                 allIn.countDown();
                 assertTrue(allIn.await(20, TimeUnit.SECONDS), "four requests on four connections");
                 conn.write(WireBytes.response(r.id(), 0, r.payload()));
                 conn.awaitEof();
             });
             GroutClient c = GroutClient.connect(options(path).maxInFlight(1).connections(4))) {
            assertEquals(4, server.accepted(), "four connections, each said GR_HELLO");
            List<CompletableFuture<Response>> fs = new ArrayList<>();
            for (int k = 0; k < 4; k++) fs.add(c.callAsync(GroutApi.PING, MemorySegment.ofArray(pattern(6, k))));
            for (int k = 0; k < 4; k++) assertArrayEquals(pattern(6, k),
                    fs.get(k).get(30, TimeUnit.SECONDS).toByteArray());
            List<SyscallCounters> each = c.connectionCounters();
            assertEquals(4, each.size());
            SyscallCounts io = c.ioThreadCounts();
            for (SyscallKind kind : SyscallKind.values()) {
                long sum = io.get(kind);
                for (SyscallCounters s : each) sum += s.get(kind);
                assertEquals(sum, c.counters().get(kind), "the client's " + kind
                        + " is the sum of its connections' and its I/O thread's");
            }
            if (c.backend() == Backend.EPOLL) {
                // The futures' requests and answers went through the connections, one each: 4 hellos and 4 pings.
                long sent = 0, received = 0;
                for (SyscallCounters s : each) {
                    sent += s.get(SyscallKind.SENDTO);
                    received += s.get(SyscallKind.RECVFROM);
                }
                assertEquals(8, sent);
                assertEquals(8, received);
                assertTrue(io.get(SyscallKind.EPOLL_WAIT) > 0, "the pool's I/O thread waited for the answers: " + io);
            } else {
                assertEquals(SyscallCounts.ZERO, io, "io_uring: a thread per connection, no pool I/O thread");
            }
            assertEquals(4 + 4, c.stats().calls(), "four hellos and four calls");
            assertEquals(List.of(), server.failures());
        }
    }

    @Test
    void manyCallersOverAPoolAgainstSysframesServerAllGetTheirAnswers() throws Exception {
        String path = dir.resolve("many.sock").toString();
        try (GroutServer server = TestServers.start(ServerOptions.defaults().socketPath(path));
             GroutClient c = GroutClient.connect(options(path).connections(3))) {
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failed = new CopyOnWriteArrayList<>();
            for (int t = 0; t < 12; t++) {
                int seed = t;
                threads.add((t % 2 == 0 ? Thread.ofVirtual() : Thread.ofPlatform()).start(() -> {
                    try {
                        for (int k = 0; k < 100; k++) {
                            byte[] p = pattern(1 + k % 300, seed * 100 + k);
                            assertArrayEquals(p, c.call(GroutApi.PING, MemorySegment.ofArray(p)).toByteArray());
                        }
                    } catch (Throwable x) {
                        failed.add(x);
                    }
                }));
            }
            for (Thread t : threads) t.join();
            assertEquals(List.of(), failed);
            assertEquals(3 + 1200, c.stats().calls());
            assertEquals(0, c.stats().inFlight());
        }
    }

    @Test
    void aCapOfOneOverAPoolOfFourServesManyCallersOfAServerThatAnswersOneRequestPerRead() throws Exception {
        String path = dir.resolve("grout-like.sock").toString();
        try (GroutServer server = TestServers.start(ServerOptions.defaults().socketPath(path).requestsPerRead(1));
             GroutClient c = GroutClient.connect(options(path).maxInFlight(1).connections(4))) {
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failed = new CopyOnWriteArrayList<>();
            for (int t = 0; t < 32; t++) {
                int seed = t;
                threads.add((t % 2 == 0 ? Thread.ofVirtual() : Thread.ofPlatform()).start(() -> {
                    try {
                        for (int k = 0; k < 50; k++) {
                            byte[] p = pattern(1 + k % 64, seed * 100 + k);
                            assertArrayEquals(p, c.call(GroutApi.PING, MemorySegment.ofArray(p)).toByteArray());
                        }
                    } catch (Throwable x) {
                        failed.add(x);
                    }
                }));
            }
            for (Thread t : threads) t.join();
            assertEquals(List.of(), failed, "no call stalled");
            assertEquals(4 + 32 * 50, c.stats().calls());
            assertEquals(4, c.connectionCounters().size());
        }
    }

    @Test
    void aConnectionTheServerClosesFailsOnlyItsCallAndIsConnectedAnewByTheNextCall() throws Exception {
        String path = dir.resolve("breaks.sock").toString();
        CountDownLatch secondClosed = new CountDownLatch(1);
        try (PoolServer server = new PoolServer(path, (index, conn) -> {
                 if (index == 1) { // reads one request and goes without an answer
                     conn.readRequest();
                     conn.socket.close();
                     secondClosed.countDown();
                     return;
                 }
                 while (true) { // the others echo; the first holds its first answer until the second closed
                     RawRequest r;
                     try {
                         r = conn.readRequest();
                     } catch (ErrnoException eof) {
                         return;
                     }
                     if (index == 0) assertTrue(secondClosed.await(20, TimeUnit.SECONDS));
                     conn.write(WireBytes.response(r.id(), 0, r.payload()));
                 }
             });
             GroutClient c = GroutClient.connect(options(path).connections(2))) {
            CompletableFuture<Response> onFirst = c.callAsync(GroutApi.PING, MemorySegment.ofArray(pattern(5, 1)));
            CompletableFuture<Response> onSecond = c.callAsync(GroutApi.PING, MemorySegment.ofArray(pattern(5, 2)));
            ExecutionException broke = assertThrows(ExecutionException.class, () -> onSecond.get(30, TimeUnit.SECONDS));
            assertInstanceOf(ErrnoException.class, broke.getCause());
            assertArrayEquals(pattern(5, 1), onFirst.get(30, TimeUnit.SECONDS).toByteArray(),
                    "the other connection's call is answered");
            assertTrue(c.isUsable(), "a pool stays usable");
            for (int k = 0; k < 20; k++) assertArrayEquals(pattern(7, k),
                    c.call(GroutApi.PING, MemorySegment.ofArray(pattern(7, k))).toByteArray());
            assertEquals(3, server.accepted(), "the broken connection was connected anew, once");
            assertEquals(2, server.mostOpen(), "never more than the pool's two open");
            assertEquals(List.of(), server.failures());
        }
    }
}
