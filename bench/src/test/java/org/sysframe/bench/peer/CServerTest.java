package org.sysframe.bench.peer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.transport.ApiException;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.Response;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.testsupport.Awaits;
import org.sysframe.testsupport.NeedsStrace;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The C server (bench/target/sysframe_serve, built by {@code make c-peer}) on real sockets: its answers
 * are those of the Java server, and the syscall counts it reports are exact where the traffic makes
 * them so. A client that sends one request with one send() and waits for its answer gives the server
 * exactly one readiness, one recv() and one writev() per request (a unix stream send up to 32 KiB is
 * one buffer in the peer's queue: it is readable once all of it is there). No timing is asserted:
 * waits are hang guards.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
public class CServerTest {
    static final Duration GUARD = Awaits.HANG_GUARD;
    static final int EBADMSG = 74, EMSGSIZE = 90, ENOTSUP = 95;
    static final int UNKNOWN = 0x12340001;

    @TempDir
    Path dir;

    public static Path binary() {
        String prop = System.getProperty("sysframe.cserve");
        if (prop != null && !prop.isEmpty()) return Path.of(prop).toAbsolutePath();
        for (Path p : List.of(Path.of("target/sysframe_serve"), Path.of("bench/target/sysframe_serve"))) {
            if (Files.isExecutable(p)) return p.toAbsolutePath();
        }
        throw new IllegalStateException("bench/target/sysframe_serve is missing: run make c-peer first");
    }

    /** A running sysframe_serve: its stdout read by lines, commands on its stdin, its stderr in a file. */
    static final class Serve implements AutoCloseable {
        final Process p;
        final BufferedReader out;
        final Writer in;
        final Path err;
        final String socket;
        final long pid; // the server's, from its ready line (a prefix such as strace may run it as its child)

        Serve(Path dir, String socket, List<String> prefix, String... args) throws IOException {
            this.socket = socket;
            List<String> cmd = new ArrayList<>(prefix);
            cmd.add(binary().toString());
            cmd.addAll(List.of("-s", socket));
            cmd.addAll(List.of(args));
            err = Files.createTempFile(dir, "serve", ".err");
            p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
            out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            in = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8);
            String ready = line();
            assertTrue(ready != null && ready.matches("ready [1-9][0-9]*"), () -> ready + ", stderr: " + errLines());
            pid = Long.parseLong(ready.substring("ready ".length()));
            if (prefix.isEmpty()) assertEquals(p.pid(), pid);
        }

        Serve(Path dir, String... args) throws IOException {
            this(dir, dir.resolve("c.sock").toString(), List.of(), args);
        }

        String line() throws IOException { return ChildLines.next(out, p, 20, "sysframe_serve"); }

        String command(String c) throws IOException {
            in.write(c + "\n");
            in.flush();
            return line();
        }

        String stats() throws IOException {
            String json = command("stats");
            assertTrue(json != null && json.startsWith("{\"requests\":"), json);
            return json;
        }

        long stat(String key) {
            try {
                return (long) CPeer.num(stats(), key);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        void reset() throws IOException { assertEquals("ok", command("reset")); }

        /** Every key of one stats line, as the assertion's message shows them. */
        void assertStats(String json, String key, long expected) throws IOException {
            assertEquals(expected, (long) CPeer.num(json, key), key + " in " + json);
        }

        List<String> errLines() {
            try {
                return Files.readAllLines(err);
            } catch (IOException e) {
                return List.of("(stderr unreadable: " + e + ")");
            }
        }

        long fds() throws IOException {
            try (var s = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
                return s.count();
            }
        }

        /** quit, then its exit code (stdout ends with it). */
        int quit() throws Exception {
            in.write("quit\n");
            in.flush();
            return exit();
        }

        int exit() throws Exception {
            assertTrue(p.waitFor(20, TimeUnit.SECONDS), "sysframe_serve did not exit");
            return p.exitValue();
        }

        @Override
        public void close() {
            if (p.isAlive()) p.destroyForcibly();
        }
    }

    record Resp(int forId, int status, byte[] payload) {}

    /** A raw client: frames written and read byte by byte (host order), one write() per send. */
    static final class Raw implements AutoCloseable {
        final SocketChannel ch;

        Raw(String path) throws IOException { ch = SocketChannel.open(UnixDomainSocketAddress.of(path)); }

        void send(ByteBuffer frames) throws IOException {
            frames.flip();
            while (frames.hasRemaining()) ch.write(frames);
        }

        Resp read() throws IOException {
            ByteBuffer h = fill(12);
            int forId = h.getInt(0), status = h.getInt(4), len = h.getInt(8);
            byte[] payload = new byte[len];
            fill(len).get(0, payload);
            return new Resp(forId, status, payload);
        }

        private ByteBuffer fill(int n) throws IOException {
            ByteBuffer b = ByteBuffer.allocate(n).order(ByteOrder.nativeOrder());
            while (b.hasRemaining()) {
                if (ch.read(b) < 0) throw new IOException("EOF after " + b.position() + " of " + n + " bytes");
            }
            return b;
        }

        /** Whether the server closed the connection (nothing more comes). */
        boolean atEof() throws IOException { return ch.read(ByteBuffer.allocate(1)) < 0; }

        /** Says GR_HELLO (api version 11) and checks the answer. */
        Raw hello(int id) throws IOException {
            send(request(frames(200), id, GroutApi.HELLO, helloPayload(11)));
            assertResp(new Resp(id, 0, u16(1024)), read());
            return this;
        }

        @Override
        public void close() throws IOException { ch.close(); }
    }

    static ByteBuffer frames(int capacity) {
        return ByteBuffer.allocateDirect(capacity).order(ByteOrder.nativeOrder());
    }

    static ByteBuffer request(ByteBuffer b, int id, int type, byte[] payload) {
        return b.putInt(id).putInt(type).putInt(payload.length).put(payload);
    }

    static byte[] helloPayload(int apiVersion) {
        ByteBuffer b = ByteBuffer.allocate(132).order(ByteOrder.nativeOrder()).putInt(apiVersion)
                .put("raw".getBytes(StandardCharsets.US_ASCII));
        return b.array();
    }

    static byte[] u16(int v) {
        return ByteBuffer.allocate(2).order(ByteOrder.nativeOrder()).putShort((short) v).array();
    }

    static byte[] u32(int v) { return ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(v).array(); }

    static byte[] pattern(int len, int seed) {
        byte[] b = new byte[len];
        new Random(seed).nextBytes(b);
        return b;
    }

    static void assertResp(Resp expected, Resp actual) {
        assertEquals(expected.forId(), actual.forId(), "for_id");
        assertEquals(expected.status(), actual.status(), "status of " + actual.forId());
        assertArrayEquals(expected.payload(), actual.payload(), "payload of " + actual.forId());
    }

    @Test
    void synchronousCallsCostOneRecvAndOneWritevEach() throws Exception {
        try (Serve s = new Serve(dir);
             GroutClient client = GroutClient.connect(s.socket);
             Arena arena = Arena.ofConfined()) {
            assertEquals(1024, client.maxIfaces());
            s.reset();
            MemorySegment payload = arena.allocate(32);
            for (int i = 0; i < 1000; i++) {
                payload.fill((byte) i);
                Response r = client.call(GroutApi.PING, payload);
                assertEquals(32, r.length());
                assertEquals((byte) i, r.getByte(31));
            }
            String json = s.stats();
            // One readiness, one recv() and one writev() per call; the last epoll_wait brought the stats command.
            s.assertStats(json, "requests", 1000);
            s.assertStats(json, "reads", 1000);
            s.assertStats(json, "writes", 1000);
            s.assertStats(json, "epoll_waits", 1001);
            s.assertStats(json, "accepts", 0);
            s.assertStats(json, "accepted", 0);
            s.assertStats(json, "open", 1);
            s.assertStats(json, "peak", 1);
            assertTrue(CPeer.num(json, "cpu_ns") > 0, json);
            assertTrue(CPeer.num(json, "rss_kb") > 0, json);
            // A new connection: one accept4() that took it, one that found the queue empty.
            s.reset();
            try (GroutClient second = GroutClient.connect(s.socket)) {
                second.call(GroutApi.PING, payload);
                json = s.stats();
                s.assertStats(json, "accepted", 1);
                s.assertStats(json, "accepts", 2);
                s.assertStats(json, "requests", 2);
                s.assertStats(json, "reads", 2);
                s.assertStats(json, "writes", 2);
                s.assertStats(json, "open", 2);
                s.assertStats(json, "peak", 2);
            }
            assertEquals(0, s.quit());
            assertTrue(s.errLines().isEmpty(), s.errLines().toString());
        }
    }

    @Test
    void aBatchSentWithOneSendIsAnsweredWithOneWritev() throws Exception {
        try (Serve s = new Serve(dir); Raw c = new Raw(s.socket).hello(1)) {
            s.reset();
            ByteBuffer batch = frames(64 * 44);
            int id = 2;
            for (int b = 0; b < 100; b++) {
                batch.clear();
                int first = id;
                for (int k = 0; k < 64; k++) request(batch, id, GroutApi.PING, pattern(32, id++));
                c.send(batch);
                for (int k = first; k < id; k++) assertResp(new Resp(k, 0, pattern(32, k)), c.read());
            }
            String json = s.stats();
            // 2,816 bytes in one send: one readiness, one recv(), 64 answers in one writev() (128 iovec entries).
            s.assertStats(json, "requests", 6400);
            s.assertStats(json, "reads", 100);
            s.assertStats(json, "writes", 100);
            s.assertStats(json, "epoll_waits", 101);

            // 200 requests (8,800 bytes) in one send, more than the 8 KiB read-ahead: the first recv() takes
            // 8,192 bytes, 186 whole requests and 8 bytes of the next, answered with one writev(); the socket
            // is still readable, the second recv() takes the other 608 bytes, the 14 requests left.
            s.reset();
            ByteBuffer big = frames(200 * 44);
            int first = id;
            for (int k = 0; k < 200; k++) request(big, id, GroutApi.PING, pattern(32, id++));
            c.send(big);
            for (int k = first; k < id; k++) assertResp(new Resp(k, 0, pattern(32, k)), c.read());
            json = s.stats();
            s.assertStats(json, "requests", 200);
            s.assertStats(json, "reads", 2);
            s.assertStats(json, "writes", 2);
            s.assertStats(json, "epoll_waits", 3);
        }
    }

    @Test
    void aRequestSplitAcrossReadsIsAnsweredOnceWhole() throws Exception {
        try (Serve s = new Serve(dir); Raw c = new Raw(s.socket).hello(1)) {
            s.reset();
            ByteBuffer whole = request(frames(44), 7, GroutApi.PING, pattern(32, 7));
            // Header and 8 payload bytes first: the server reads them and answers nothing.
            ByteBuffer part = frames(44).put(whole.duplicate().flip().limit(20));
            c.send(part);
            Awaits.awaitEquals(1, () -> s.stat("reads"), GUARD, "reads after the first part");
            String json = s.stats();
            s.assertStats(json, "requests", 0);
            s.assertStats(json, "writes", 0);
            c.send(frames(44).put(whole.duplicate().flip().position(20)));
            assertResp(new Resp(7, 0, pattern(32, 7)), c.read());
            json = s.stats();
            s.assertStats(json, "reads", 2);
            s.assertStats(json, "writes", 1);
            s.assertStats(json, "requests", 1);

            // A header cut in two.
            ByteBuffer next = request(frames(44), 8, GroutApi.PING, pattern(32, 8));
            c.send(frames(44).put(next.duplicate().flip().limit(5)));
            Awaits.awaitEquals(3, () -> s.stat("reads"), GUARD, "reads after 5 bytes of a header");
            c.send(frames(44).put(next.duplicate().flip().position(5)));
            assertResp(new Resp(8, 0, pattern(32, 8)), c.read());
            json = s.stats();
            s.assertStats(json, "reads", 4);
            s.assertStats(json, "writes", 2);
            s.assertStats(json, "requests", 2);
        }
    }

    @Test
    void largestRequestsPipelinedPastTheSocketBuffersComeBackWhole() throws Exception {
        try (Serve s = new Serve(dir); Raw c = new Raw(s.socket).hello(1)) {
            s.reset();
            int n = 16, len = GroutApi.MAX_MSG_LEN;
            ByteBuffer all = frames(n * (12 + len));
            for (int i = 0; i < n; i++) request(all, 100 + i, GroutApi.PING, pattern(len, i));
            // 2 MiB of requests whose answers the server cannot send until they are read: the writer sends
            // while this thread reads, the server keeps what the socket did not take and waits for EPOLLOUT.
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try {
                    c.send(all);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            for (int i = 0; i < n; i++) assertResp(new Resp(100 + i, 0, pattern(len, i)), c.read());
            writer.get(60, TimeUnit.SECONDS);
            // Then a small one, as ever.
            c.send(request(frames(64), 200, GroutApi.PING, pattern(32, 200)));
            assertResp(new Resp(200, 0, pattern(32, 200)), c.read());
            String json = s.stats();
            s.assertStats(json, "requests", n + 1);
            assertTrue(CPeer.num(json, "writes") > n, "some answers left in parts: " + json);
        }
    }

    @Test
    @NeedsStrace
    void straceCountsWhatTheServerCounts() throws Exception {
        Path summary = dir.resolve("strace.txt");
        String socket = dir.resolve("traced.sock").toString();
        try (Serve s = new Serve(dir, socket, List.of("strace", "-c", "-U", "name,calls", "-o", summary.toString(),
                "-e", "trace=accept4,recvfrom,writev,epoll_wait"))) {
            try (GroutClient client = GroutClient.connect(socket); Arena arena = Arena.ofConfined();
                 Raw raw = new Raw(socket).hello(1)) {
                MemorySegment payload = arena.allocate(32);
                for (int i = 0; i < 500; i++) client.call(GroutApi.PING, payload);
                ByteBuffer batch = frames(64 * 44);
                for (int k = 0; k < 64; k++) request(batch, 2 + k, GroutApi.PING, pattern(32, k));
                raw.send(batch);
                for (int k = 0; k < 64; k++) assertResp(new Resp(2 + k, 0, pattern(32, k)), raw.read());
            }
            Awaits.awaitEquals(0, () -> s.stat("open"), GUARD, "open connections");
            String json = s.stats();
            assertEquals(0, s.quit());
            Map<String, Long> strace = CPeerModesTest.straceCalls(Files.readString(summary));
            assertEquals((long) CPeer.num(json, "reads"), strace.get("recvfrom"), json + " " + strace);
            assertEquals((long) CPeer.num(json, "writes"), strace.get("writev"), json + " " + strace);
            assertEquals((long) CPeer.num(json, "accepts"), strace.get("accept4"), json + " " + strace);
            // The epoll_wait that brought quit came after the stats line.
            assertEquals((long) CPeer.num(json, "epoll_waits") + 1, strace.get("epoll_wait"), json + " " + strace);
            assertEquals(2 + 500 + 64, (long) CPeer.num(json, "requests"));
            assertEquals(2, (long) CPeer.num(json, "accepted"));
        }
    }

    /** Each request type and order of the Java server's rules, and each answer's status and payload. */
    static List<Object[]> statusCases() {
        byte[] forty = pattern(40, 40);
        return List.of(
                new Object[] {GroutApi.PING, new byte[0], new Resp(1, EBADMSG, new byte[0])}, // before GR_HELLO
                new Object[] {UNKNOWN, new byte[0], new Resp(2, EBADMSG, new byte[0])},
                new Object[] {GroutApi.HELLO, u32(11), new Resp(3, EMSGSIZE, new byte[0])}, // shorter than 132 bytes
                // the server's version with it
                new Object[] {GroutApi.HELLO, helloPayload(10), new Resp(4, EBADMSG, u32(11))},
                new Object[] {GroutApi.PING, new byte[0], new Resp(5, EBADMSG, new byte[0])}, // still no GR_HELLO
                new Object[] {GroutApi.HELLO, helloPayload(11), new Resp(6, 0, u16(1024))},
                new Object[] {GroutApi.PING, new byte[0], new Resp(7, 0, new byte[0])},
                new Object[] {GroutApi.PING, pattern(5, 8), new Resp(8, 0, pattern(5, 8))},
                new Object[] {GroutApi.PING2, pattern(31, 9), new Resp(9, EMSGSIZE, new byte[0])},
                new Object[] {GroutApi.PING2, forty, new Resp(10, 0, Arrays.copyOf(forty, 32))},
                new Object[] {GroutApi.EVENT_SUBSCRIBE, new byte[8], new Resp(11, 0, new byte[0])},
                new Object[] {GroutApi.EVENT_SUBSCRIBE, new byte[4], new Resp(12, EMSGSIZE, new byte[0])},
                new Object[] {GroutApi.EVENT_UNSUBSCRIBE, new byte[0], new Resp(13, 0, new byte[0])},
                new Object[] {GroutApi.LOG_LEVEL_LIST, new byte[1], new Resp(14, ENOTSUP, new byte[0])}, // not built in
                new Object[] {UNKNOWN, new byte[0], new Resp(15, ENOTSUP, new byte[0])},
                new Object[] {GroutApi.HELLO, helloPayload(11), new Resp(16, 0, u16(1024))});
    }

    @Test
    void everyAnswerIsTheJavaServersOneAtATimeOrAllInOneWritev() throws Exception {
        List<Object[]> cases = statusCases();
        try (Serve s = new Serve(dir)) {
            try (Raw c = new Raw(s.socket)) {
                for (int i = 0; i < cases.size(); i++) {
                    Object[] k = cases.get(i);
                    c.send(request(frames(200), i + 1, (int) k[0], (byte[]) k[1]));
                    assertResp((Resp) k[2], c.read());
                }
            }
            Awaits.awaitEquals(0, () -> s.stat("open"), GUARD, "open connections");
            s.reset();
            try (Raw c = new Raw(s.socket)) {
                ByteBuffer all = frames(2000);
                for (int i = 0; i < cases.size(); i++) request(all, i + 1, (int) cases.get(i)[0],
                        (byte[]) cases.get(i)[1]);
                c.send(all);
                for (Object[] k : cases) assertResp((Resp) k[2], c.read());
                String json = s.stats();
                s.assertStats(json, "requests", cases.size());
                s.assertStats(json, "reads", 1);
                s.assertStats(json, "writes", 1);
            }
            assertTrue(s.errLines().isEmpty(), s.errLines().toString());
        }
    }

    @Test
    void aClientOfAnotherVersionIsRefusedWithTheServersVersion() throws Exception {
        try (Serve s = new Serve(dir, "-v", "10")) {
            ApiException e = assertThrows(ApiException.class, () -> GroutClient.connect(s.socket).close());
            assertEquals(EBADMSG, e.status());
            assertTrue(e.getMessage().contains("it speaks 10"), e.getMessage());
            try (GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(s.socket).apiVersion(10));
                 Arena arena = Arena.ofConfined()) {
                assertEquals(1024, c.maxIfaces());
                assertEquals(32, c.call(GroutApi.PING2, arena.allocate(32)).length());
                ApiException unknown = assertThrows(ApiException.class, () -> c.call(UNKNOWN));
                assertEquals(ENOTSUP, unknown.status());
                assertTrue(c.isUsable());
            }
        }
    }

    @Test
    void anOversizeRequestClosesOnlyItsConnectionAfterTheAnswersBeforeIt() throws Exception {
        try (Serve s = new Serve(dir);
             GroutClient other = GroutClient.connect(s.socket);
             Arena arena = Arena.ofConfined();
             Raw bad = new Raw(s.socket).hello(1)) {
            ByteBuffer b = request(frames(100), 2, GroutApi.PING, pattern(32, 2));
            b.putInt(3).putInt(GroutApi.PING).putInt(GroutApi.MAX_MSG_LEN + 1);
            bad.send(b);
            assertResp(new Resp(2, 0, pattern(32, 2)), bad.read());
            assertTrue(bad.atEof(), "the connection closed after the answer before the oversize request");
            assertEquals(1, s.stat("open"));
            MemorySegment payload = arena.allocate(32).fill((byte) 5);
            assertEquals(5, other.call(GroutApi.PING, payload).getByte(31));
            assertEquals(0, s.quit());
            List<String> err = s.errLines();
            assertEquals(1, err.size(), err.toString());
            assertTrue(err.get(0)
                    .contains("request payload_len 131073 over GR_API_MAX_MSG_LEN 131072: closing the connection"),
                            err.get(0));
        }
    }

    @Test
    void twoThousandConnectionsOpenedAndClosedLeaveNoneAndNoDescriptor() throws Exception {
        try (Serve s = new Serve(dir)) {
            assumeTrue(nofile(s.pid) > 2100, "the server may open too few descriptors for 2,000 connections");
            long baseline = s.fds();
            List<Raw> conns = new ArrayList<>();
            try {
                for (int i = 0; i < 2000; i++) conns.add(new Raw(s.socket).hello(i + 1));
                String json = s.stats();
                s.assertStats(json, "open", 2000);
                s.assertStats(json, "peak", 2000);
                s.assertStats(json, "accepted", 2000);
                s.assertStats(json, "requests", 2000);
                assertEquals(baseline + 2000, s.fds());
            } finally {
                for (Raw c : conns) c.close();
            }
            Awaits.awaitEquals(0, () -> s.stat("open"), GUARD, "open connections");
            assertEquals(baseline, s.fds());
            assertEquals(2000, s.stat("peak"));
            assertEquals(0, s.quit());
        }
    }

    @Test
    void idleConnectionsHoldNoBuffer() throws Exception {
        try (Serve s = new Serve(dir)) {
            assumeTrue(nofile(s.pid) > 1100, "the server may open too few descriptors for 1,000 connections");
            try (Raw warm = new Raw(s.socket).hello(1)) {
                warm.send(request(frames(64), 2, GroutApi.PING, pattern(32, 2)));
                warm.read();
            }
            Awaits.awaitEquals(0, () -> s.stat("open"), GUARD, "open connections");
            long before = s.stat("rss_kb");
            List<Raw> conns = new ArrayList<>();
            try {
                for (int i = 0; i < 1000; i++) {
                    Raw c = new Raw(s.socket).hello(1);
                    conns.add(c);
                    c.send(request(frames(64), 2, GroutApi.PING, pattern(32, i)));
                    assertResp(new Resp(2, 0, pattern(32, i)), c.read());
                }
                long after = s.stat("rss_kb");
                // Each holds its struct (64 bytes with malloc's own); its buffers went back to the free list.
                assertTrue((after - before) * 1024 / 1000 <= 1024, "resident memory " + before
                        + " KiB, with 1,000 idle connections " + after + " KiB");
            } finally {
                for (Raw c : conns) c.close();
            }
        }
    }

    @Test
    void itSurvivesRunningOutOfDescriptors() throws Exception {
        String socket = dir.resolve("few.sock").toString();
        try (Serve s = new Serve(dir, socket, List.of("bash", "-c", "ulimit -n 64 && exec \"$0\" \"$@\""))) {
            long room = 64 - s.fds(); // stdin, stdout, stderr, the signalfd, the listener, the epoll
            List<Raw> conns = new ArrayList<>();
            try {
                for (int i = 0; i < 100; i++) conns.add(new Raw(socket)); // all in the backlog
                Awaits.awaitEquals(room, () -> s.stat("open"), GUARD, "connections accepted up to the limit");
                Awaits.awaitUntil(() -> !s.errLines().isEmpty(), GUARD, () -> "an EMFILE line on stderr");
                assertEquals(room, s.stat("accepted"));
            } finally {
                for (Raw c : conns) c.close();
            }
            // Each closed connection gives an fd back: the rest of the backlog is taken, each found closed.
            Awaits.awaitEquals(100, () -> s.stat("accepted"), GUARD, "connections accepted in all");
            Awaits.awaitEquals(0, () -> s.stat("open"), GUARD, "open connections");
            try (GroutClient c = GroutClient.connect(socket); Arena arena = Arena.ofConfined()) {
                assertEquals(32, c.call(GroutApi.PING, arena.allocate(32)).length());
            }
            assertEquals(0, s.quit());
            List<String> err = s.errLines();
            assertEquals(1, err.size(), "one line for the episode: " + err);
            assertTrue(err.get(0).startsWith("sysframe_serve: accept4: Too many open files (" + room
                    + " connections open)"), err.get(0));
            assertFalse(Files.exists(Path.of(socket)));
        }
    }

    @Test
    void commandsAndTheWaysItEnds() throws Exception {
        Path sock = dir.resolve("c.sock");
        try (Serve s = new Serve(dir)) {
            assertEquals(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE),
                    Files.getPosixFilePermissions(sock));
            assertEquals("error: unknown command 'bogus' (stats, reset, quit)", s.command("bogus"));
            assertEquals("error: command longer than 255 bytes", s.command("x".repeat(300)));
            assertEquals(0, s.stat("requests"));
            assertEquals(0, s.quit());
            assertNull(s.out.readLine());
            assertFalse(Files.exists(sock));
        }
        try (Serve s = new Serve(dir)) {
            s.in.close(); // stdin's end
            assertEquals(0, s.exit());
            assertFalse(Files.exists(sock));
        }
        try (Serve s = new Serve(dir)) {
            s.p.destroy(); // SIGTERM
            assertEquals(0, s.exit());
            assertFalse(Files.exists(sock));
        }
        try (Serve s = new Serve(dir)) {
            Process kill = new ProcessBuilder("kill", "-INT", Long.toString(s.pid)).start();
            assertEquals(0, kill.waitFor());
            assertEquals(0, s.exit());
            assertFalse(Files.exists(sock));
            assertTrue(s.errLines().isEmpty(), s.errLines().toString());
        }
    }

    @Test
    void aStaleSocketFileIsReplacedButNotALiveServersNorAnotherFile() throws Exception {
        Path sock = dir.resolve("c.sock");
        try (ServerSocketChannel gone = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            gone.bind(UnixDomainSocketAddress.of(sock));
        }
        assertTrue(Files.exists(sock), "a stale socket file");
        try (Serve s = new Serve(dir); Raw c = new Raw(s.socket).hello(1)) {
            Run second = run(List.of("-s", s.socket));
            assertEquals(1, second.exit());
            assertEquals(List.of("sysframe_serve: " + s.socket + ": a server is listening there"), second.err());
            c.send(request(frames(64), 2, GroutApi.PING, pattern(3, 2)));
            assertResp(new Resp(2, 0, pattern(3, 2)), c.read());
        }
        Path file = dir.resolve("plain");
        Files.writeString(file, "keep");
        Run onFile = run(List.of("-s", file.toString()));
        assertEquals(1, onFile.exit());
        assertEquals(List.of("sysframe_serve: " + file + " exists and is not a socket"), onFile.err());
        assertEquals("keep", Files.readString(file));
    }

    record Run(int exit, List<String> out, List<String> err) {}

    Run run(List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(binary().toString()));
        cmd.addAll(args);
        Path out = Files.createTempFile(dir, "out", ".txt"), err = Files.createTempFile(dir, "err", ".txt");
        Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.PIPE)
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        p.getOutputStream().close();
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), "timed out: " + cmd);
        return new Run(p.exitValue(), Files.readAllLines(out), Files.readAllLines(err));
    }

    @Test
    void usageErrorsExitTwoWithOneLine() throws Exception {
        String sock = dir.resolve("u.sock").toString();
        List<List<String>> bad = List.of(List.of(), List.of("-c", "100000", "-s", sock), List.of("-s", sock, "-v", "x"),
                List.of("-s", sock, "extra"), List.of("-q"), List.of("-s"));
        for (List<String> args : bad) {
            Run r = run(args);
            assertEquals(2, r.exit(), args.toString());
            assertEquals(1, r.err().size(), args + ": " + r.err());
            assertTrue(r.err().get(0).startsWith("sysframe_serve: "), r.err().get(0));
            assertTrue(r.out().isEmpty(), r.out().toString());
        }
        Run help = run(List.of("-h"));
        assertEquals(0, help.exit());
        assertTrue(help.out().get(0).startsWith("usage: sysframe_serve -s PATH"), help.out().toString());
        assertFalse(Files.exists(Path.of(sock)));
    }

    /** The soft RLIMIT_NOFILE of process pid, from /proc/PID/limits. */
    static long nofile(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "limits"))) {
            if (line.startsWith("Max open files")) {
                String soft = line.substring("Max open files".length()).trim().split(" +")[0];
                return soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft);
            }
        }
        throw new IOException("no Max open files in /proc/" + pid + "/limits");
    }
}
