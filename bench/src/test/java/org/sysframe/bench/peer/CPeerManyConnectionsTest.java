package org.sysframe.bench.peer;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.transport.ConnectionStats;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The C client's many-connections mode ({@code -M N -A K}) against a real server in this JVM: what the
 * server counted on each connection (its GR_HELLO and first GR_PING, then the timed calls spread over the
 * active ones), the client's exact syscall counts from its JSON line, every connection closed cleanly at
 * exit, and the refusals. No timing. Needs the binary that {@code make c-peer} builds.
 */
public class CPeerManyConnectionsTest {
    @TempDir
    static Path dir;
    static GroutServer server;
    static String socket;

    @BeforeAll
    static void startServer() throws IOException {
        socket = dir.resolve("many.sock").toString();
        server = GroutServer.start(ServerOptions.defaults().socketPath(socket));
    }

    @AfterAll
    static void stopServer() {
        if (server != null) server.close();
    }

    /** A client process driven line by line: stdin a pipe, stdout read as it comes, stderr kept in a file. */
    record Client(Process process, BufferedReader out, Writer in, Path err) {
        static Client start(String... args) throws IOException {
            List<String> cmd = new ArrayList<>(List.of(CPeerModesTest.binary().toString(), "-s", socket));
            cmd.addAll(List.of(args));
            Path err = Files.createTempFile(dir, "err", ".txt");
            Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
            return new Client(p, new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.US_ASCII)),
                    new OutputStreamWriter(p.getOutputStream(), StandardCharsets.US_ASCII), err);
        }

        long pid() { return process.pid(); }

        String line() throws IOException {
            String line = ChildLines.next(out, process, 120, "the C client");
            if (line == null) throw new AssertionError("the C client ended: " + ChildLines.exitOf(process)
                    + ", stderr " + stderr());
            return line;
        }

        void send(String line) throws IOException {
            in.write(line + "\n");
            in.flush();
        }

        /** One -R command: its count, the ready line, the go line, then the summary's JSON line. */
        String run(long count) throws IOException {
            send(Long.toString(count));
            assertEquals("ready", line());
            send("");
            for (String line; ; ) if ((line = line()).startsWith("{")) return line;
        }

        /** Closes stdin and waits for the exit code; what is left on stdout must be nothing. */
        int end() throws Exception {
            in.close();
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the C client did not end");
            assertEquals(null, out.readLine(), "nothing more on stdout");
            return process.exitValue();
        }

        List<String> stderr() {
            try {
                return Files.readAllLines(err);
            } catch (IOException e) {
                return List.of(e.toString());
            }
        }
    }

    /** What one run without stdin printed and how it ended. */
    record Done(long pid, int exit, List<String> out, List<String> err) {}

    static Done runToEnd(List<String> prefix, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(List.of(CPeerModesTest.binary().toString(), "-s", socket));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "out", ".txt"), err = Files.createTempFile(dir, "err", ".txt");
        Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("timed out: " + cmd);
        }
        return new Done(p.pid(), p.exitValue(), Files.readAllLines(out), Files.readAllLines(err));
    }

    static Done runToEnd(String... args) throws Exception { return runToEnd(List.of(), args); }

    static List<ConnectionStats> openOf(long pid) throws IOException {
        return server.openConnections().stream().filter(c -> c.peerPid() == pid).toList();
    }

    static List<ConnectionStats> closedOf(long pid) throws IOException {
        return server.closedConnections().stream().filter(c -> c.peerPid() == pid).toList();
    }

    /** Waits up to 10 s for the server to have seen every connection of pid close (n of them) and none open. */
    static List<ConnectionStats> awaitAllClosed(long pid, int n) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (;;) {
            List<ConnectionStats> closed = closedOf(pid);
            if (closed.size() >= n && openOf(pid).isEmpty() && server.connectionCount() == 0) return closed;
            if (System.nanoTime() > deadline) {
                throw new AssertionError(closed.size() + " of " + n + " connections of pid " + pid + " closed, "
                        + openOf(pid).size() + " still open, " + server.connectionCount() + " open in all");
            }
            Thread.sleep(10);
        }
    }

    static long sum(List<ConnectionStats> cs) { return cs.stream().mapToLong(ConnectionStats::requests).sum(); }

    static long count(List<ConnectionStats> cs, LongPredicate requests) {
        return cs.stream().filter(c -> requests.test(c.requests())).count();
    }

    @Test
    void twoHundredConnectionsTwentyActiveRunOnCommandAndCloseCleanly() throws Exception {
        Client c = Client.start("-M", "200", "-A", "20", "-l", "32", "-R", "-j");
        assertEquals("connected 200", c.line());
        // Before any run: 200 connections, each with its GR_HELLO and its first GR_PING.
        List<ConnectionStats> before = openOf(c.pid());
        assertEquals(200, before.size());
        assertEquals(200, count(before, r -> r == 2), before.toString());

        long total = 0;
        for (long calls : List.of(2000L, 700L)) {
            String json = c.run(calls);
            total += calls;
            assertEquals(calls, (long) CPeer.num(json, "count"));
            assertEquals(200, (long) CPeer.num(json, "connections"));
            assertEquals(20, (long) CPeer.num(json, "active"));
            // One send() per request; level-triggered epoll, one recv() per readiness, each with data.
            assertEquals(calls, (long) CPeer.num(json, "sends"));
            long reads = (long) CPeer.num(json, "reads"), waits = (long) CPeer.num(json, "epoll_waits");
            assertEquals(0, (long) CPeer.num(json, "recv_empty"));
            assertEquals(reads, (long) CPeer.num(json, "recv_data"));
            assertEquals(0, (long) CPeer.num(json, "polls"));
            assertTrue(reads >= calls, json);
            // A wait reports at most the 20 active connections and at least one.
            assertTrue(waits >= reads / 20 && waits <= reads, json);
            assertTrue(CPeer.num(json, "cpu_ns") > 0, json);
            long p50 = (long) CPeer.num(json, "p50_ns"), p99 = (long) CPeer.num(json, "p99_ns");
            assertTrue(p50 > 0 && p50 <= p99 && p99 <= (long) CPeer.num(json, "max_ns"), json);
            assertEquals("level", CPeer.str(json, "epoll"));

            // The server: the 180 idle connections made no call, the 20 active ones together exactly the run's.
            List<ConnectionStats> now = openOf(c.pid());
            assertEquals(200, now.size());
            assertEquals(180, count(now, r -> r == 2), now.toString());
            assertEquals(20, count(now, r -> r > 2), now.toString());
            assertEquals(200 * 2 + total, sum(now));
        }

        assertEquals(0, c.end(), c.stderr().toString());
        assertEquals(List.of(), c.stderr());
        // At exit every connection closed, cleanly (nothing in flight, nothing unread), none left open on the server.
        List<ConnectionStats> closed = awaitAllClosed(c.pid(), 200);
        assertEquals(200, closed.size());
        assertEquals(200 * 2 + total, sum(closed));
        assertEquals(200, closed.stream().filter(s -> s.closeReason().equals("peer closed")).count(),
                closed.toString());
    }

    @Test
    void oneTimedRunWithoutCommandsPrintsConnectedThenItsSummary() throws Exception {
        Done d = runToEnd("-M", "50", "-A", "5", "-n", "500", "-l", "100", "-j");
        assertEquals(0, d.exit(), d.err().toString());
        assertEquals(List.of(), d.err());
        assertEquals(5, d.out().size(), d.out().toString());
        assertEquals("connected 50", d.out().get(0));
        assertTrue(d.out().get(1).startsWith("total time: "), d.out().toString());
        assertTrue(d.out().get(2)
                .endsWith("(50 connections, 5 active, one request in flight each, epoll level-triggered, framing "
                        + "frame)"),
                d.out().get(2));
        assertTrue(d.out().get(3).startsWith("per call: "), d.out().toString());
        String json = d.out().get(4);
        assertEquals(500, (long) CPeer.num(json, "count"));
        assertEquals(500, (long) CPeer.num(json, "sends"));
        assertEquals(100, (long) CPeer.num(json, "len"));
        List<ConnectionStats> closed = awaitAllClosed(d.pid(), 50);
        assertEquals(45, count(closed, r -> r == 2), closed.toString());
        assertEquals(5, count(closed, r -> r > 2), closed.toString());
        assertEquals(50 * 2 + 500, sum(closed));
    }

    @Test
    void straceCountsWhatTheJsonCountsPlusTheSetup() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/strace")) || Files.isExecutable(Path.of("/bin/strace")),
                "strace is not installed");
        Path summary = dir.resolve("strace-many.txt");
        Done d = runToEnd(List.of("strace", "-f", "-c", "-U", "name,calls", "-o", summary.toString(),
                        "-e", "trace=sendto,recvfrom,sendmsg,poll"),
                "-M", "200", "-A", "20", "-n", "2000", "-l", "32", "-j");
        assertEquals(0, d.exit(), d.err().toString());
        String json = d.out().get(4);
        Map<String, Long> strace = CPeerModesTest.straceCalls(Files.readString(summary));
        // The setup: per connection one send() and one recv() for GR_HELLO, the same for its GR_PING (the
        // server writes each answer whole); then the timed calls' sends and reads, exactly as the JSON says.
        assertEquals(2000, (long) CPeer.num(json, "sends"));
        assertEquals(2L * 200 + (long) CPeer.num(json, "sends"), strace.getOrDefault("sendto", 0L));
        assertEquals(2L * 200 + (long) CPeer.num(json, "reads"), strace.getOrDefault("recvfrom", 0L));
        assertEquals(0L, strace.getOrDefault("sendmsg", 0L));
        // No partial send waited for (polls 0); the 180 idle connections checked with one poll() before the run and one
        // at exit.
        assertEquals(0, (long) CPeer.num(json, "polls"));
        assertEquals(2L, strace.getOrDefault("poll", 0L));
        // (d.pid() is strace's: the client's connections are waited for by the server's count.)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (server.connectionCount() > 0 && System.nanoTime() < deadline) Thread.sleep(10);
        assertEquals(0, server.connectionCount());
    }

    @Test
    void allIdleHoldsTheConnectionsUntilStdinClosesAndMakesNoCall() throws Exception {
        Client c = Client.start("-M", "200", "-A", "0", "-l", "32", "-j");
        assertEquals("connected 200", c.line());
        List<ConnectionStats> open = openOf(c.pid());
        assertEquals(200, open.size());
        assertEquals(200, count(open, r -> r == 2), open.toString());
        assertEquals(0, c.end(), c.stderr().toString());
        assertEquals(List.of(), c.stderr());
        List<ConnectionStats> closed = awaitAllClosed(c.pid(), 200);
        assertEquals(200, closed.size());
        assertEquals(200 * 2, sum(closed));
    }

    @Test
    void theSoftFileLimitIsRaisedToTheHardOneAndAHardLimitTooLowFailsInOneLine() throws Exception {
        // 200 connections with a soft limit of 64: only if the process raised it.
        Done raised = runToEnd(List.of("sh", "-c", "ulimit -Sn 64 && exec \"$0\" \"$@\""), "-M", "200", "-A", "10",
                "-n", "100", "-j");
        assertEquals(0, raised.exit(), raised.err().toString());
        assertEquals("connected 200", raised.out().get(0));
        assertEquals(100, (long) CPeer.num(raised.out().get(4), "sends"));
        awaitAllClosed(raised.pid(), 200);

        Done low = runToEnd(List.of("sh", "-c", "ulimit -n 100 && exec \"$0\" \"$@\""), "-M", "200");
        assertEquals(1, low.exit());
        assertEquals(
                List.of("sysframe_ping: -M 200: needs 216 file descriptors, over the hard RLIMIT_NOFILE of 100 (raise "
                + "it: ulimit -Hn as root)"),
                low.err());
        assertEquals(List.of(), low.out());
    }

    @Test
    void badOptionsExitTwoWithOneLine() throws Exception {
        List<List<String>> cases = List.of(
                List.of("-M", "200", "-A", "201"), List.of("-A", "5"), List.of("-M", "0"),
                List.of("-M", "10", "-A", "x"),
                List.of("-M", "10", "-d", "4"), List.of("-M", "10", "-L"), List.of("-M", "10", "-W", "spin"),
                List.of("-M", "10", "-f", "split"));
        for (List<String> args : cases) {
            Done d = runToEnd(args.toArray(String[]::new));
            assertEquals(2, d.exit(), args.toString());
            assertEquals(1, d.err().size(), args + ": " + d.err());
            assertEquals(List.of(), d.out(), args.toString());
        }
        assertEquals(List.of("sysframe_ping: -A: invalid value '201' (0..200, at most -M)"),
                runToEnd("-M", "200", "-A", "201").err());
        // -R with no active connection: a count is refused, reconnect is not.
        Client c = Client.start("-M", "3", "-A", "0", "-R");
        assertEquals("connected 3", c.line());
        c.send("reconnect");
        assertEquals("connected 3", c.line());
        c.send("10");
        assertEquals(2, c.end());
        assertEquals(List.of("sysframe_ping: -R: '10': no calls with -A 0 (reconnect only)"), c.stderr());
        List<ConnectionStats> closed = awaitAllClosed(c.pid(), 6);
        assertEquals(6, closed.size());
        assertEquals(6 * 2, sum(closed));
    }

    @Test
    void connectFailuresEndInOneLine() throws Exception {
        Path refused = dir.resolve("refused.sock"), full = dir.resolve("full.sock");
        // Bound but not listening: ECONNREFUSED, at once.
        try (SocketChannel bound = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            bound.bind(UnixDomainSocketAddress.of(refused));
            Done d = runAt(refused, "-M", "5");
            assertEquals(1, d.exit());
            assertEquals(List.of("sysframe_ping: connect " + refused + ": Connection refused (connection 1 of 5)"),
                    d.err());
            assertEquals(List.of(), d.out());
        }
        // A listener that never accepts, backlog 1: its queue fills, the connects find it full for the bounded 10 s.
        try (ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            listener.bind(UnixDomainSocketAddress.of(full), 1);
            Done d = runAt(full, "-M", "5");
            assertEquals(1, d.exit());
            assertEquals(1, d.err().size(), d.err().toString());
            assertTrue(d.err().get(0).startsWith("sysframe_ping: connect " + full
                    + ": the listen backlog stayed full for 10 s ("),
                    d.err().get(0));
            assertTrue(d.err().get(0).endsWith(" of 5 connected)"), d.err().get(0));
            assertEquals(List.of(), d.out());
        }
    }

    @Test
    void anIdleConnectionTheServerClosedEndsTheProcessBeforeItsNextRun() throws Exception {
        // A server of its own that closes a connection from which nothing came for 100 ms.
        Path own = dir.resolve("idle-timeout.sock");
        try (GroutServer strict = GroutServer.start(ServerOptions.defaults().socketPath(own.toString())
                .idleTimeout(Duration.ofMillis(100)))) {
            List<String> cmd = new ArrayList<>(List.of(CPeerModesTest.binary().toString(), "-s", own.toString(), "-M",
                    "10", "-A", "2", "-R", "-j"));
            Path err = Files.createTempFile(dir, "err", ".txt");
            Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
            Client c = new Client(p, new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.US_ASCII)),
                    new OutputStreamWriter(p.getOutputStream(), StandardCharsets.US_ASCII), err);
            assertEquals("connected 10", c.line());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (strict.connectionCount() > 0 && System.nanoTime() < deadline) Thread.sleep(20);
            assertEquals(0, strict.connectionCount(), "the server's idle timeout closed them all");
            c.send("100");
            assertEquals(1, c.end());
            // The first idle one (the 3rd: the first 2 are the active ones) is found closed before the run.
            assertEquals(List.of("sysframe_ping: connection 3 of 10 (idle): the server closed it"), c.stderr());
        }
    }

    static Done runAt(Path sock, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("-s", sock.toString()));
        all.addAll(List.of(args));
        return runToEnd(all.toArray(String[]::new)); // a second -s: getopt keeps the last
    }
}
