package org.sysframe.bench.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ping} against servers that fail it, each failure ending the run with one line that says what
 * happened (the measured seconds aside, the texts are exact), and no second "interrupted" line:
 * a server that answers one request per read (Grout's api.c) under {@code --depth}, one whose GR_PING
 * answers with no payload, one whose echo differs in one byte in the middle, one that never answers; and
 * many callers on one client against a server answering one request per read, which time out.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PingFailuresTest {
    private static final String S = "[0-9]+\\.[0-9]{3}";   // seconds as ping prints them
    private static final String RATE = "[0-9,]+";
    @TempDir Path dir;

    /** Runs ping with args on path in this JVM: its one error line (null when it succeeded) and what it printed. */
    private PingRuns.Outcome ping(String path, String... args) throws Exception {
        PingRuns.Outcome o = PingRuns.run(path, List.of(args));
        if (o.command().interruptedHook != null) {
            assertFalse(Runtime.getRuntime().removeShutdownHook(o.command().interruptedHook),
                    "the interrupted line's hook is gone: no second line");
        }
        if (o.error() != null) assertFalse(o.error().contains("\n"), "one line: " + o.error());
        return o;
    }

    private static void assertMatches(String regex, String actual) {
        assertTrue(Pattern.matches(regex, actual), "expected /" + regex + "/ but was: " + actual);
    }

    @ParameterizedTest
    @ValueSource(strings = {"epoll", "io_uring"})
    void pipeliningAgainstAServerThatAnswersOneRequestPerReadEndsAtTheTimeoutWithOneLine(
            String backend) throws Exception {
        String path = dir.resolve("api-c.sock").toString();
        try (ScriptedServer s = new ScriptedServer(path, ScriptedServer.Mode.ONE_REQUEST_PER_READ)) {
            PingRuns.Outcome o = ping(path, "-n", "100", "-l", "32", "--depth", "4", "--warmup", "0", "--timeout",
                    "300", "--backend", backend);
            assertMatches(Pattern.quote("about 1 of 100 calls completed in ") + S + " s \\(" + RATE + " calls/s\\): "
                    + Pattern.quote("pipelined ping: ETIMEDOUT (110) Connection timed out: the server stopped "
                            + "answering: 4 sent, 1 answered,"
                    + " then nothing came for ") + S
                    + Pattern.quote(" s (--timeout 300 ms); a server that answers one request per read"
                    + " (as Grout's api.c does) cannot be pipelined: try --depth 1"), o.error());
            assertEquals(1, o.out().size(), "only the line saying what runs: " + o.out());
            assertTrue(o.out().get(0).startsWith("performing 100 ping calls after 0 untimed warm-up calls"),
                    o.out().get(0));
            // What it suggests works.
            PingRuns.Outcome one = ping(path, "-n", "100", "-l", "32", "--depth", "1", "--warmup", "0", "--timeout",
                    "300", "--backend", backend);
            assertEquals(null, one.error());
        }
    }

    @Test
    void aFailureInTheWarmUpSaysSo() throws Exception {
        String path = dir.resolve("warm.sock").toString();
        try (ScriptedServer s = new ScriptedServer(path, ScriptedServer.Mode.ONE_REQUEST_PER_READ)) {
            PingRuns.Outcome o = ping(path, "-n", "100", "-l", "32", "--depth", "4", "--warmup", "10", "--timeout",
                    "300");
            assertMatches(Pattern.quote("in the warm-up: about 1 of 10 warm-up calls completed in ") + S + " s \\("
                    + RATE
                    + " calls/s\\): pipelined ping: ETIMEDOUT .*: try --depth 1", o.error());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"1", "4"})
    void aGrPingThatDoesNotEchoGetsItsOwnLineAndDashL0Works(String depth) throws Exception {
        String path = dir.resolve("empty-ping.sock").toString();
        try (ScriptedServer s = new ScriptedServer(path, ScriptedServer.Mode.EMPTY_PING)) {
            PingRuns.Outcome o = ping(path, "-n", "10", "-l", "32", "--depth", depth, "--warmup", "0", "--timeout",
                    "2000");
            assertMatches(Pattern.quote("about 0 of 10 calls completed in ") + S
                    + Pattern.quote(" s (0 calls/s): ping: EBADMSG (74) Bad message:"
                    + " the server's GR_PING does not echo (answered 0 of 32 bytes): use -l 0 or --ping2"), o.error());
            assertEquals(null, ping(path, "-n", "10", "-l", "0", "--depth", depth, "--warmup", "0").error());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"1", "4"})
    void theEchoCheckComparesEveryByte(String depth) throws Exception {
        String path = dir.resolve("one-byte.sock").toString();
        try (ScriptedServer s = new ScriptedServer(path, ScriptedServer.Mode.ONE_BYTE_WRONG)) {
            // The payload is (i * 31 + 7): byte 5 is 0xa2, and the server answers ~0xa2 there, the rest right.
            PingRuns.Outcome o = ping(path, "-n", "10", "-l", "32", "--depth", depth, "--warmup", "0");
            assertMatches(Pattern.quote("about 0 of 10 calls completed in ") + S
                    + Pattern.quote(" s (0 calls/s): ping: EBADMSG (74) Bad message: echo differs at byte 5 of 32: "
                            + "sent 0xa2, answered 0x5d"), o.error());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"epoll", "io_uring"})
    void aServerThatNeverAnswersEndsTheRunAtTheTimeout(String backend) throws Exception {
        String path = dir.resolve("silent.sock").toString();
        try (ScriptedServer s = new ScriptedServer(path, ScriptedServer.Mode.SILENT)) {
            PingRuns.Outcome o = ping(path, "-n", "10", "-l", "32", "--warmup", "0", "--timeout", "200", "--backend",
                    backend);
            assertMatches(Pattern.quote("about 0 of 10 calls completed in ") + S
                    + Pattern.quote(" s (0 calls/s): GR_PING: ETIMEDOUT (110)"
                    + " Connection timed out: no answer to request 2 within the receive timeout of 200 ms"
                    + " (the client stays usable; a late answer is dropped)"), o.error());
        }
    }

    /**
     * Callers on one client with its defaults against a server that answers one request per read: their
     * requests leave together, the ones kept stall, and the run ends at the first caller that failed, in
     * one line that counts the calls timed out so far.
     */
    @Test
    void callersOnOneClientThatTimeOutEndTheRunWithOneLineCountingThem() throws Exception {
        String path = dir.resolve("one-per-read.sock").toString();
        try (GroutServer s = GroutServer.start(ServerOptions.defaults().socketPath(path).requestsPerRead(1))) {
            PingRuns.Outcome o = ping(path, "-n", "400", "--warmup", "0", "--threads", "8", "--timeout", "300");
            assertMatches(Pattern.quote("one client, 8 platform threads: ") + "[0-9]+ calls? timed out; "
                    + Pattern.quote("GR_PING: ETIMEDOUT (110) Connection timed out: no answer to request ") + "[0-9]+"
                    + Pattern.quote(" within the receive timeout of 300 ms") + ".*", o.error());
        }
    }

    @Test
    void badTimeoutAndUidOptionsAreRefused() throws Exception {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () ->
                ping("/nonexistent", "--timeout", "-1"));
        assertEquals("--timeout -1: expected a number of ms >= 0 (0: forever)", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () ->
                ping("/nonexistent", "--server-uid", "5", "--any-server-uid"));
        assertEquals("--any-server-uid and --server-uid [5]: choose one", e.getMessage());
    }
}
