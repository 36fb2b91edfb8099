package org.sysframe.transport;

import org.sysframe.transport.support.RawServer;
import org.sysframe.transport.support.TestServers;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.unix.ErrnoException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Virtual threads waiting for a server never pin their carriers: twice as many waiters as the
 * virtual-thread scheduler has carriers (2 on this machine's 2 cores) wait on a server that never
 * answers, on a plain GroutClient each (epoll) and on one SharedGroutClient, and a heartbeat virtual
 * thread keeps beating all the while (with a blocking recv on each carrier it would count 0 beats);
 * 10,000 virtual threads calling one shared client record no {@code jdk.VirtualThreadPinned} event.
 */
class VirtualThreadWaitsTest {
    private static final int CARRIERS = Integer.getInteger("jdk.virtualThreadScheduler.parallelism",
            Runtime.getRuntime().availableProcessors());

    @TempDir Path dir;

    /** Starts a heartbeat virtual thread: a beat every 5 ms until stopped. */
    private static Thread heartbeat(AtomicLong beats, java.util.concurrent.atomic.AtomicBoolean stop) {
        return Thread.ofVirtual().name("heartbeat").start(() -> {
            while (!stop.get()) {
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
                beats.incrementAndGet();
            }
        });
    }

    @Test
    void aHeartbeatKeepsBeatingWhileVirtualThreadsWaitOnAServerThatNeverAnswers() throws Exception {
        String path = dir.resolve("silent.sock").toString();
        int waiters = 2 * CARRIERS;
        List<RawServer> servers = new ArrayList<>();
        try {
            // One silent server per plain client (a raw server takes one connection), one for the shared client.
            for (int i = 0; i <= waiters; i++) {
                servers.add(new RawServer(path + i, conn -> {
                    while (true) conn.readRequest(); // reads, never answers, until the client goes
                }));
            }
            AtomicLong beats = new AtomicLong();
            var stop = new java.util.concurrent.atomic.AtomicBoolean();
            Thread heart = heartbeat(beats, stop);
            ConcurrentLinkedQueue<Long> beatsDuringWaits = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<String> outcomes = new ConcurrentLinkedQueue<>();
            ClientOptions shared = ClientOptions.defaults().socketPath(path + waiters).receiveTimeoutMillis(1500);
            try (SharedGroutClient sc = SharedGroutClient.connect(shared)) {
                List<Thread> threads = new ArrayList<>();
                for (int i = 0; i < waiters; i++) {
                    String p = path + i;
                    threads.add(Thread.ofVirtual().start(() -> {
                        try (GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(p).backend(Backend.EPOLL)
                                .receiveTimeoutMillis(1500))) {
                            long b0 = beats.get();
                            try {
                                c.sendRecv(GroutApi.PING);
                            } finally {
                                beatsDuringWaits.add(beats.get() - b0);
                            }
                            outcomes.add("answered");
                        } catch (Exception e) {
                            outcomes.add(e instanceof ErrnoException x ? x.errnoName() : e.toString());
                        }
                    }));
                    threads.add(Thread.ofVirtual().start(() -> {
                        long b0 = beats.get();
                        try {
                            sc.call(GroutApi.PING);
                            outcomes.add("answered");
                        } catch (Exception e) {
                            outcomes.add(e instanceof ErrnoException x ? x.errnoName() : e.toString());
                        } finally {
                            beatsDuringWaits.add(beats.get() - b0);
                        }
                    }));
                }
                for (Thread t : threads) t.join(20_000);
                for (Thread t : threads) assertFalse(t.isAlive(), "a waiter hangs");
            }
            stop.set(true);
            heart.join(5000);
            assertEquals(List.of("ETIMEDOUT"), outcomes.stream().distinct().toList(), "every wait ended by its receive timeout");
            assertEquals(2 * waiters, outcomes.size());
            // A 1.5 s wait sees about 300 beats of 5 ms; with the waits pinning the carriers a run saw 4 beats in all.
            long fewest = beatsDuringWaits.stream().mapToLong(Long::longValue).min().orElseThrow();
            assertTrue(fewest >= 20, "the heartbeat stopped while " + 2 * waiters + " virtual threads waited on "
                    + CARRIERS + " carriers: beats during each wait " + beatsDuringWaits);
        } finally {
            for (RawServer s : servers) s.close();
        }
    }

    @Test
    void tenThousandVirtualThreadsOnOneSharedClientRecordNoPinning() throws Exception {
        String path = dir.resolve("pinning.sock").toString();
        Path jfr = dir.resolve("pinning.jfr");
        try (GroutServer server = TestServers.start(ServerOptions.defaults().socketPath(path));
             SharedGroutClient c = SharedGroutClient.connect(path);
             Recording rec = new Recording()) {
            rec.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            rec.start();
            ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
                threads.add(Thread.ofVirtual().start(() -> {
                    try (Arena a = Arena.ofConfined()) {
                        MemorySegment p = a.allocate(32), out = a.allocate(32);
                        for (int k = 0; k < 3; k++) c.call(GroutApi.PING, p, 0, 32, out);
                    } catch (Exception e) {
                        failures.add(e.toString());
                    }
                }));
            }
            for (Thread t : threads) t.join(60_000);
            rec.stop();
            rec.dump(jfr);
            assertEquals(List.of(), List.copyOf(failures));
            assertEquals(30_001, c.stats().calls());
            List<RecordedEvent> pinned = RecordingFile.readAllEvents(jfr).stream()
                    .filter(e -> e.getEventType().getName().equals("jdk.VirtualThreadPinned")).toList();
            assertEquals(List.of(), pinned.stream().map(RecordedEvent::toString).toList());
        }
    }
}
