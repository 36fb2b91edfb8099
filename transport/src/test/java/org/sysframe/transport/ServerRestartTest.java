package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.wire.GroutApi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sysframe.transport.support.ServerFixture;
import org.sysframe.transport.support.ThreadStates;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.Self;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.sysframe.transport.support.ServerFixture.guard;
import static org.sysframe.transport.support.ServerFixture.clientOptions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sysframe.transport.support.Pings.ping;
import static org.sysframe.transport.support.ServerFixture.awaitConnectionCount;

/**
 * A server restarted on the same path: old connections fail with EPIPE or ECONNRESET (nothing reconnects
 * by itself), and new connects reach the new server.
 * Outcomes are exact; waits are bounded only as hang guards.
 */
@EachBackend
class ServerRestartTest {
    /** futex(2) on x86_64: where a parked thread waits. */
    private static final int FUTEX = 202;

    @RegisterExtension
    final ServerFixture fx = new ServerFixture();

    private static void closeAll(List<GroutClient> clients) {
        for (GroutClient c : clients) c.close();
    }

    @Test
    void serverRestartedOnTheSamePathFailsOldConnectionsWithEpipeOrEconnresetAndNewConnectsWork() throws Exception {
        String p = fx.path("restart.sock");
        final int loopers = 4;
        guard(() -> {
            GroutServer first = fx.start(ServerOptions.defaults().socketPath(p).maxIfaces(1001));
            List<GroutClient> clients = new ArrayList<>();
            try {
                // An idle client, and one waiting for an event (on its own thread: parked, its socket watched by the
                // JVM's poller).
                GroutClient idle = GroutClient.connect(clientOptions(p));
                clients.add(idle);
                AtomicInteger waitingTid = new AtomicInteger();
                AtomicReference<Throwable> waitOutcome = new AtomicReference<>();
                CountDownLatch subscribed = new CountDownLatch(1);
                Thread waiter = new Thread(() -> {
                    waitingTid.set(Self.tid());
                    try (GroutClient waiting = GroutClient.connect(clientOptions(p))) {
                        waiting.subscribe(GroutApi.EVENT_ALL, false);
                        subscribed.countDown();
                        // longer than the whole test: it ends by the failure
                        Event ev = waiting.nextEvent(Duration.ofSeconds(60));
                        waitOutcome.set(new AssertionError(ev == null ? "no event and no failure in 60 s"
                                : "an event arrived: " + ev));
                    } catch (Throwable t) {
                        waitOutcome.set(t);
                    } finally {
                        subscribed.countDown();
                    }
                }, "restart-waiter");
                waiter.setDaemon(true);
                waiter.start();

                // Clients that ping in a loop and reconnect whenever their connection fails.
                ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
                List<Map<String, Integer>> oldFailures = new ArrayList<>();
                List<Map<String, Integer>> connectFailures = new ArrayList<>();
                AtomicInteger onFirst = new AtomicInteger();
                List<Thread> threads = new ArrayList<>();
                for (int i = 0; i < loopers; i++) {
                    final int id = i;
                    Map<String, Integer> oldF = new TreeMap<>(), connF = new TreeMap<>();
                    oldFailures.add(oldF);
                    connectFailures.add(connF);
                    Thread th = new Thread(() -> {
                        GroutClient c = null;
                        int pingsOnFirst = 0, pingsOnSecond = 0;
                        try {
                            while (pingsOnSecond < 20) {
                                if (c == null) {
                                    try {
                                        c = GroutClient.connect(clientOptions(p));
                                    } catch (ErrnoException e) {
                                        connF.merge(e.errnoName(), 1, Integer::sum);
                                        Thread.sleep(1);
                                        continue;
                                    }
                                }
                                try {
                                    ping(c, id, 1 + (pingsOnFirst + pingsOnSecond) % 3000);
                                } catch (ErrnoException e) {
                                    oldF.merge(e.errnoName(), 1, Integer::sum);
                                    c.close();
                                    c = null;
                                    continue;
                                }
                                if (c.maxIfaces() == 1001) {
                                    if (++pingsOnFirst == 20) onFirst.incrementAndGet();
                                } else {
                                    pingsOnSecond++;
                                }
                            }
                        } catch (Throwable t) {
                            failures.add(t);
                        } finally {
                            if (c != null) c.close();
                        }
                    }, "restart-looper-" + i);
                    th.setDaemon(true);
                    threads.add(th);
                    th.start();
                }

                subscribed.await();
                // Waiting for an event parks the thread (futex) while the JVM's poller thread waits for the socket to
                // become readable.
                ThreadStates.awaitBlockedIn(waitingTid.get(), FUTEX);
                for (int i = 0; i < 15_000 && onFirst.get() < loopers; i++) Thread.sleep(2);
                assertEquals(loopers, onFirst.get(), "loopers pinging the first server");

                first.close();
                GroutServer second = fx.start(ServerOptions.defaults().socketPath(p).maxIfaces(1002));
                for (Thread th : threads) th.join();
                waiter.join();
                assertEquals(List.of(), List.copyOf(failures));

                // Waiting for an event when the server went away: EOF (ECONNRESET) broke the client, and the wait ends
                // with ENOTCONN naming it.
                Throwable w = waitOutcome.get();
                assertTrue(w instanceof ErrnoException, String.valueOf(w));
                assertEquals(Errno.ENOTCONN, ((ErrnoException) w).errno(), w.getMessage());
                assertTrue(w.getMessage().contains("unusable since: recv(" + p
                        + "): ECONNRESET (104) Connection reset by peer"), w.getMessage());
                assertTrue(w.getMessage().endsWith("server closed the connection"), w.getMessage());
                // Idle when it went away: the next call is a send to a closed peer, EPIPE, even though a
                // server answers on the same path again: nothing reconnects by itself.
                ErrnoException e = assertThrows(ErrnoException.class, () -> ping(idle, 7, 10));
                assertEquals(Errno.EPIPE, e.errno(), e.getMessage());
                assertFalse(idle.isUsable());
                ErrnoException again = assertThrows(ErrnoException.class, () -> ping(idle, 7, 10));
                assertEquals(Errno.ENOTCONN, again.errno(), again.getMessage());

                GroutClient fresh = GroutClient.connect(clientOptions(p));
                clients.add(fresh);
                assertEquals(1002, fresh.maxIfaces());
                ping(fresh, 8, GroutApi.MAX_MSG_LEN);

                System.out.println("restart: loopers' failures on their connection to the old server " + oldFailures
                        + ", their reconnect failures " + connectFailures + "; waiting client: " + w.getMessage()
                        + "; idle client: " + e.getMessage());
                for (int i = 0; i < loopers; i++) {
                    Map<String, Integer> oldF = oldFailures.get(i);
                    assertEquals(1, oldF.values().stream().mapToInt(Integer::intValue).sum(), "looper " + i + ": "
                            + oldF);
                    assertTrue(oldF.containsKey("EPIPE") || oldF.containsKey("ECONNRESET"), "looper " + i + ": "
                            + oldF);
                    assertTrue(List.of("ENOENT", "ECONNREFUSED", "EPIPE", "ECONNRESET")
                            .containsAll(connectFailures.get(i).keySet()),
                            "looper " + i + " reconnect failures: " + connectFailures.get(i));
                }
                awaitConnectionCount(second, 1);
                List<String> reasons = first.closedConnections().stream().map(ConnectionStats::closeReason).distinct()
                        .toList();
                assertEquals(List.of("server shutdown"), reasons);
            } finally {
                closeAll(clients);
            }
        });
    }
}
