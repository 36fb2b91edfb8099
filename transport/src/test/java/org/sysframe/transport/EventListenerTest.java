package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.TestClients;
import org.sysframe.transport.support.TestServers;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sysframe.transport.support.Payloads.pattern;

/**
 * Events taken three ways on the one client: a listener ({@link GroutClient#onEvent}) gets every event
 * in arrival order on the client's own thread while nobody calls (the thread waits for them idly), and
 * still while the client is called; a client without one takes them with a timed
 * {@link GroutClient#nextEvent(Duration)} (null when none came) or {@link GroutClient#pollEvent()}.
 */
@EachBackend(alsoOverSharedMemory = true)
class EventListenerTest {
    @TempDir Path dir;

    @Test
    void aListenerGetsEveryEventInOrderOnTheClientsThreadWhetherOrNotTheClientIsCalled() throws Exception {
        String path = dir.resolve("listen.sock").toString();
        int n = 6;
        try (GroutServer server = TestServers.start(new StreamsAndEventsTest().serverOptions(path,
                FlushMode.IMMEDIATE));
             GroutClient listening = TestClients.connect(StreamsAndEventsTest.clientOptions(path,
                     RecvFraming.READAHEAD));
             GroutClient publisher = TestClients.connect(StreamsAndEventsTest.clientOptions(path,
                     RecvFraming.READAHEAD));
             Arena a = Arena.ofConfined()) {
            listening.subscribe(StreamsAndEventsTest.EV1, false);
            List<String> threads = new ArrayList<>();
            List<byte[]> got = new ArrayList<>();
            CountDownLatch all = new CountDownLatch(n);
            listening.onEvent(e -> {
                synchronized (got) {
                    got.add(e.toByteArray());
                    threads.add(Thread.currentThread().getName());
                }
                all.countDown();
            });
            assertThrows(IllegalStateException.class, () -> listening.nextEvent(Duration.ofMillis(1)),
                    "the listener takes every event");
            assertThrows(IllegalStateException.class, listening::pollEvent);
            List<byte[]> sent = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                byte[] p = pattern(8 + k, 50 + k);
                sent.add(p);
                publisher.call(StreamsAndEventsTest.PUBLISH,
                        StreamsAndEventsTest.publishRequest(a, StreamsAndEventsTest.EV1, p));
                // Half of them arrive while the listening client is called too: its callers take the role from the idle
                // thread.
                if (k % 2 == 1) StreamsAndEventsTest.assertPing(listening, a, pattern(16, k));
            }
            assertTrue(all.await(20, TimeUnit.SECONDS), "every event reached the listener");
            synchronized (got) {
                for (int k = 0; k < n; k++) assertArrayEquals(sent.get(k), got.get(k), "event " + k + " in order");
                assertEquals(List.of("sysframe-client(" + path + ")"), threads.stream().distinct().toList(),
                        "on the client's own thread");
            }
            assertEquals(n, listening.stats().events());
            assertEquals(0, listening.stats().eventsDropped());
            assertEquals(0, listening.pendingEvents());
        }
    }

    @Test
    void withoutAListenerEventsAreTakenByATimedWaitOrAPoll() throws Exception {
        String path = dir.resolve("take.sock").toString();
        try (GroutServer server = TestServers.start(new StreamsAndEventsTest().serverOptions(path,
                FlushMode.IMMEDIATE));
             GroutClient c = TestClients.connect(StreamsAndEventsTest.clientOptions(path, RecvFraming.READAHEAD));
             GroutClient publisher = TestClients.connect(StreamsAndEventsTest.clientOptions(path,
                     RecvFraming.READAHEAD));
             Arena a = Arena.ofConfined()) {
            c.subscribe(StreamsAndEventsTest.EV1, false);
            assertNull(c.pollEvent(), "nothing came");
            long t0 = System.nanoTime();
            assertNull(c.nextEvent(Duration.ofMillis(100)), "nothing within 100 ms");
            assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(100), "waited the timeout");
            byte[] p = pattern(12, 7);
            publisher.call(StreamsAndEventsTest.PUBLISH,
                    StreamsAndEventsTest.publishRequest(a, StreamsAndEventsTest.EV1, p));
            Event e = c.nextEvent(Duration.ofSeconds(10));
            assertEquals(StreamsAndEventsTest.EV1, e.type());
            assertArrayEquals(p, e.toByteArray());
            publisher.call(StreamsAndEventsTest.PUBLISH,
                    StreamsAndEventsTest.publishRequest(a, StreamsAndEventsTest.EV1, p));
            StreamsAndEventsTest.assertPing(c, a, pattern(4, 4)); // the call reads the event and keeps it
            assertEquals(1, c.pendingEvents());
            assertArrayEquals(p, c.pollEvent().toByteArray());
            assertNull(c.pollEvent());
        }
    }
}
