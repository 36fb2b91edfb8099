package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.transport.wire.ResponseHeader;

import org.sysframe.transport.support.TestServers;
import org.sysframe.testsupport.NeedsRoot;
import org.sysframe.transport.support.ServerFixture;
import org.sysframe.unix.Self;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.function.Executable;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.internal.LibC;
import org.sysframe.unix.UnixSocket;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Start-up, shutdown, access control and robustness of {@link GroutServer}, over real AF_UNIX sockets.
 * Every test body runs under a preemptive hang guard; servers and raw sockets are closed in
 * {@link #tearDown()} whatever happened (closing the server also unblocks any client still waiting).
 */
@EachBackend
class ServerLifecycleTest {
    private static final Duration HANG_GUARD = Duration.ofSeconds(30);
    private static final int RECV_TIMEOUT_MS = 20_000;
    private static final int MAX_IFACES = 1024;

    @TempDir
    Path dir;

    private final List<GroutServer> servers = new CopyOnWriteArrayList<>();
    private final List<UnixSocket> rawSockets = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDown() {
        for (UnixSocket s : rawSockets) s.close();
        for (GroutServer s : servers) s.close();
    }

    // ---------------------------------------------------------------- helpers

    private String path(String name) {
        return dir.resolve(name).toString();
    }

    private GroutServer start(ServerOptions o) throws IOException {
        GroutServer s = TestServers.start(o);
        servers.add(s);
        return s;
    }

    private GroutServer start(String path) throws IOException {
        return start(ServerOptions.defaults().socketPath(path));
    }

    private static ClientOptions clientOptions(String path) {
        return ClientOptions.defaults().socketPath(path).receiveTimeoutMillis(RECV_TIMEOUT_MS);
    }

    private static void guard(Executable body) {
        assertTimeoutPreemptively(HANG_GUARD, body);
    }

    /** Bytes unique to (seed, length): index, seed and length mixed, so a shift or mix-up shows. */
    private static byte[] pattern(int seed, int len) {
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) b[i] = (byte) (i * 31 + seed * 7 + (i >>> 8) * 13 + (i >>> 16) + 1);
        return b;
    }

    /** One GR_PING through a GroutClient, the echoed bytes checked exactly. */
    private static void pingAndCheck(GroutClient c, byte[] payload) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment seg = a.allocate(Math.max(1, payload.length));
            MemorySegment.copy(payload, 0, seg, JAVA_BYTE, 0, payload.length);
            Response r = c.call(GroutApi.PING, seg, 0, payload.length);
            assertEquals(0, r.status());
            assertEquals(payload.length, r.length());
            assertArrayEquals(payload, r.toByteArray());
        }
    }

    private static void pingAndCheck(GroutClient c, int seed, int len) throws IOException {
        pingAndCheck(c, pattern(seed, len));
    }

    private record RawResponse(int forId, int status, byte[] payload) {}

    /**
     * A client speaking the wire format by hand on a raw blocking UnixSocket (with a receive timeout as hang guard).
     */
    private final class Raw implements AutoCloseable {
        final UnixSocket socket;
        final Arena arena = Arena.ofConfined();
        final MemorySegment header = arena.allocate(RequestHeader.SIZE, 8);

        Raw(String path) throws ErrnoException {
            this(UnixSocket.connect(path));
        }

        Raw(UnixSocket connected) throws ErrnoException {
            socket = connected;
            rawSockets.add(socket);
            socket.setReceiveTimeout(RECV_TIMEOUT_MS);
        }

        /** The bytes of one request: header then payload. */
        static byte[] request(int id, int type, long payloadLen, byte[] payload) {
            byte[] out = new byte[RequestHeader.SIZE + payload.length];
            MemorySegment s = MemorySegment.ofArray(out);
            s.set(JAVA_INT_UNALIGNED, 0, id);
            s.set(JAVA_INT_UNALIGNED, 4, type);
            s.set(JAVA_INT_UNALIGNED, 8, (int) payloadLen);
            System.arraycopy(payload, 0, out, RequestHeader.SIZE, payload.length);
            return out;
        }

        static byte[] helloPayload(int apiVersion) {
            byte[] p = new byte[GroutApi.HELLO_REQUEST_SIZE];
            MemorySegment.ofArray(p).set(JAVA_INT_UNALIGNED, 0, apiVersion);
            byte[] v = "raw-test".getBytes(StandardCharsets.UTF_8);
            System.arraycopy(v, 0, p, 4, v.length);
            return p;
        }

        void sendAll(byte[] bytes) throws ErrnoException {
            MemorySegment seg = arena.allocate(Math.max(1, bytes.length));
            MemorySegment.copy(bytes, 0, seg, JAVA_BYTE, 0, bytes.length);
            socket.sendFully(seg, 0, bytes.length);
        }

        /** One send(2) call with all the bytes; returns what it took. */
        long sendOnce(byte[] bytes) throws ErrnoException {
            MemorySegment seg = arena.allocate(bytes.length);
            MemorySegment.copy(bytes, 0, seg, JAVA_BYTE, 0, bytes.length);
            return socket.send(seg, 0, bytes.length, 0);
        }

        void sendByteByByte(byte[] bytes) throws ErrnoException {
            MemorySegment seg = arena.allocate(Math.max(1, bytes.length));
            MemorySegment.copy(bytes, 0, seg, JAVA_BYTE, 0, bytes.length);
            for (int i = 0; i < bytes.length; i++) {
                assertEquals(1, socket.send(seg, i, 1, 0));
            }
        }

        RawResponse readResponse() throws ErrnoException {
            socket.recvFully(header, 0, ResponseHeader.SIZE);
            int forId = ResponseHeader.forId(header, 0);
            int status = ResponseHeader.status(header, 0);
            long len = ResponseHeader.payloadLen(header, 0);
            assertTrue(len <= GroutApi.MAX_MSG_LEN, "response payload_len " + len);
            byte[] payload = new byte[(int) len];
            if (len > 0) {
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment p = a.allocate(len);
                    socket.recvFully(p, 0, len);
                    MemorySegment.copy(p, JAVA_BYTE, 0, payload, 0, (int) len);
                }
            }
            return new RawResponse(forId, status, payload);
        }

        void hello(int id) throws ErrnoException {
            sendAll(request(id, GroutApi.HELLO, GroutApi.HELLO_REQUEST_SIZE,
                    helloPayload(GroutApi.DEFAULT_API_VERSION)));
            checkHelloResponse(id, readResponse());
        }

        /** recv(2) once: 0 at EOF, WOULD_BLOCK (-1) if the receive timeout expired, else the byte count. */
        long recvOnce() throws ErrnoException {
            MemorySegment buf = arena.allocate(64);
            return socket.recv(buf, 0, buf.byteSize(), 0);
        }

        @Override
        public void close() {
            socket.close();
            arena.close();
        }
    }

    private static void checkHelloResponse(int id, RawResponse r) {
        assertEquals(id, r.forId());
        assertEquals(0, r.status());
        assertEquals(GroutApi.HELLO_RESPONSE_SIZE, r.payload().length);
        assertEquals(MAX_IFACES, Short.toUnsignedInt(MemorySegment.ofArray(r.payload()).get(JAVA_SHORT_UNALIGNED, 0)));
    }

    private static void checkPingResponse(int id, byte[] payload, RawResponse r) {
        assertEquals(id, r.forId(), "for_id");
        assertEquals(0, r.status(), "status");
        assertArrayEquals(payload, r.payload(), "payload of request " + id);
    }

    /** x86-64 syscall number of setresuid. */
    private static final long SYS_SETRESUID = 117;
    private static final int NOBODY = 65534;

    /**
     * Connects to name from a fresh thread whose effective uid is uid for just that connect(2), so
     * SO_PEERCRED reports uid. A raw setresuid syscall changes only the calling thread's credentials
     * (glibc's setuid would change every thread); the real and saved uids stay 0, so the thread can
     * switch back. Skipped unless running as root on x86-64.
     */
    private static UnixSocket connectAsUid(String name, int uid) throws Exception {
        assumeTrue(Self.uid() == 0, "needs root to connect as another uid");
        assumeTrue("amd64".equals(System.getProperty("os.arch")), "setresuid syscall number is x86-64's");
        FutureTask<UnixSocket> task = new FutureTask<>(() -> {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment cs = Errno.newCallState(a);
                if (LibC.syscall(cs, SYS_SETRESUID, -1, uid, -1, 0, 0) != 0) {
                    throw new ErrnoException("setresuid(-1, " + uid + ", -1)", Errno.read(cs));
                }
                try {
                    return UnixSocket.connect(name);
                } finally {
                    LibC.syscall(cs, SYS_SETRESUID, -1, 0, -1, 0, 0);
                }
            }
        });
        Thread t = new Thread(task, "connect-as-uid-" + uid);
        t.start();
        try {
            return task.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ErrnoException ee && ee.errno() == Errno.EPERM) {
                assumeTrue(false, "setresuid not permitted here: " + ee.getMessage());
            }
            throw e;
        } finally {
            t.join();
        }
    }

    private static int otherUid() {
        int ours = Self.uid();
        return ours == 12345 ? 12346 : 12345;
    }

    // ---------------------------------------------------------------- socket file mode

    @Test
    void socketFileIsCreatedWithMode0600ByDefault() throws Exception {
        String p = path("default-mode.sock");
        guard(() -> {
            start(p);
            assertTrue(Files.exists(Path.of(p)));
            assertEquals(PosixFilePermissions.fromString("rw-------"), Files.getPosixFilePermissions(Path.of(p)));
        });
    }

    @Test
    void socketFileIsCreatedWithMode0660WhenAsked() throws Exception {
        String p = path("mode-0660.sock");
        guard(() -> {
            start(ServerOptions.defaults().socketPath(p).mode(0660));
            assertEquals(PosixFilePermissions.fromString("rw-rw----"), Files.getPosixFilePermissions(Path.of(p)));
            try (GroutClient c = GroutClient.connect(clientOptions(p))) {
                pingAndCheck(c, 1, 16);
            }
        });
    }

    // ---------------------------------------------------------------- start-up on an occupied or stale path

    @Test
    void secondServerOnAPathWhereALiveServerAnswersFailsWithEaddrinuseAndTheFirstKeepsServing() throws Exception {
        String p = path("busy.sock");
        guard(() -> {
            GroutServer first = start(p);
            try (GroutClient before = GroutClient.connect(clientOptions(p))) {
                pingAndCheck(before, 2, 40);

                ErrnoException e = assertThrows(ErrnoException.class, () -> start(p));
                assertEquals(Errno.EADDRINUSE, e.errno(), e.getMessage());

                // The file of the first server is still there and it still answers, old and new clients alike.
                assertTrue(Files.exists(Path.of(p)), "socket file of the live server removed");
                pingAndCheck(before, 3, 41);
                try (GroutClient after = GroutClient.connect(clientOptions(p))) {
                    pingAndCheck(after, 4, 42);
                }
                pingAndCheck(before, 5, 43);
            }
            ServerFixture.awaitConnectionCount(first, 0);
        });
    }

    @Test
    void secondServerOnALiveAbstractNameFailsWithEaddrinuseAndTheFirstKeepsServing() throws Exception {
        String name = "@sysframe-test-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        guard(() -> {
            start(name);
            ErrnoException e = assertThrows(ErrnoException.class, () -> start(name));
            assertEquals(Errno.EADDRINUSE, e.errno(), e.getMessage());
            try (GroutClient c = GroutClient.connect(clientOptions(name))) {
                pingAndCheck(c, 6, 50);
            }
        });
    }

    @Test
    void staleSocketFileIsRemovedAndTheServerStarts() throws Exception {
        String p = path("stale.sock");
        guard(() -> {
            UnixSocket dead = UnixSocket.listen(p, 0600, 1, false);
            dead.close();
            assertTrue(Files.exists(Path.of(p)), "the closed listener should have left its file");
            ErrnoException refused = assertThrows(ErrnoException.class, () -> UnixSocket.connect(p).close());
            assertEquals(Errno.ECONNREFUSED, refused.errno());

            GroutServer s = start(p);
            assertTrue(Files.exists(Path.of(p)));
            assertEquals(PosixFilePermissions.fromString("rw-------"), Files.getPosixFilePermissions(Path.of(p)));
            try (GroutClient c = GroutClient.connect(clientOptions(p))) {
                pingAndCheck(c, 7, 64);
            }
            s.close();
            assertFalse(Files.exists(Path.of(p)));
        });
    }

    // ---------------------------------------------------------------- close()

    @Test
    void closeRemovesTheSocketFileClosesEveryConnectionAndLeavesNoneCounted() throws Exception {
        String p = path("close.sock");
        guard(() -> {
            GroutServer s = start(p);
            try (GroutClient a = GroutClient.connect(clientOptions(p));
                 GroutClient b = GroutClient.connect(clientOptions(p));
                 Raw raw = new Raw(p)) {
                raw.hello(1);
                pingAndCheck(a, 8, 10);
                pingAndCheck(b, 9, 11);
                // Every hello was answered, so every connection was accepted and counted.
                assertEquals(3, s.connectionCount());

                s.close();

                assertFalse(Files.exists(Path.of(p)), "socket file still there after close()");
                assertEquals(0, s.connectionCount());
                // The server closed its end with nothing unread: an idle raw client sees a clean EOF.
                assertEquals(0, raw.recvOnce());
                for (GroutClient c : List.of(a, b)) {
                    ErrnoException e = assertThrows(ErrnoException.class, () -> pingAndCheck(c, 10, 12));
                    assertTrue(e.errno() == Errno.EPIPE || e.errno() == Errno.ECONNRESET,
                            "expected EPIPE or ECONNRESET, got " + e.getMessage());
                    assertFalse(c.isUsable());
                }
                ErrnoException gone = assertThrows(ErrnoException.class, () -> GroutClient.connect(clientOptions(p)));
                assertEquals(Errno.ENOENT, gone.errno(), gone.getMessage());
                s.close(); // idempotent
                assertEquals(0, s.connectionCount());
            }
        });
    }

    @Test
    void aClientsNextCallAfterServerCloseFailsWithEpipe() throws Exception {
        // Which errno: the client is idle when the server closes, so its next call is a send to a dead
        // peer, which Linux fails with EPIPE for every send framing.
        String p = path("close-epipe.sock");
        guard(() -> {
            GroutServer s = start(p);
            List<GroutClient> clients = new ArrayList<>();
            try {
                for (SendFraming f : List.of(SendFraming.SPLIT, SendFraming.COPY, SendFraming.GATHER,
                        SendFraming.COPY_GATHER)) {
                    clients.add(GroutClient.connect(clientOptions(p).send(f)));
                }
                s.close();
                for (GroutClient c : clients) {
                    ErrnoException e = assertThrows(ErrnoException.class, () -> pingAndCheck(c, 11, 100));
                    assertEquals(Errno.EPIPE, e.errno(), c.config().send() + ": " + e.getMessage());
                }
            } finally {
                for (GroutClient c : clients) c.close();
            }
        });
    }

    // ---------------------------------------------------------------- allowed uids

    @Test
    void clientWhoseUidIsNotAllowedIsRefusedWithEconnresetOrEpipe() throws Exception {
        String p = path("uids-refused.sock");
        guard(() -> {
            GroutServer s = start(ServerOptions.defaults().socketPath(p).allowedUids(Set.of(otherUid())));
            for (int i = 0; i < 5; i++) {
                ErrnoException e = assertThrows(ErrnoException.class, () ->
                        GroutClient.connect(clientOptions(p)).close());
                assertTrue(e.errno() == Errno.ECONNRESET || e.errno() == Errno.EPIPE,
                        "expected ECONNRESET or EPIPE, got " + e.getMessage());
            }
            assertEquals(0, s.connectionCount());
            assertEquals(List.of(), s.closedConnections(), "refused connections are never registered");
        });
    }

    @Test
    void clientWhoseUidIsAllowedGetsIn() throws Exception {
        String p = path("uids-allowed.sock");
        guard(() -> {
            GroutServer s = start(ServerOptions.defaults().socketPath(p).allowedUids(Set.of(Self.uid(), otherUid())));
            try (GroutClient c = GroutClient.connect(clientOptions(p))) {
                assertEquals(MAX_IFACES, c.maxIfaces());
                pingAndCheck(c, 12, 33);
                assertEquals(1, s.connectionCount());
            }
        });
    }

    @Test
    @NeedsRoot
    void connectionFromAnotherUidIsRefusedUnlessAllowedAndTheServerRecordsThatUid() throws Exception {
        // Abstract names have no file permissions, so a client of another uid can reach the server.
        String name = "@sysframe-test-uid-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        int uidEcho = GroutApi.type(0x5f5f, 1);
        MemorySegment answer = Arena.ofAuto().allocate(8, 8);
        guard(() -> {
            GroutServer s = start(ServerOptions.defaults().socketPath(name).allowedUids(Set.of(NOBODY))
                    .handle(uidEcho, 0, (req, reply) -> {
                        answer.set(JAVA_INT_UNALIGNED, 0, req.peerUid());
                        answer.set(JAVA_INT_UNALIGNED, 4, req.peerPid());
                        reply.ok(answer, 0, 8);
                    }));
            // Our own uid (root) is not in the set.
            ErrnoException refused = assertThrows(ErrnoException.class, () ->
                    GroutClient.connect(clientOptions(name)).close());
            assertTrue(refused.errno() == Errno.ECONNRESET || refused.errno() == Errno.EPIPE, refused.getMessage());

            try (Raw nobody = new Raw(connectAsUid(name, NOBODY))) {
                nobody.hello(1);
                nobody.sendAll(Raw.request(2, uidEcho, 0, new byte[0]));
                RawResponse r = nobody.readResponse();
                assertEquals(2, r.forId());
                assertEquals(0, r.status());
                assertEquals(8, r.payload().length);
                MemorySegment p = MemorySegment.ofArray(r.payload());
                assertEquals(NOBODY, p.get(JAVA_INT_UNALIGNED, 0), "Request.peerUid()");
                assertEquals((int) ProcessHandle.current().pid(), p.get(JAVA_INT_UNALIGNED, 4), "Request.peerPid()");
                assertEquals(1, s.connectionCount());
            }
            ServerFixture.awaitConnectionCount(s, 0);
            List<ConnectionStats> closed = s.closedConnections();
            assertEquals(1, closed.size(), "the refused connection is not recorded, the accepted one is");
            assertEquals(2, closed.get(0).requests());
            assertEquals((int) ProcessHandle.current().pid(), closed.get(0).peerPid());
            assertEquals(NOBODY, closed.get(0).peerUid(), "ConnectionStats.peerUid() of " + closed.get(0));
        });
    }

    // ---------------------------------------------------------------- abstract namespace

    @Test
    void abstractNamespaceNameWorksForServerAndClient() throws Exception {
        String name = "@sysframe-test-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        guard(() -> {
            GroutServer s = start(name);
            try (GroutClient c = GroutClient.connect(clientOptions(name))) {
                pingAndCheck(c, 13, 0);
                pingAndCheck(c, 14, 5000);
                assertEquals(1, s.connectionCount());
            }
            assertFalse(Files.exists(Path.of(name)), "an abstract name must not create a file");
            s.close();
            // Closed: the name is free again, and no one answers on it.
            ErrnoException e = assertThrows(ErrnoException.class, () -> UnixSocket.connect(name).close());
            assertEquals(Errno.ECONNREFUSED, e.errno());
            GroutServer again = start(name);
            try (GroutClient c = GroutClient.connect(clientOptions(name))) {
                pingAndCheck(c, 15, 7);
            }
            again.close();
        });
    }

    // ---------------------------------------------------------------- malformed and unusual input

    @ParameterizedTest(name = "payload_len {0}")
    @ValueSource(longs = {GroutApi.MAX_MSG_LEN + 1L, 0xffffffffL})
    void requestWithPayloadLenOverTheMaximumClosesOnlyThatConnectionWithoutAResponse(long payloadLen) throws Exception {
        String p = path("oversize.sock");
        guard(() -> {
            GroutServer s = start(p);
            try (GroutClient good = GroutClient.connect(clientOptions(p))) {
                pingAndCheck(good, 16, 100);
                try (Raw raw = new Raw(p)) {
                    raw.hello(1);
                    assertEquals(2, s.connectionCount());
                    raw.sendAll(Raw.request(2, GroutApi.PING, payloadLen, new byte[0]));
                    // No response: the next recv is the end of the stream.
                    assertEquals(0, raw.recvOnce());
                }
                pingAndCheck(good, 17, 101);
                pingAndCheck(good, 18, GroutApi.MAX_MSG_LEN);
                // The raw client saw its end of stream when the socket closed, which may be just before
                // its loop (another one than good's with 2 loops) records the connection.
                ServerFixture.awaitConnectionCount(s, 1);
                List<ConnectionStats> closed = s.closedConnections();
                assertEquals(1, closed.size());
                assertEquals(1, closed.get(0).requests(), "only the hello was a request");
                assertTrue(closed.get(0).closeReason().startsWith("payload_len " + payloadLen),
                        closed.get(0).closeReason());
                pingAndCheck(good, 19, 1);
            }
        });
    }

    @ParameterizedTest
    @EnumSource(FlushMode.class)
    void requestsWrittenOneByteAtATimeAreAnsweredCorrectly(FlushMode flush) throws Exception {
        String p = path("bytewise.sock");
        guard(() -> {
            start(ServerOptions.defaults().socketPath(p).flush(flush));
            try (Raw raw = new Raw(p)) {
                raw.sendByteByByte(Raw.request(7, GroutApi.HELLO, GroutApi.HELLO_REQUEST_SIZE,
                        Raw.helloPayload(GroutApi.DEFAULT_API_VERSION)));
                checkHelloResponse(7, raw.readResponse());
                // Small, empty, and larger than the server's 8 KiB read buffer.
                int id = 8;
                for (int len : new int[] {100, 0, 9000, 3}) {
                    byte[] payload = pattern(id, len);
                    raw.sendByteByByte(Raw.request(id, GroutApi.PING, len, payload));
                    checkPingResponse(id, payload, raw.readResponse());
                    id++;
                }
            }
        });
    }

    @ParameterizedTest
    @EnumSource(FlushMode.class)
    void fiftyPipelinedPingsInOneSendAreAnsweredInOrder(FlushMode flush) throws Exception {
        String p = path("pipeline.sock");
        guard(() -> {
            start(ServerOptions.defaults().socketPath(p).flush(flush));
            try (Raw raw = new Raw(p)) {
                raw.hello(1);
                // Payloads of 0..980 bytes: 25 KiB in all, more than the 8 KiB read buffer, so
                // requests straddle reads.
                ByteArrayOutputStream all = new ByteArrayOutputStream();
                byte[][] payloads = new byte[50][];
                for (int i = 0; i < 50; i++) {
                    payloads[i] = pattern(1000 + i, i * 20);
                    all.writeBytes(Raw.request(100 + i, GroutApi.PING, payloads[i].length, payloads[i]));
                }
                byte[] bytes = all.toByteArray();
                assertEquals(bytes.length, raw.sendOnce(bytes), "one send(2) for all 50 requests");
                for (int i = 0; i < 50; i++) {
                    checkPingResponse(100 + i, payloads[i], raw.readResponse());
                }
            }
        });
    }

    static Stream<Arguments> smallBufferCases() {
        List<Arguments> out = new ArrayList<>();
        for (FlushMode flush : FlushMode.values()) {
            // COPY at its default threshold splits these large messages; copy(256 KiB) copies them whole.
            for (SendFraming send : List.of(SendFraming.SPLIT, SendFraming.COPY, SendFraming.copy(256 * 1024),
                    SendFraming.GATHER, SendFraming.COPY_GATHER)) {
                for (RecvFraming recv : List.of(RecvFraming.READAHEAD, RecvFraming.EXACT)) {
                    out.add(Arguments.of(flush, send, recv));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "server flush {0}, send {1} both ways, client recv {2}")
    @MethodSource("smallBufferCases")
    void largePingsThroughSmallSocketBuffersAreEchoedByteExact(FlushMode flush, SendFraming send, RecvFraming recv)
            throws Exception {
        String p = path("smallbuf.sock");
        guard(() -> {
            start(ServerOptions.defaults().socketPath(p).flush(flush).send(send).socketBufferSize(4096));
            try (GroutClient c = GroutClient.connect(clientOptions(p).send(send).recv(recv).socketBufferSize(4096))) {
                int seed = 20;
                for (int len : new int[] {65536, GroutApi.MAX_MSG_LEN, 0, 65536 + 7, GroutApi.MAX_MSG_LEN, 1}) {
                    pingAndCheck(c, seed++, len);
                }
            }
        });
    }
}
