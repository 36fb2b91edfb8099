package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.LoopsIndependent;
import org.sysframe.transport.support.TestClients;
import org.sysframe.transport.wire.GroutApi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sysframe.testsupport.WireBytes;
import org.sysframe.transport.support.RawRequest;
import org.sysframe.transport.support.RawServer;
import org.sysframe.unix.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sysframe.transport.support.Payloads.nativeCopy;
import static org.sysframe.transport.support.Payloads.pattern;

/**
 * Nothing waits forever: against a peer that reads and never answers, one that starts an answer and
 * stalls, and one that answers with the wrong id, a call ends at the receive timeout with one line
 * saying what did not come, on both backends and with both receive framings (a future's as well,
 * naming its request). A call that timed out leaves the client usable (its late answer is dropped
 * and counted); a message cut off half-way
 * breaks it. A second answer for one request answers no call: it is dropped and counted (unmatched),
 * never kept nor matched to a later request. Outcomes are pinned; nothing is timed.
 */
@EachBackend(alsoOverSharedMemory = true)
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@LoopsIndependent
class ClientTimeoutsTest {
    static final long TIMEOUT_MS = 200;
    @TempDir Path dir;

    private ClientOptions client(String path, String recv) {
        return TestClients.options(path).recv(RecvFraming.parse(recv))
                .receiveTimeoutMillis(TIMEOUT_MS);
    }

    @Test
    void theDefaultReceiveTimeoutIsFiveSeconds() {
        assertEquals(5000, ClientOptions.defaults().freeze().receiveTimeoutMillis());
        assertEquals(ClientOptions.DEFAULT_RECEIVE_TIMEOUT_MILLIS,
                ClientOptions.defaults().freeze().receiveTimeoutMillis());
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void aPeerThatReadsAndNeverAnswersEndsTheCallAtTheTimeout(String recv) throws Exception {
        String path = dir.resolve("silent.sock").toString();
        try (RawServer raw = new RawServer(path, c -> {
                c.expect(GroutApi.PING, pattern(8, 1));
                c.awaitEof();
            });
             GroutClient client = TestClients.connect(client(path, recv)); Arena a = Arena.ofConfined()) {
            ErrnoException e = assertThrows(ErrnoException.class, () ->
                    client.call(GroutApi.PING, nativeCopy(a, pattern(8, 1))));
            assertEquals("GR_PING: ETIMEDOUT (110) Connection timed out: no answer to request "
                    + TestClients.firstId(client)
                    + " within the receive timeout of 200 ms (the client stays usable; a late answer is dropped)",
                            e.getMessage());
            assertTrue(client.isUsable(), "a call's timeout leaves the client usable");
            client.close();
            raw.awaitScript();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void aPeerThatAnnouncesTwoBytesSendsOneAndStallsEndsTheCallAtTheTimeout(String recv) throws Exception {
        String path = dir.resolve("stalled.sock").toString();
        try (RawServer raw = new RawServer(path, c -> {
                RawRequest r = c.expect(GroutApi.PING, pattern(8, 2));
                c.write(WireBytes.concat(WireBytes.response(r.id(), 0, 2, new byte[0]), new byte[] {7}));
                c.awaitEof();
            });
             GroutClient client = TestClients.connect(client(path, recv)); Arena a = Arena.ofConfined()) {
            ErrnoException e = assertThrows(ErrnoException.class, () ->
                    client.call(GroutApi.PING, nativeCopy(a, pattern(8, 2))));
            assertEquals("recv(" + path
                    + "): ETIMEDOUT (110) Connection timed out: a message stopped arriving: 13 of its 14 bytes came,"
                    + " then nothing for 200 ms (the receive timeout)", e.getMessage());
            assertFalse(client.isUsable(), "a message cut off half-way leaves the stream out of step");
            ErrnoException next = assertThrows(ErrnoException.class, () -> client.call(GroutApi.PING));
            assertEquals("client(" + path + "): ENOTCONN (107) Transport endpoint is not connected: unusable since: "
                    + e.getMessage(),
                    next.getMessage());
            client.close();
            raw.awaitScript();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void aPeerThatAnswersForIdPlus1000EndsTheCallAtTheTimeoutNamingWhatCame(String recv) throws Exception {
        String path = dir.resolve("wrongid.sock").toString();
        try (RawServer raw = new RawServer(path, c -> {
                RawRequest r = c.expect(GroutApi.PING, pattern(8, 3));
                c.respond(r.id() + 1000, 0, r.payload());
                c.awaitEof();
            });
             GroutClient client = TestClients.connect(client(path, recv)); Arena a = Arena.ofConfined()) {
            ErrnoException e = assertThrows(ErrnoException.class, () ->
                    client.call(GroutApi.PING, nativeCopy(a, pattern(8, 3))));
            assertEquals("GR_PING: ETIMEDOUT (110) Connection timed out: no answer to request "
                    + TestClients.firstId(client)
                    + " within the receive timeout of 200 ms (the client stays usable; a late answer is dropped)",
                            e.getMessage());
            assertEquals(1, client.stats().unmatched(),
                    "the answer for id 1002 came, answered no call, and was counted");
            assertEquals(0, client.stats().late());
            assertEquals(1, client.stats().failed(), "the call ended without its answer");
            assertEquals(1, client.stats().timedOut());
            assertTrue(client.isUsable());
            client.close();
            raw.awaitScript();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void aFutureUnansweredPastTheReceiveTimeoutFailsWithEtimedoutNamingItsRequestAndTheClientGoesOn(
            String recv) throws Exception {
        String path = dir.resolve("future.sock").toString();
        try (RawServer raw = new RawServer(path, c -> {
                c.expect(GroutApi.PING, pattern(8, 6)); // never answered
                RawRequest next = c.expect(GroutApi.PING, pattern(8, 7));
                c.respond(next.id(), 0, next.payload());
                c.awaitEof();
            });
             GroutClient client = TestClients.connect(client(path, recv)); Arena a = Arena.ofConfined()) {
            CompletableFuture<Response> f = client.callAsync(GroutApi.PING, nativeCopy(a, pattern(8, 6)));
            ExecutionException x = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
            ErrnoException e = assertInstanceOf(ErrnoException.class, x.getCause());
            assertEquals("GR_PING: ETIMEDOUT (110) Connection timed out: no answer to request "
                    + TestClients.firstId(client)
                    + " within the receive timeout of 200 ms (the client stays usable; a late answer is dropped)",
                            e.getMessage());
            assertTrue(client.isUsable());
            assertArrayEquals(pattern(8, 7), client.call(GroutApi.PING, nativeCopy(a, pattern(8, 7))).toByteArray());
            client.close();
            raw.awaitScript();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void aSecondAnswerForOneRequestIsDroppedAndCountedAndTheNextCallGetsItsOwn(String recv) throws Exception {
        String path = dir.resolve("twice.sock").toString();
        try (RawServer raw = new RawServer(path, c -> {
                RawRequest r = c.expect(GroutApi.PING, pattern(4, 4));
                c.respond(r.id(), 0, r.payload());
                c.respond(r.id(), 0, pattern(4, 99)); // the duplicate: for an id no call waits on any more
                RawRequest next = c.expect(GroutApi.PING, pattern(4, 5));
                c.respond(next.id(), 0, next.payload());
                c.awaitEof();
            });
             GroutClient client = TestClients.connect(client(path, recv)); Arena a = Arena.ofConfined()) {
            assertArrayEquals(pattern(4, 4), client.call(GroutApi.PING, nativeCopy(a, pattern(4, 4))).toByteArray());
            Response r = client.call(GroutApi.PING, nativeCopy(a, pattern(4, 5)));
            assertArrayEquals(pattern(4, 5), r.toByteArray(), "the next call got its own answer, not the duplicate");
            assertEquals(TestClients.firstId(client) + 1, r.id());
            assertEquals(1, client.stats().unmatched(),
                    "the second answer for the first request was dropped and counted");
            assertEquals(0, client.stats().late());
            assertEquals(0, client.stats().failed(), "every call got its answer");
            assertTrue(client.isUsable());
            client.close();
            raw.awaitScript();
        }
    }

    @Test
    void aStreamsManyAnswersForOneIdAreNoDuplicates() throws Exception {
        String path = dir.resolve("stream.sock").toString();
        try (RawServer raw = new RawServer(path, c -> {
                RawRequest r = c.readRequest();
                c.write(WireBytes.concat(WireBytes.response(r.id(), 0, pattern(4, 6)),
                        WireBytes.response(r.id(), 0, pattern(4, 7)), WireBytes.response(r.id(), 0, new byte[0])));
                RawRequest next = c.expect(GroutApi.PING, pattern(4, 8));
                c.respond(next.id(), 0, next.payload());
                c.awaitEof();
            });
             GroutClient client = TestClients.connect(client(path, "readahead")); Arena a = Arena.ofConfined()) {
            int items = 0;
            try (ResponseStream s = client.stream(GroutApi.PING, MemorySegment.NULL, 0, 0)) {
                while (s.next()) items++;
            }
            assertEquals(2, items);
            assertArrayEquals(pattern(4, 8), client.call(GroutApi.PING, nativeCopy(a, pattern(4, 8))).toByteArray());
            client.close();
            raw.awaitScript();
        }
    }

    @Test
    void nextEventReturnsNullWhenNoEventCameInItsTimeAndWaitsPastTheReceiveTimeoutForOneToStart() throws Exception {
        String path = dir.resolve("events.sock").toString();
        CountDownLatch go = new CountDownLatch(1);
        try (RawServer raw = new RawServer(path, c -> {
                go.await();
                Thread.sleep(3 * TIMEOUT_MS); // longer than the receive timeout: waiting for an event is no failure
                c.write(WireBytes.event(GroutApi.type(0x5f5f, 1), pattern(4, 9)));
                c.awaitEof();
            });
             GroutClient client = TestClients.connect(client(path, "readahead"))) {
            assertNull(client.nextEvent(Duration.ofMillis(TIMEOUT_MS)),
                    "no event can come before go: null at the wait's end");
            assertNull(client.pollEvent());
            assertTrue(client.isUsable(), "no event in time is no failure");
            go.countDown();
            Event ev = client.nextEvent(Duration.ofSeconds(10));
            assertEquals(GroutApi.type(0x5f5f, 1), ev.type());
            assertArrayEquals(pattern(4, 9), ev.toByteArray());
            assertEquals(0, client.pendingEvents());
            client.close();
            raw.awaitScript();
        }
    }
}
