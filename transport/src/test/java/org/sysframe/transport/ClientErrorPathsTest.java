package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.TestClients;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.transport.support.TestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.sysframe.testsupport.WireBytes;
import org.sysframe.transport.support.RawRequest;
import org.sysframe.transport.support.RawServer;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sysframe.transport.support.Payloads.nativeCopy;
import static org.sysframe.transport.support.Payloads.pattern;

/**
 * How a {@link GroutClient} fails when the server misbehaves (a hand-written raw server that answers
 * GR_HELLO correctly and then breaks the rules), and the statuses a real {@link GroutServer} answers
 * to bad requests. Every client-side test runs with each receive framing.
 */
@EachBackend(alsoOverSharedMemory = true)
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ClientErrorPathsTest {
    /**
     * counts without sched_yield: a thread that finds the client's lock held by another of its threads (preempted
     * on a busy machine) yields, a counted syscall, but no I/O.
     */
    static SyscallCounts io(SyscallCounts counts) { return counts.without(SyscallKind.SCHED_YIELD); }

    @TempDir Path dir;

    String sock(String name) { return dir.resolve(name).toString(); }

    static ClientOptions client(String path, String recvFraming) {
        return TestClients.options(path).recv(RecvFraming.parse(recvFraming));
    }

    // ---------------------------------------------------------------------------------------------
    // Client against a misbehaving raw server.

    @ParameterizedTest
    @ValueSource(strings = {"exact", "readahead", "readahead:64"})
    void helloAgainstRawServerReadsMaxIfacesAndAResponseOfExactly128KiBIsAccepted(String framing) throws Exception {
        String path = sock("max.sock");
        byte[] big = pattern(GroutApi.MAX_MSG_LEN, 5);
        try (RawServer raw = new RawServer(path, c -> {
                RawRequest r = c.expect(GroutApi.PING, pattern(3, 1));
                c.respond(r.id(), 0, big);
            });
             GroutClient client = TestClients.connect(client(path, framing));
             Arena a = Arena.ofConfined()) {
            assertEquals(RawServer.DEFAULT_MAX_IFACES, client.maxIfaces());
            Response r = client.call(GroutApi.PING, nativeCopy(a, pattern(3, 1)));
            assertEquals(0, r.status());
            assertEquals(GroutApi.MAX_MSG_LEN, r.length());
            assertArrayEquals(big, r.toByteArray());
            assertTrue(client.isUsable());
            raw.awaitScript();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"exact", "readahead", "readahead:64"})
    void responsePayloadOverMaxFailsWithEMSGSIZEAndBreaksTheClient(String framing) throws Exception {
        String path = sock("over.sock");
        try (RawServer raw = new RawServer(path, c -> {
                RawRequest r = c.expect(GroutApi.PING, pattern(8, 2));
                c.write(WireBytes.response(r.id(), 0, GroutApi.MAX_MSG_LEN + 1L, new byte[0]));
                c.awaitEof();
            });
             GroutClient client = TestClients.connect(client(path, framing));
             Arena a = Arena.ofConfined()) {
            MemorySegment p = nativeCopy(a, pattern(8, 2));
            ErrnoException first = assertThrows(ErrnoException.class, () -> client.call(GroutApi.PING, p));
            assertEquals(Errno.EMSGSIZE, first.errno());
            assertEquals("EMSGSIZE", first.errnoName());
            assertTrue(first.getMessage().contains("payload_len 131073"), first.getMessage());
            assertFalse(client.isUsable());

            SyscallCounts before = io(client.counters().snapshot());
            ErrnoException next = assertThrows(ErrnoException.class, () -> client.call(GroutApi.PING, p));
            assertEquals(Errno.ENOTCONN, next.errno());
            assertEquals("ENOTCONN", next.errnoName());
            assertTrue(next.getMessage().endsWith("unusable since: " + first.getMessage()), next.getMessage());
            assertEquals(before, io(client.counters().snapshot()), "a broken client makes no I/O");
            // Every entry point refuses the same way.
            assertEquals(Errno.ENOTCONN, assertThrows(ErrnoException.class, () ->
                    client.nextEvent(Duration.ofSeconds(10))).errno());
            assertEquals(Errno.ENOTCONN, assertThrows(ErrnoException.class, () ->
                    client.callAsync(GroutApi.PING, p, 0, 8)).errno());
            assertEquals(Errno.ENOTCONN, assertThrows(ErrnoException.class, () ->
                    client.pipeline(PipelineOptions.window(4))).errno());
            assertEquals(Errno.ENOTCONN, assertThrows(ErrnoException.class, () ->
                    client.stream(GroutApi.PING, p, 0, 8)).errno());
            assertEquals(before, io(client.counters().snapshot()), "no entry point makes I/O");
            client.close();
            raw.awaitScript();
        }
    }

    @ParameterizedTest
    @CsvSource({"exact, 4294967301", "readahead, 4294967301", "readahead:64, 18446744073709551615"})
    void eventHeaderWithU64PayloadLenOverMaxFailsWithEMSGSIZEAndBreaksTheClient(String framing,
            String declared) throws Exception {
        String path = sock("bigevent.sock");
        long len = Long.parseUnsignedLong(declared); // 2^32 + 5: its low 32 bits alone would read as 5
        try (RawServer raw = new RawServer(path, c -> {
                c.expect(GroutApi.PING, pattern(8, 20));
                c.write(WireBytes.concat(WireBytes.eventHeader(GroutApi.type(0x5f5f, 0x10), len), pattern(5, 21)));
                c.awaitEof();
            });
             GroutClient client = TestClients.connect(client(path, framing));
             Arena a = Arena.ofConfined()) {
            ErrnoException e = assertThrows(ErrnoException.class, () ->
                    client.call(GroutApi.PING, nativeCopy(a, pattern(8, 20))));
            assertEquals(Errno.EMSGSIZE, e.errno());
            assertEquals("EMSGSIZE", e.errnoName());
            assertTrue(e.getMessage().contains("payload_len " + declared), e.getMessage());
            assertFalse(client.isUsable());
            assertEquals(0, client.pendingEvents());
            assertEquals(Errno.ENOTCONN, assertThrows(ErrnoException.class, () ->
                    client.nextEvent(Duration.ofSeconds(10))).errno());
            client.close();
            raw.awaitScript();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"exact", "readahead", "readahead:64"})
    void responseHeaderThenEofMidPayloadFailsWithECONNRESETAndBreaksTheClient(String framing) throws Exception {
        String path = sock("midpayload.sock");
        try (RawServer raw = new RawServer(path, c -> {
                RawRequest r = c.expect(GroutApi.PING, pattern(100, 3));
                // Declares 100 bytes, sends 40, then closes.
                c.write(WireBytes.response(r.id(), 0, 100, Arrays.copyOf(pattern(100, 3), 40)));
                c.socket.close();
            });
             GroutClient client = TestClients.connect(client(path, framing));
             Arena a = Arena.ofConfined()) {
            MemorySegment p = nativeCopy(a, pattern(100, 3));
            ErrnoException e = assertThrows(ErrnoException.class, () -> client.call(GroutApi.PING, p));
            assertEquals(Errno.ECONNRESET, e.errno());
            assertEquals("ECONNRESET", e.errnoName());
            assertTrue(e.getMessage().contains("in the middle of a message"), e.getMessage());
            assertFalse(client.isUsable());
            ErrnoException next = assertThrows(ErrnoException.class, () -> client.call(GroutApi.PING, p));
            assertEquals(Errno.ENOTCONN, next.errno());
            assertTrue(next.getMessage().endsWith("unusable since: " + e.getMessage()), next.getMessage());
            raw.awaitScript();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"exact", "readahead", "readahead:64"})
    void serverClosingRightAfterReadingTheRequestFailsWithECONNRESET(String framing) throws Exception {
        String path = sock("closes.sock");
        try (RawServer raw = new RawServer(path, c -> {
                c.expect(GroutApi.PING, pattern(16, 4));
                c.socket.close();
            });
             GroutClient client = TestClients.connect(client(path, framing));
             Arena a = Arena.ofConfined()) {
            MemorySegment p = nativeCopy(a, pattern(16, 4));
            ErrnoException e = assertThrows(ErrnoException.class, () -> client.call(GroutApi.PING, p));
            assertEquals(Errno.ECONNRESET, e.errno());
            assertEquals("ECONNRESET", e.errnoName());
            assertTrue(e.getMessage().endsWith("server closed the connection"), e.getMessage());
            assertFalse(client.isUsable());
            assertEquals(Errno.ENOTCONN, assertThrows(ErrnoException.class, () -> client.call(GroutApi.PING)).errno());
            raw.awaitScript();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"exact", "readahead", "readahead:64"})
    void receiveTimeoutFailsTheCallWithETIMEDOUTAndTheClientStaysUsableDroppingTheLateAnswer(
            String framing) throws Exception {
        String path = sock("silent.sock");
        CompletableFuture<Integer> lateId = new CompletableFuture<>();
        CompletableFuture<Void> timedOut = new CompletableFuture<>();
        try (RawServer raw = new RawServer(path, c -> {
                RawRequest r = c.expect(GroutApi.PING, pattern(4, 5));
                lateId.complete(r.id());
                timedOut.get(20, TimeUnit.SECONDS); // answers only once the call gave up
                c.respond(r.id(), 0, r.payload());
                RawRequest r2 = c.expect(GroutApi.PING, pattern(6, 6));
                c.respond(r2.id(), 0, r2.payload());
            });
             GroutClient client = TestClients.connect(client(path, framing).receiveTimeoutMillis(200));
             Arena a = Arena.ofConfined()) {
            MemorySegment p = nativeCopy(a, pattern(4, 5));
            ErrnoException e = assertThrows(ErrnoException.class, () -> client.call(GroutApi.PING, p));
            timedOut.complete(null);
            assertEquals(Errno.ETIMEDOUT, e.errno());
            assertEquals("ETIMEDOUT", e.errnoName());
            int id = lateId.get(10, TimeUnit.SECONDS);
            assertEquals("GR_PING: ETIMEDOUT (110) Connection timed out: no answer to request " + id
                    + " within the receive timeout of 200 ms (the client stays usable; a late answer is dropped)",
                            e.getMessage());
            assertTrue(client.isUsable(), "a call's timeout does not break the client");

            // The late answer comes first, is dropped (counted), and the next call gets its own answer.
            Response r = client.call(GroutApi.PING, nativeCopy(a, pattern(6, 6)));
            assertArrayEquals(pattern(6, 6), r.toByteArray());
            assertTrue(r.id() != id, "the next call has an id of its own");
            assertEquals(1, client.stats().late());
            assertEquals(0, client.stats().unmatched());
            assertEquals(0, client.stats().inFlight());
            assertTrue(client.isUsable());
            raw.awaitScript();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"exact", "readahead", "readahead:64"})
    void errorStatusWithAPayloadThrowsApiExceptionAndDrainsThePayloadSoTheClientStaysUsable(
            String framing) throws Exception {
        String path = sock("enomem.sock");
        byte[] junk = pattern(10, 6);
        try (RawServer raw = new RawServer(path, c -> {
                RawRequest r = c.expect(GroutApi.PING, pattern(12, 7));
                c.respond(r.id(), Errno.ENOMEM, junk);
                RawRequest r2 = c.expect(GroutApi.PING, pattern(20, 8));
                c.respond(r2.id(), 0, r2.payload());
            });
             GroutClient client = TestClients.connect(client(path, framing));
             Arena a = Arena.ofConfined()) {
            ApiException e = assertThrows(ApiException.class, () ->
                    client.call(GroutApi.PING, nativeCopy(a, pattern(12, 7))));
            assertEquals(Errno.ENOMEM, e.errno());
            assertEquals(12, e.status());
            assertEquals("ENOMEM", e.errnoName());
            assertEquals(GroutApi.PING, e.type());
            assertEquals("GR_PING", e.call());
            assertTrue(client.isUsable());

            Response r = client.call(GroutApi.PING, nativeCopy(a, pattern(20, 8)));
            assertEquals(0, r.status());
            assertArrayEquals(pattern(20, 8), r.toByteArray(),
                    "the error's 10 payload bytes were drained, not read as a header");
            assertTrue(client.isUsable());
            raw.awaitScript();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"exact", "readahead", "readahead:64"})
    void ping2ResponseShorterThan32BytesFailsWithEMSGSIZEAndTheClientStaysUsable(String framing) throws Exception {
        String path = sock("short.sock");
        try (RawServer raw = new RawServer(path, c -> {
                RawRequest r = c.expect(GroutApi.PING2, pattern(32, 9));
                c.respond(r.id(), 0, Arrays.copyOf(r.payload(), 31));
                RawRequest r2 = c.expect(GroutApi.PING, pattern(5, 10));
                c.respond(r2.id(), 0, r2.payload());
            });
             GroutClient client = TestClients.connect(client(path, framing));
             Arena a = Arena.ofConfined()) {
            ErrnoException e = assertThrows(ErrnoException.class, () ->
                    client.call(GroutApi.PING2, nativeCopy(a, pattern(32, 9))));
            assertSame(ErrnoException.class, e.getClass(),
                    "a short payload is the client's finding, not a server status");
            assertEquals(Errno.EMSGSIZE, e.errno());
            assertEquals("EMSGSIZE", e.errnoName());
            assertTrue(e.getMessage().contains("31 bytes, at least 32 expected"), e.getMessage());
            assertTrue(client.isUsable());
            Response r = client.call(GroutApi.PING, nativeCopy(a, pattern(5, 10)));
            assertArrayEquals(pattern(5, 10), r.toByteArray());
            raw.awaitScript();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"exact", "readahead"})
    void requestPayloadOver128KiBIsRefusedWithEMSGSIZEBeforeAnythingIsSent(String framing) throws Exception {
        String path = sock("bigreq.sock");
        try (RawServer raw = new RawServer(path, c -> {
                // The next thing on the wire is the small ping: nothing of the refused request.
                RawRequest r = c.expect(GroutApi.PING, pattern(6, 11));
                c.respond(r.id(), 0, r.payload());
            });
             GroutClient client = TestClients.connect(client(path, framing));
             Arena a = Arena.ofConfined()) {
            MemorySegment tooBig = a.allocate(GroutApi.MAX_MSG_LEN + 1L, 8);
            SyscallCounts before = io(client.counters().snapshot());
            ErrnoException e = assertThrows(ErrnoException.class, () -> client.call(GroutApi.PING, tooBig));
            assertEquals(Errno.EMSGSIZE, e.errno());
            assertEquals("EMSGSIZE", e.errnoName());
            assertEquals(before, io(client.counters().snapshot()), "no I/O for a refused request");
            assertTrue(client.isUsable());
            Response r = client.call(GroutApi.PING, nativeCopy(a, pattern(6, 11)));
            assertArrayEquals(pattern(6, 11), r.toByteArray());
            raw.awaitScript();
        }
    }

    /**
     * The API takes any MemorySegment, and a Response's own buffer is a heap segment when it is a
     * copy (a future's answer). A heap payload must either be sent (as COPY framing does) or be
     * refused before anything is written; it must not reach send/sendmsg as a bogus address (EFAULT)
     * and break the client.
     */
    @ParameterizedTest
    @ValueSource(strings = {"gather", "split", "copy"})
    void heapSegmentPayloadIsEchoedOrRefusedUpFrontWithoutBreakingTheClient(String send) throws Exception {
        String path = sock("heap.sock");
        byte[] bytes = pattern(24, 30);
        try (GroutServer server = TestServers.start(ServerOptions.defaults().socketPath(path));
             GroutClient client = TestClients.connect(TestClients.options(path).send(SendFraming.parse(send)));
             Arena a = Arena.ofConfined()) {
            try {
                Response r = client.call(GroutApi.PING, MemorySegment.ofArray(bytes));
                assertArrayEquals(bytes, r.toByteArray());
            } catch (IllegalArgumentException refusedBeforeSending) {
                // acceptable: refused up front
            }
            assertTrue(client.isUsable(), "a heap payload must not break the client");
            assertArrayEquals(pattern(24, 31), client.call(GroutApi.PING, nativeCopy(a, pattern(24, 31)))
                    .toByteArray());
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Statuses a real GroutServer answers.

    @Test
    void unknownMessageTypeFailsWithENOTSUPAndTheClientStaysUsable() throws Exception {
        String path = sock("srv1.sock");
        int unknown = GroutApi.type(0x5f5f, 0x0777);
        try (GroutServer server = TestServers.start(ServerOptions.defaults().socketPath(path));
             GroutClient client = TestClients.connect(path);
             Arena a = Arena.ofConfined()) {
            ApiException e = assertThrows(ApiException.class, () ->
                    client.call(unknown, nativeCopy(a, pattern(9, 12))));
            assertEquals(95, e.errno());
            assertEquals(Errno.ENOTSUP, e.status());
            assertEquals("ENOTSUP", e.errnoName());
            assertEquals(unknown, e.type());
            assertEquals("0x5f5f0777", e.call());
            assertTrue(client.isUsable());
            assertArrayEquals(pattern(9, 13), client.call(GroutApi.PING, nativeCopy(a, pattern(9, 13))).toByteArray());
        }
    }

    @Test
    void ping2WithAFourBytePayloadFailsWithEMSGSIZEFromTheServer() throws Exception {
        String path = sock("srv2.sock");
        try (GroutServer server = TestServers.start(ServerOptions.defaults().socketPath(path));
             GroutClient client = TestClients.connect(path);
             Arena a = Arena.ofConfined()) {
            ApiException e = assertThrows(ApiException.class, () ->
                    client.call(GroutApi.PING2, nativeCopy(a, pattern(4, 14))));
            assertEquals(90, e.errno());
            assertEquals("EMSGSIZE", e.errnoName());
            assertEquals(GroutApi.PING2, e.type());
            assertTrue(client.isUsable());
            Response r = client.call(GroutApi.PING2, nativeCopy(a, pattern(32, 15)));
            assertArrayEquals(pattern(32, 15), r.toByteArray());
        }
    }

    @Test
    void helloWithApiVersion10AgainstAServerAt11FailsToConnectWithEBADMSG() throws Exception {
        String path = sock("srv3.sock");
        try (GroutServer server = TestServers.start(ServerOptions.defaults().socketPath(path).apiVersion(11))) {
            ApiException e = assertThrows(ApiException.class,
                    () -> TestClients.connect(TestClients.options(path).apiVersion(10)));
            assertEquals(74, e.errno());
            assertEquals(Errno.EBADMSG, e.status());
            assertEquals("EBADMSG", e.errnoName());
            assertEquals(GroutApi.HELLO, e.type());
            assertEquals("GR_HELLO", e.call());
            // The same versions on both sides do connect.
            try (GroutClient ok = TestClients.connect(TestClients.options(path).apiVersion(11))) {
                assertEquals(1024, ok.maxIfaces());
            }
        }
    }

    @Test
    void requestSentRawBeforeHelloIsAnsweredWithEBADMSGAndTheConnectionStaysOpen() throws Exception {
        String path = sock("srv4.sock");
        try (GroutServer server = TestServers.start(ServerOptions.defaults().socketPath(path).maxIfaces(321));
             UnixSocket s = UnixSocket.connect(path);
             Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(256, 8);
            // GR_PING, id 7, 4 payload bytes, before any hello.
            buf.set(JAVA_INT_UNALIGNED, 0, 7);
            buf.set(JAVA_INT_UNALIGNED, 4, GroutApi.PING);
            buf.set(JAVA_INT_UNALIGNED, 8, 4);
            buf.set(JAVA_INT_UNALIGNED, 12, 0xdeadbeef);
            s.sendFully(buf, 0, 16);
            s.recvFully(buf, 0, 12);
            assertEquals(7, buf.get(JAVA_INT_UNALIGNED, 0), "for_id");
            assertEquals(Errno.EBADMSG, buf.get(JAVA_INT_UNALIGNED, 4), "status");
            assertEquals(0, buf.get(JAVA_INT_UNALIGNED, 8), "payload_len");

            // A proper hello on the same connection is then accepted, and the ping works.
            buf.fill((byte) 0);
            buf.set(JAVA_INT_UNALIGNED, 0, 8);
            buf.set(JAVA_INT_UNALIGNED, 4, GroutApi.HELLO);
            buf.set(JAVA_INT_UNALIGNED, 8, GroutApi.HELLO_REQUEST_SIZE);
            buf.set(JAVA_INT_UNALIGNED, 12, GroutApi.DEFAULT_API_VERSION);
            s.sendFully(buf, 0, 12 + GroutApi.HELLO_REQUEST_SIZE);
            s.recvFully(buf, 0, 14);
            assertEquals(8, buf.get(JAVA_INT_UNALIGNED, 0));
            assertEquals(0, buf.get(JAVA_INT_UNALIGNED, 4));
            assertEquals(2, buf.get(JAVA_INT_UNALIGNED, 8));
            assertEquals(321, Short.toUnsignedInt(buf.get(JAVA_SHORT_UNALIGNED, 12)));

            buf.set(JAVA_INT_UNALIGNED, 0, 9);
            buf.set(JAVA_INT_UNALIGNED, 4, GroutApi.PING);
            buf.set(JAVA_INT_UNALIGNED, 8, 4);
            buf.set(JAVA_INT_UNALIGNED, 12, 0xcafef00d);
            s.sendFully(buf, 0, 16);
            s.recvFully(buf, 0, 16);
            assertEquals(9, buf.get(JAVA_INT_UNALIGNED, 0));
            assertEquals(0, buf.get(JAVA_INT_UNALIGNED, 4));
            assertEquals(4, buf.get(JAVA_INT_UNALIGNED, 8));
            assertEquals(0xcafef00d, buf.get(JAVA_INT_UNALIGNED, 12));
        }
    }
}
