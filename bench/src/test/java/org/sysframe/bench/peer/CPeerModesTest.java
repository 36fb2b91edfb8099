package org.sysframe.bench.peer;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.transport.ConnectionStats;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;
import org.sysframe.unix.SyscallKind;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The C client's wait modes, pinning and pipelining against a real server in this JVM, read from its
 * JSON summary: exact syscall counts, no timing. Needs the binary that {@code make c-peer} builds
 * (make test builds it first).
 */
public class CPeerModesTest {
    @TempDir
    static Path dir;
    static GroutServer server;
    static String socket;

    @BeforeAll
    static void startServer() throws IOException {
        socket = dir.resolve("cpeer.sock").toString();
        server = GroutServer.start(ServerOptions.defaults().socketPath(socket));
    }

    @AfterAll
    static void stopServer() {
        if (server != null) server.close();
    }

    public static Path binary() {
        for (Path p : List.of(Path.of("target/sysframe_ping"), Path.of("bench/target/sysframe_ping"))) {
            if (Files.isExecutable(p)) return p.toAbsolutePath();
        }
        throw new IllegalStateException("bench/target/sysframe_ping is missing: run make c-peer first");
    }

    /** What one run printed and how it ended. */
    record Run(int exit, List<String> out, List<String> err) {
        String json() {
            for (String line : out) if (line.startsWith("{")) return line;
            throw new AssertionError("no JSON line in " + out + ", stderr " + err);
        }

        long num(String key) throws IOException { return (long) CPeer.num(json(), key); }
    }

    static Run run(List<String> prefix, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add(binary().toString());
        cmd.addAll(List.of("-s", socket, "-j"));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "out", ".txt"), err = Files.createTempFile(dir, "err", ".txt");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("timed out: " + cmd);
        }
        Run r = new Run(p.exitValue(), Files.readAllLines(out), Files.readAllLines(err));
        System.out.println(String.join(" ", args) + " -> exit " + r.exit + "\n  " + String.join("\n  ", r.out)
                + (r.err.isEmpty() ? "" : "\n  stderr: " + String.join("\n  stderr: ", r.err)));
        return r;
    }

    static Run run(String... args) throws Exception { return run(List.of(), args); }

    @Test
    void blockModeCostsOneSendAndOneDataRecvPerCall() throws Exception {
        Run r = run("-n", "1000", "-l", "32", "-W", "block");
        assertEquals(0, r.exit, r.err.toString());
        assertEquals(1000, r.num("sends"));
        assertEquals(1000, r.num("recv_data"));
        assertEquals(0, r.num("recv_empty"));
        assertTrue(r.num("cpu_ns") > 0, r.json());
        assertEquals(1.0, CPeer.num(r.json(), "sends_per_call"));
        assertEquals(1.0, CPeer.num(r.json(), "recvs_per_call"));
        assertEquals("block", CPeer.str(r.json(), "wait"));
        assertEquals(1, r.num("depth"));
    }

    @Test
    void spinModeReceivesEveryResponseWithOneDataRecv() throws Exception {
        Run r = run("-n", "1000", "-l", "32", "-W", "spin");
        assertEquals(0, r.exit, r.err.toString());
        assertEquals(1000, r.num("sends"));
        assertEquals(1000, r.num("recv_data"));
        long empty = r.num("recv_empty");
        assertTrue(empty >= 0, "recv_empty " + empty);
        System.out.println("spin: " + empty + " empty recvs for 1000 calls");
    }

    @Test
    void spinThenBlockAndYieldAlsoReceiveEachResponseOnce() throws Exception {
        for (String mode : List.of("spin:50", "yield")) {
            Run r = run("-n", "1000", "-l", "32", "-W", mode);
            assertEquals(0, r.exit, r.err.toString());
            assertEquals(1000, r.num("sends"), mode);
            assertEquals(1000, r.num("recv_data"), mode);
            assertEquals(mode, CPeer.str(r.json(), "wait"));
        }
    }

    @Test
    void depth32Batch32SendsEachBatchWithOneCall() throws Exception {
        Run r = run("-n", "32000", "-l", "32", "-d", "32", "-b", "32");
        assertEquals(0, r.exit, r.err.toString());
        assertEquals(32000, r.num("count"));
        assertEquals(1000, r.num("sends"));
        long recvs = r.num("recv_data");
        assertTrue(recvs >= 1000 && recvs <= 32000, "recv_data " + recvs);
        assertEquals(0, r.num("recv_empty"));
        assertEquals("copy", CPeer.str(r.json(), "framing"));
        System.out.println("depth 32 batch 32: " + recvs + " data recvs for 32000 pings");
    }

    @Test
    void pipelinedResponsesLargerThanTheSocketBuffersComeBackWhole() throws Exception {
        // 8 x 128 KiB in flight: more than the socket buffers hold, so the sends must make way for reads.
        Run r = run("-n", "64", "-l", "131072", "-d", "8", "-b", "4");
        assertEquals(0, r.exit, r.err.toString());
        assertEquals("gather", CPeer.str(r.json(), "framing"));
        assertTrue(r.num("recv_data") >= 64, r.json());
    }

    @Test
    void pinnedToCpu0RunsOnCpu0() throws Exception {
        Run r = run("-n", "3000", "-l", "32", "-c", "0");
        assertEquals(0, r.exit, r.err.toString());
        assertEquals("0", CPeer.str(r.json(), "cpus"));
        assertEquals(0, r.num("pin"));
    }

    @Test
    void badValuesExitTwoWithOneLine() throws Exception {
        Map<String[], String> cases = Map.of(
                new String[]{"-W", "sometimes"}, "-W", new String[]{"-d", "0"}, "-d",
                new String[]{"-d", "4", "-b", "5"}, "-b", new String[]{"-c", "100000"}, "-c");
        for (Map.Entry<String[], String> c : cases.entrySet()) {
            Run r = run(c.getKey());
            assertEquals(2, r.exit, String.join(" ", c.getKey()));
            assertEquals(1, r.err.size(), r.err.toString());
            assertTrue(r.err.get(0).contains(c.getValue()), r.err.get(0));
            assertTrue(r.out.isEmpty(), r.out.toString());
        }
        Run wait = run("-W", "sometimes");
        assertTrue(wait.err.get(0).contains("block|spin|spin:N|yield"), wait.err.get(0));
    }

    @Test
    void straceCountsWhatTheClientCounts() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/strace")) || Files.isExecutable(Path.of("/bin/strace")),
                "strace is not installed");
        Path summary = dir.resolve("strace.txt");
        Run r = run(List.of("strace", "-f", "-c", "-U", "name,calls", "-o", summary.toString(),
                        "-e", "trace=sendto,recvfrom,sendmsg"),
                "-n", "1000", "-l", "32", "-d", "32", "-b", "8");
        assertEquals(0, r.exit, r.err.toString());
        Map<String, Long> strace = straceCalls(Files.readString(summary));
        System.out.println("strace: " + strace);
        // The timed loop's batches go out with send() (sendto); GR_HELLO before it is one sendmsg and,
        // its 14-byte response written at once by the server, one recvfrom.
        assertEquals(r.num("sends"), strace.getOrDefault("sendto", 0L));
        assertEquals(1000 / 8, r.num("sends"));
        assertEquals(1L, strace.getOrDefault("sendmsg", 0L));
        assertEquals(r.num("recv_data") + r.num("recv_empty") + 1, strace.getOrDefault("recvfrom", 0L));
    }

    @Test
    void cpeerPassesItsOptionsAndReadsTheNewFields() throws Exception {
        String old = System.getProperty("sysframe.cpeer");
        System.setProperty("sysframe.cpeer", binary().toString());
        try {
            CPeer c = new CPeer("c-pipe", "sendmsg", new CPeer.Options("spin:20", 0, 16, 4));
            List<String> cmd = c.command(socket, 32);
            assertEquals(List.of("-W", "spin:20", "-d", "16", "-b", "4", "-c", "0"),
                    cmd.subList(cmd.size() - 8, cmd.size()));
            try (CPeer.Runner runner = c.probe(socket, ServerSample.Source.of(server))) {
                Cell cell = new Cell("c-pipe", 32, c.describe(), 1600, 0, runner);
                List<Long> pids = null;
                for (int round = 1; round <= 2; round++) {
                    Measurement m = cell.probe().measure(cell, 1600, round);
                    assertEquals(1600, m.calls());
                    assertTrue(m.cpus().startsWith("client cpu 0;"), m.cpus());
                    // The thread's CPU clock: never 0 for a run that spun, however short (getrusage's total could be).
                    assertTrue(m.clientCpu().cpuNanos() > 0, "round " + round + ": " + m.clientCpu());
                    if (m.clientKernel() != null) {
                        assertEquals(1600 / 4, m.clientKernel().get(SyscallKind.SENDTO), "round " + round);
                        assertEquals(1, m.clientKernel().get(SyscallKind.READ), "round " + round + ": the go line");
                        assertEquals(1, m.clientKernel().get(SyscallKind.WRITE), "round " + round + ": the summary");
                    }
                    if (pids == null) pids = runner.pids();
                    else assertEquals(pids, runner.pids(), "the same process for every run");
                }
            }
            assertThrows(IllegalArgumentException.class, () -> new CPeer.Options("block", -1, 4, 5));
            assertThrows(IllegalArgumentException.class, () ->
                    new CPeer("x", "split", new CPeer.Options("block", -1, 4, 4)));
        } finally {
            if (old == null) System.clearProperty("sysframe.cpeer");
            else System.setProperty("sysframe.cpeer", old);
        }
    }

    @Test
    void leanOneAtATimeCostsExactlyOneSendAndOneRecvPerCallAndReadsNoClock() throws Exception {
        for (String mode : List.of("block", "spin", "yield")) {
            Run r = run("-n", "1000", "-l", "32", "-W", mode, "-L");
            assertEquals(0, r.exit, r.err.toString());
            assertEquals(1000, r.num("sends"), mode);
            assertEquals(1000, r.num("recv_data"), mode);
            if (mode.equals("block")) assertEquals(0, r.num("recv_empty"));
            assertEquals("lean", CPeer.str(r.json(), "framing"));
            assertEquals(0, r.num("p50_ns"));
            assertEquals(0, r.num("max_ns"));
            assertTrue(r.json().contains("\"lean\":true"), r.json());
        }
    }

    @Test
    void leanPipelineRefillsWithOneSendPerReceiveThatFreedSlots() throws Exception {
        Run r = run("-n", "32000", "-l", "32", "-d", "64", "-L");
        assertEquals(0, r.exit, r.err.toString());
        assertEquals(32000, r.num("count"));
        long sends = r.num("sends"), recvs = r.num("recv_data");
        // The whole window first, then one send per receive that completed answers while requests were left.
        assertTrue(sends >= 32000 / 64 && sends <= recvs + 1, "sends " + sends + ", recvs " + recvs);
        assertEquals(0, r.num("recv_empty"));
        assertEquals(0, r.num("polls"));
        assertEquals(0, r.num("batch"));
        assertTrue(r.out.get(1).endsWith("(wait block, depth 64, batch 0, framing lean)"), r.out.get(1));
    }

    @Test
    void leanPipelineOfAnswersLargerThanTheSocketBuffersComesBackWhole() throws Exception {
        Run r = run("-n", "64", "-l", "131072", "-d", "8", "-L");
        assertEquals(0, r.exit, r.err.toString());
        assertEquals(64, r.num("count"));
        // Every answer was checked (length, last byte); a receive brings at most the 1 MiB read-ahead.
        assertTrue(r.num("recv_data") >= 64L * (12 + 131072) / (1 << 20), r.json());
        assertTrue(r.num("sends") >= 64 / 8, r.json());
    }

    @Test
    void leanRefusesWhatNeedsAClockABatchOrTwoSendsInOneLine() throws Exception {
        Map<List<String>, String> cases = Map.of(
                List.of("-L", "-d", "8", "-b", "4"),
                "sysframe_ping: -L: -b: lean mode refills as answers come (leave out -b)",
                List.of("-L", "-f", "split"),
                        "sysframe_ping: -L: -f: lean mode sends each refill with one send() (leave out -f split)",
                List.of("-L", "-r", "exact"), "sysframe_ping: -L: -r: lean mode reads ahead (leave out -r exact)",
                List.of("-L", "-W", "spin:5"),
                        "sysframe_ping: -L: -W: lean mode reads no clock per request: block, spin or yield");
        for (Map.Entry<List<String>, String> c : cases.entrySet()) {
            Run r = run(c.getKey().toArray(String[]::new));
            assertEquals(2, r.exit, c.getKey().toString());
            assertEquals(List.of(c.getValue()), r.err);
            assertTrue(r.out.isEmpty(), r.out.toString());
        }
    }

    @Test
    void straceCountsWhatTheLeanClientCounts() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/strace")) || Files.isExecutable(Path.of("/bin/strace")),
                "strace is not installed");
        Path summary = dir.resolve("strace-lean.txt");
        Run r = run(List.of("strace", "-f", "-c", "-U", "name,calls", "-o", summary.toString(),
                        "-e", "trace=sendto,recvfrom,sendmsg,poll"),
                "-n", "1000", "-l", "32", "-L");
        assertEquals(0, r.exit, r.err.toString());
        Map<String, Long> strace = straceCalls(Files.readString(summary));
        // The timed loop: 1000 send() of a prebuilt frame and 1000 recv(); GR_HELLO before it: one sendmsg, one
        // recvfrom.
        assertEquals(1000L, strace.getOrDefault("sendto", 0L));
        assertEquals(1001L, strace.getOrDefault("recvfrom", 0L));
        assertEquals(1L, strace.getOrDefault("sendmsg", 0L));
        assertEquals(0L, strace.getOrDefault("poll", 0L));
    }

    @Test
    void leanOptionsAndSeveralProcessesTogether() throws Exception {
        String old = System.getProperty("sysframe.cpeer");
        System.setProperty("sysframe.cpeer", binary().toString());
        try {
            CPeer c = new CPeer("c-lean", "sendmsg", CPeer.Options.lean("block", -1, 1));
            List<String> cmd = c.command(socket, 32);
            assertEquals(List.of("-R", "-j", "-W", "block", "-d", "1", "-L"), cmd.subList(cmd.size() - 7, cmd.size()));
            assertTrue(c.describe().startsWith("C lean, gcc -O2, one send() per refill as answers come"), c.describe());
            assertThrows(IllegalArgumentException.class, () -> CPeer.Options.lean("spin:20", -1, 1));
            assertThrows(IllegalArgumentException.class, () ->
                    new CPeer("x", "split", CPeer.Options.lean("block", -1, 1)));
            try (CPeer.Runner runner = c.probe(socket, ServerSample.Source.of(server), 4)) {
                Cell cell = new Cell("c-lean", 32, c.describe(), 4000, 0, runner);
                for (int round = 1; round <= 2; round++) {
                    Measurement m = cell.probe().measure(cell, 4000, round);
                    assertEquals(4, m.clients());
                    assertEquals(4, runner.pids().size());
                    assertEquals(4000, m.calls());
                    assertEquals(0, m.p99Nanos());
                    assertTrue(m.seconds() > 0, "seconds " + m.seconds());
                    assertNotNull(m.serverLibrary());
                    // Every process: exactly one send and one recv per call, its go line's read and its summary's
                    // write; the server side summed over the run.
                    if (m.clientKernel() != null) {
                        assertEquals(4000, m.clientKernel().get(SyscallKind.SENDTO));
                        assertEquals(4000, m.clientKernel().get(SyscallKind.RECVFROM));
                        assertEquals(0, m.clientKernel().get(SyscallKind.SENDMSG));
                        assertEquals(4, m.clientKernel().get(SyscallKind.READ));
                        assertEquals(4, m.clientKernel().get(SyscallKind.WRITE));
                        assertEquals(m.serverLibrary(), m.serverKernel());
                    }
                }
            }
        } finally {
            if (old == null) System.clearProperty("sysframe.cpeer");
            else System.setProperty("sysframe.cpeer", old);
        }
    }

    /** The closed connection of the process pid, waiting up to 10 s for the server to see it end. */
    static ConnectionStats closedOf(long pid, int nth) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (;;) {
            List<ConnectionStats> mine = server.closedConnections().stream().filter(c -> c.peerPid() == pid).toList();
            if (mine.size() >= nth) return mine.get(nth - 1);
            if (System.nanoTime() > deadline) throw new AssertionError("connection " + nth + " of pid " + pid
                    + " not closed: " + mine);
            Thread.sleep(10);
        }
    }

    @Test
    void warmUpCallsAreMadeInWholeChunksButNotReported() throws Exception {
        // lean, one timed call at a time, a pipeline of batches: the JSON counts only the timed calls.
        Map<List<String>, Long> modes = Map.of(List.of("-L"), 1000L, List.of(), 1000L, List.of("-d", "8", "-b", "8"),
                125L);
        for (Map.Entry<List<String>, Long> mode : modes.entrySet()) {
            List<String> args = new ArrayList<>(List.of("-n", "1000", "-l", "32", "-U", "30"));
            args.addAll(mode.getKey());
            Path out = Files.createTempFile(dir, "warm", ".txt");
            List<String> cmd = new ArrayList<>(List.of(binary().toString(), "-s", socket, "-j"));
            cmd.addAll(args);
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile())
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "timed out: " + cmd);
            assertEquals(0, p.exitValue(), cmd.toString());
            String json = Files.readAllLines(out).stream().filter(l -> l.startsWith("{")).findFirst().orElseThrow();
            assertEquals(1000, (long) CPeer.num(json, "count"), mode.getKey().toString());
            assertEquals(mode.getValue(), (long) CPeer.num(json, "sends"), mode.getKey().toString());
            // The server saw GR_HELLO, at least one whole chunk of 64 warm-up calls, and the 1000 timed ones.
            long requests = closedOf(p.pid(), 1).requests(), warm = requests - 1 - 1000;
            assertTrue(warm >= 64, mode.getKey() + ": " + requests + " requests");
            assertEquals(0, warm % 64, mode.getKey() + ": " + warm + " warm-up calls");
        }
        Run bad = run("-U", "60001");
        assertEquals(2, bad.exit);
        assertEquals(List.of("sysframe_ping: -U: invalid value '60001' (0..60000)"), bad.err);
    }

    @Test
    void repeatModeRunsEachCommandOnItsConnectionAndReconnectsOnCommand() throws Exception {
        Process p = new ProcessBuilder(binary().toString(), "-s", socket, "-l", "32", "-L", "-R", "-j")
                .redirectError(ProcessBuilder.Redirect.PIPE).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream()));
        Writer in = new OutputStreamWriter(p.getOutputStream());
        Assertions.assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            for (String command : List.of("300", "reconnect", "200")) {
                in.write(command + "\n");
                in.flush();
                if (command.equals("reconnect")) {
                    assertEquals("connected", out.readLine());
                    continue;
                }
                assertEquals("ready", out.readLine());
                in.write("\n");
                in.flush();
                String json = null;
                for (String line; json == null && (line = out.readLine()) != null; ) if (line.startsWith("{")) json =
                        line;
                assertNotNull(json, "no summary for " + command);
                assertEquals(Long.parseLong(command), (long) CPeer.num(json, "count"));
                assertEquals(Long.parseLong(command), (long) CPeer.num(json, "sends"));
            }
            // The first connection closed at the reconnect, with its GR_HELLO and its run; the second is open.
            assertEquals(1 + 300, closedOf(p.pid(), 1).requests());
            in.write("12x\n");
            in.flush();
            assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        });
        assertEquals(2, p.exitValue());
        assertEquals("sysframe_ping: -R: '12x' is neither a count of calls (1..1000000000) nor reconnect",
                new String(p.getErrorStream().readAllBytes()).strip());
        assertEquals(1 + 200, closedOf(p.pid(), 2).requests());
    }

    @Test
    void runnerKeepsItsProcessAcrossAServerStartedAnew() throws Exception {
        String old = System.getProperty("sysframe.cpeer");
        System.setProperty("sysframe.cpeer", binary().toString());
        String own = dir.resolve("anew.sock").toString();
        GroutServer first = GroutServer.start(ServerOptions.defaults().socketPath(own));
        GroutServer second = null;
        try (CPeer.Runner runner = new CPeer("c-lean", "sendmsg", CPeer.Options.lean("block", -1, 1)).probe(own,
                ServerSample.Source.of(first))) {
            Cell cell = new Cell("c-lean", 32, "", 500, 0, runner);
            Measurement m1 = runner.measure(cell, 500, 1);
            List<Long> pids = runner.pids();
            first.close();
            second = GroutServer.start(ServerOptions.defaults().socketPath(own));
            runner.reconnect(ServerSample.Source.of(second));
            Measurement m2 = runner.measure(cell, 700, 2);
            assertEquals(pids, runner.pids(), "the same process");
            assertEquals(500, m1.calls());
            assertEquals(700, m2.calls());
            // The second server's side of the run is its own: 700 requests, one receive and one send each.
            if (m2.serverLibrary() != null) {
                assertEquals(700, m2.serverLibrary().get(SyscallKind.RECVFROM));
                assertEquals(700, m2.serverLibrary().get(SyscallKind.SENDTO));
            }
            if (m2.clientKernel() != null) assertEquals(700, m2.clientKernel().get(SyscallKind.SENDTO));
        } finally {
            first.close();
            if (second != null) second.close();
            if (old == null) System.clearProperty("sysframe.cpeer");
            else System.setProperty("sysframe.cpeer", old);
        }
    }

    /** strace -c -U name,calls: "name count" rows between dashed rules, then the total. */
    static Map<String, Long> straceCalls(String summary) {
        Map<String, Long> calls = new TreeMap<>();
        for (String row : summary.lines().toList()) {
            String[] cols = row.trim().split(" +");
            if (cols.length == 2 && cols[1].chars().allMatch(Character::isDigit) && !cols[0].equals("total")) {
                calls.put(cols[0], Long.valueOf(cols[1]));
            }
        }
        return calls;
    }
}
