package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.wire.GroutApi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sysframe.testsupport.WireBytes;
import org.sysframe.transport.support.RawRequest;
import org.sysframe.transport.support.RawServer;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.sysframe.transport.support.Payloads.nativeCopy;
import static org.sysframe.transport.support.Payloads.pattern;

/**
 * Nothing waits forever: against a peer that reads and never answers, one that starts an answer and
 * stalls, and one that answers with the wrong id, a call ends at the receive timeout with one line
 * saying what did not come, on both backends and with both receive framings; two answers for one
 * request are an error (EPROTO), not a message kept aside. Outcomes are pinned; nothing is timed.
 */
@EachBackend
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ClientTimeoutsTest {
    static final long TIMEOUT_MS = 200;
    @TempDir Path dir;

    private ClientOptions client(String path, String recv) {
        return ClientOptions.defaults().socketPath(path).recv(RecvFraming.parse(recv))
                .receiveTimeoutMillis(TIMEOUT_MS);
    }

    @Test
    void theDefaultReceiveTimeoutIsFiveSeconds() {
        assertEquals(5000, ClientOptions.defaults().freeze().receiveTimeoutMillis());
        assertEquals(ClientOptions.DEFAULT_RECEIVE_TIMEOUT_MILLIS, ClientOptions.defaults().freeze().receiveTimeoutMillis());
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void aPeerThatReadsAndNeverAnswersEndsTheCallAtTheTimeout(String recv) throws Exception {
        String path = dir.resolve("silent.sock").toString();
        try (RawServer raw = new RawServer(path, c -> {
                c.expect(GroutApi.PING, pattern(8, 1));
                c.awaitEof();
            });
             GroutClient client = GroutClient.connect(client(path, recv)); Arena a = Arena.ofConfined()) {
            ErrnoException e = assertThrows(ErrnoException.class, () -> client.sendRecv(GroutApi.PING, nativeCopy(a, pattern(8, 1))));
            assertEquals("recv(" + path + "): ETIMEDOUT (110) Connection timed out: no answer to request 2 within the receive timeout of 200 ms",
                    e.getMessage());
            assertFalse(client.isUsable());
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
             GroutClient client = GroutClient.connect(client(path, recv)); Arena a = Arena.ofConfined()) {
            ErrnoException e = assertThrows(ErrnoException.class, () -> client.sendRecv(GroutApi.PING, nativeCopy(a, pattern(8, 2))));
            assertEquals("recv(" + path + "): ETIMEDOUT (110) Connection timed out: a message stopped arriving: 13 of its 14 bytes came"
                    + " while awaiting request 2, then nothing for 200 ms (the receive timeout)", e.getMessage());
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
             GroutClient client = GroutClient.connect(client(path, recv)); Arena a = Arena.ofConfined()) {
            ErrnoException e = assertThrows(ErrnoException.class, () -> client.sendRecv(GroutApi.PING, nativeCopy(a, pattern(8, 3))));
            assertEquals("recv(" + path + "): ETIMEDOUT (110) Connection timed out: no answer to request 2 within the receive timeout of 200 ms;"
                    + " meanwhile 1 answer for an id not awaited came (the last for_id 1002)", e.getMessage());
            client.close();
            raw.awaitScript();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"readahead", "exact"})
    void twoAnswersForOneRequestAreAnErrorOfTheNextCall(String recv) throws Exception {
        String path = dir.resolve("twice.sock").toString();
        try (RawServer raw = new RawServer(path, c -> {
                RawRequest r = c.expect(GroutApi.PING, pattern(4, 4));
                c.respond(r.id(), 0, r.payload());
                c.respond(r.id(), 0, r.payload());
                try {
                    c.expect(GroutApi.PING, pattern(4, 5)); // not answered: the client fails on the second answer for request 2
                    c.awaitEof();
                } catch (ErrnoException e) {
                    // io_uring submits the next request with its receive: the buffered second answer fails the call first
                    if (e.errno() != Errno.ECONNRESET) throw e;
                }
            });
             GroutClient client = GroutClient.connect(client(path, recv)); Arena a = Arena.ofConfined()) {
            assertArrayEquals(pattern(4, 4), client.sendRecv(GroutApi.PING, nativeCopy(a, pattern(4, 4))).toByteArray());
            ErrnoException e = assertThrows(ErrnoException.class, () -> client.sendRecv(GroutApi.PING, nativeCopy(a, pattern(4, 5))));
            assertEquals(71, e.errno());
            assertEquals("client(" + path + "): EPROTO (71) Protocol error: a second answer for request 2 (status 0, 4 bytes):"
                    + " the server answered it twice", e.getMessage());
            assertFalse(client.isUsable());
            client.close();
            raw.awaitScript();
        }
    }

    @Test
    void aStreamsManyAnswersForOneIdAreNoDuplicates() throws Exception {
        String path = dir.resolve("stream.sock").toString();
        try (RawServer raw = new RawServer(path, c -> {
                RawRequest r = c.readRequest();
                c.write(WireBytes.concat(WireBytes.response(r.id(), 0, pattern(4, 6)), WireBytes.response(r.id(), 0, pattern(4, 7)),
                        WireBytes.response(r.id(), 0, new byte[0])));
                RawRequest next = c.expect(GroutApi.PING, pattern(4, 8));
                c.respond(next.id(), 0, next.payload());
                c.awaitEof();
            });
             GroutClient client = GroutClient.connect(client(path, "readahead")); Arena a = Arena.ofConfined()) {
            int items = 0;
            try (ResponseStream s = client.stream(GroutApi.PING, MemorySegment.NULL, 0, 0)) {
                while (s.next()) items++;
            }
            assertEquals(2, items);
            assertArrayEquals(pattern(4, 8), client.sendRecv(GroutApi.PING, nativeCopy(a, pattern(4, 8))).toByteArray());
            client.close();
            raw.awaitScript();
        }
    }

    @Test
    void nextEventWaitsPastTheReceiveTimeoutForAnEventToStart() throws Exception {
        String path = dir.resolve("events.sock").toString();
        try (RawServer raw = new RawServer(path, c -> {
                Thread.sleep(3 * TIMEOUT_MS); // longer than the receive timeout: waiting for an event is no failure
                c.write(WireBytes.event(GroutApi.type(0x5f5f, 1), pattern(4, 9)));
                c.awaitEof();
            });
             GroutClient client = GroutClient.connect(client(path, "readahead"))) {
            Event ev = client.nextEvent();
            assertEquals(GroutApi.type(0x5f5f, 1), ev.type());
            assertArrayEquals(pattern(4, 9), ev.toByteArray());
            client.close();
            raw.awaitScript();
        }
    }
}
