package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.transport.support.TestServers;
import org.sysframe.transport.internal.io.InputBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.testsupport.Gc;
import org.sysframe.testsupport.ProcessProbe;
import org.sysframe.transport.support.ServerFixture;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * 256 client threads ping one server for {@code -Dsysframe.soak.seconds} (default 10) with payloads of
 * 0 B to 128 KiB (seeded, mostly small), every response checked byte for byte. Memory is sampled twice
 * while every client is connected and has used the largest payload (after a warm-up, and at the end),
 * each time with all clients held between two requests: the process's RSS and NMT's "Other" category
 * (where FFM arenas allocate) must be flat. Once all disconnect, descriptors return exactly to their
 * count before and "Other" to its level before. The server runs in this JVM, so RSS and NMT cover
 * clients and server together.
 */
@EachBackend
class SoakTest {
    private static final int CLIENTS = 256;
    private static final long SECONDS = Long.getLong("sysframe.soak.seconds", 10);
    /** Between the two samples with the same 256 connections open, nothing native may grow by more than this. */
    private static final long MAX_OTHER_GROWTH = 1L << 20;
    /** RSS includes the Java heap, whose committed size the GC may still adjust after the warm-up. */
    private static final long MAX_RSS_GROWTH = 48L << 20;

    private static final SendFraming[] SEND =
            {SendFraming.SPLIT, SendFraming.COPY, SendFraming.GATHER, SendFraming.COPY_GATHER};

    @TempDir
    Path dir;

    private GroutServer server;

    @AfterEach
    void tearDown() {
        if (server != null) server.close(); // also unblocks any client still waiting (hang case)
    }

    /** Payload sizes: 0 and 128 KiB first (so every connection has its largest buffers), then mostly small. */
    static int size(SplittableRandom r, long seq) {
        if (seq == 0) return GroutApi.MAX_MSG_LEN;
        if (seq == 1) return 0;
        int x = r.nextInt(100);
        if (x < 60) return r.nextInt(65);                       // 0..64 B
        if (x < 85) return r.nextInt(65, 1025);                 // ..1 KiB
        if (x < 95) return r.nextInt(1025, 16 * 1024 + 1);      // ..16 KiB
        if (x < 99) return r.nextInt(16 * 1024 + 1, 64 * 1024 + 1);
        return r.nextInt(64 * 1024 + 1, GroutApi.MAX_MSG_LEN + 1); // ..128 KiB
    }

    record Sample(String when, long rss, ProcessProbe.Nmt nmt, long fds, int connections) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%s: RSS %,d KiB, %s, %d fds, %d connections", when, rss / 1024, nmt,
                    fds, connections);
        }
    }

    private Sample sample(String when) throws Exception {
        Gc.settle();
        return new Sample(when, ProcessProbe.rssBytes(), ProcessProbe.nativeMemory(), ProcessProbe.openFds(),
                server.connectionCount());
    }

    /** Holds every client between two requests while memory is sampled. */
    static final class Gate {
        private volatile CountDownLatch arrived;
        private volatile CountDownLatch hold;

        /** Called by a client before each request. */
        void pass() throws InterruptedException {
            CountDownLatch h = hold;
            if (h != null) {
                arrived.countDown();
                h.await();
            }
        }

        void close(int parties) throws InterruptedException {
            arrived = new CountDownLatch(parties);
            hold = new CountDownLatch(1);
            assertTrue(arrived.await(60, TimeUnit.SECONDS), "clients did not reach the gate");
        }

        void open() {
            CountDownLatch h = hold;
            hold = null;
            h.countDown();
        }
    }

    @Test
    void twoHundredFiftySixClientsWithMixedPayloadsLoseNothingAndMemoryStaysFlat() throws Exception {
        String path = dir.resolve("soak.sock").toString();
        // A budget for this load: every client may hold a large request buffer (128 KiB + 12) and, on io_uring,
        // up to 128 KiB of an answer queued beyond its 64 KiB output area at once: 256 x 256 KiB is the default
        // 64 MiB exactly, and with two loops on io_uring the budget ran out (connections closed, proof run 3).
        server = TestServers.start(ServerOptions.defaults().socketPath(path)
                .memoryBudget(4L * CLIENTS * (InputBuffer.LARGE + GroutApi.MAX_MSG_LEN)));
        long warmUpSeconds = Math.max(2, SECONDS / 5);

        assertTimeoutPreemptively(Duration.ofSeconds(SECONDS + 120), () -> {
            Sample before = sample("before connecting");
            Gate gate = new Gate();
            CountDownLatch ready = new CountDownLatch(CLIENTS);
            CountDownLatch go = new CountDownLatch(1);
            AtomicLong requests = new AtomicLong(), bytes = new AtomicLong(), large = new AtomicLong();
            AtomicLong mismatched = new AtomicLong();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<String> mismatches = new ConcurrentLinkedQueue<>();
            long[] sentBy = new long[CLIENTS];
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> threads = new ArrayList<>();

            for (int t = 0; t < CLIENTS; t++) {
                final int id = t;
                Thread th = new Thread(() -> {
                    ClientOptions o = ClientOptions.defaults().socketPath(path).receiveTimeoutMillis(60_000)
                            .send(SEND[id % SEND.length]).recv(id % 2 == 0 ? RecvFraming.READAHEAD : RecvFraming.EXACT);
                    long seq = 0;
                    try (GroutClient c = GroutClient.connect(o); Arena a = Arena.ofConfined()) {
                        SplittableRandom r = new SplittableRandom(0x50A4L * 1_000_003 + id);
                        // Random source bytes, twice the largest payload: each request takes a slice at a
                        // random offset and is stamped with (client, sequence) in its first 8 bytes.
                        MemorySegment source = a.allocate(2L * GroutApi.MAX_MSG_LEN, 8);
                        for (long i = 0; i < source.byteSize(); i += 8) source.set(JAVA_LONG, i, r.nextLong());
                        MemorySegment req = a.allocate(GroutApi.MAX_MSG_LEN, 8);
                        ready.countDown();
                        go.await();
                        while (true) {
                            gate.pass();
                            if (stop.get()) break;
                            int len = size(r, seq);
                            MemorySegment.copy(source, r.nextInt(GroutApi.MAX_MSG_LEN + 1), req, 0, len);
                            if (len >= 8) req.set(JAVA_LONG_UNALIGNED, 0, ((long) id << 40) | seq);
                            Response resp = c.call(GroutApi.PING, req, 0, len);
                            seq++;
                            if (resp.status() != 0 || resp.length() != len
                                    || MemorySegment.mismatch(resp.buffer(), resp.offset(), resp.offset() + len, req,
                                            0, len) != -1) {
                                mismatched.incrementAndGet();
                                if (mismatches.size() < 10) {
                                    mismatches.add("client " + id + " request " + (seq - 1) + ": sent " + len
                                            + " bytes, got " + resp);
                                }
                            }
                            requests.incrementAndGet();
                            bytes.addAndGet(len);
                            if (len > 64 * 1024) large.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        failures.add(new AssertionError("client " + id + " after " + seq + " requests", e));
                        ready.countDown();
                    } finally {
                        sentBy[id] = seq;
                    }
                }, "soak-client-" + t);
                th.setDaemon(true);
                threads.add(th);
                th.start();
            }
            assertTrue(ready.await(60, TimeUnit.SECONDS), "clients did not connect");
            assertEquals(List.of(), List.copyOf(failures), "failures while connecting");
            assertEquals(CLIENTS, server.connectionCount());

            long start = System.nanoTime();
            go.countDown();
            Thread.sleep(TimeUnit.SECONDS.toMillis(warmUpSeconds));
            gate.close(CLIENTS);
            Sample warm = sample("after " + warmUpSeconds + " s warm-up");
            long requestsAtWarm = requests.get();
            gate.open();

            long left = TimeUnit.SECONDS.toNanos(SECONDS) - (System.nanoTime() - start);
            if (left > 0) Thread.sleep(TimeUnit.NANOSECONDS.toMillis(left));
            gate.close(CLIENTS);
            Sample end = sample("at the end (" + SECONDS + " s)");
            stop.set(true);
            gate.open();
            for (Thread th : threads) th.join();
            long elapsed = System.nanoTime() - start;

            ServerFixture.awaitConnectionCount(server, 0);
            Sample after = sample("after all disconnected");

            long n = requests.get();
            System.out.printf(Locale.ROOT,
                    "soak: %d clients, %,d requests (%,d after the warm-up, %,d over 64 KiB), %,d payload bytes each "
                    + "way,"
                            + " %,.0f requests/s, %d mismatched, %d failed clients%n",
                    CLIENTS, n, n - requestsAtWarm, large.get(), bytes.get(), n / (elapsed / 1e9), mismatched.get(),
                            failures.size());
            System.out.println("soak: " + before);
            System.out.println("soak: " + warm);
            System.out.println("soak: " + end);
            System.out.println("soak: " + after);
            System.out.printf(Locale.ROOT,
                    "soak: warm-up -> end: RSS %+,d KiB (limit %,d KiB), Other %+,d bytes (limit %,d);"
                            + " before -> after: fds %+d, Other %+,d bytes%n",
                    (end.rss() - warm.rss()) / 1024, MAX_RSS_GROWTH / 1024,
                    end.nmt().otherCommitted() - warm.nmt().otherCommitted(), MAX_OTHER_GROWTH,
                    after.fds() - before.fds(), after.nmt().otherCommitted() - before.nmt().otherCommitted());

            if (!failures.isEmpty()) {
                AssertionError e = new AssertionError(failures.size() + " clients failed; first: " + failures.peek());
                failures.forEach(e::addSuppressed);
                throw e;
            }
            assertEquals(0, mismatched.get(), "mismatched responses: " + mismatches);
            assertTrue(n - requestsAtWarm > 0, "no requests after the warm-up");

            // Every request reached the server and was answered: its count per connection is the
            // client's (plus the hello).
            List<ConnectionStats> closed = server.closedConnections();
            assertEquals(CLIENTS, closed.size());
            long served = closed.stream().mapToLong(ConnectionStats::requests).sum();
            long sent = Arrays.stream(sentBy).sum();
            assertEquals(n, sent);
            assertEquals(sent + CLIENTS, served, "requests the server handled (hellos included)");
            for (ConnectionStats s : closed) assertEquals("peer closed", s.closeReason(), s.toString());

            assertEquals(CLIENTS, warm.connections());
            assertEquals(CLIENTS, end.connections());
            long otherGrowth = end.nmt().otherCommitted() - warm.nmt().otherCommitted();
            assertTrue(otherGrowth <= MAX_OTHER_GROWTH, "NMT Other grew by " + otherGrowth + " bytes: " + warm + " -> "
                    + end);
            long rssGrowth = end.rss() - warm.rss();
            assertTrue(rssGrowth <= MAX_RSS_GROWTH, "RSS grew by " + rssGrowth / 1024 + " KiB: " + warm + " -> " + end);

            assertEquals(0, after.connections());
            assertEquals(before.fds(), after.fds(), "open descriptors after every client disconnected");
            long otherLeft = after.nmt().otherCommitted() - before.nmt().otherCommitted();
            assertTrue(otherLeft <= MAX_OTHER_GROWTH, "NMT Other is " + otherLeft + " bytes above its level before: "
                    + before + " -> " + after);
        });
    }
}
