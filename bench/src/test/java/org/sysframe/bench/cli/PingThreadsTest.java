package org.sysframe.bench.cli;

import org.sysframe.bench.peer.CallersProbe;
import org.sysframe.bench.report.Json;
import org.sysframe.testsupport.ChildProcess;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.uring.UringSupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ping --threads N [--virtual]}: N callers on one GroutClient against a real server, the
 * --json fields of ping plus threads and virtual, library == kernel; the same over io_uring and over a
 * shared-memory channel; bad values refused in one line.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PingThreadsTest {
    @TempDir Path dir;

    /**
     * Runs of --threads that may go without kernel counts before a test fails: a run whose counted threads changed
     * (a scheduler's carrier started mid-run) has none, and says why.
     */
    private static final int KERNEL_RUNS = 5;

    /** Runs ping with args in this JVM and returns what it printed (a failure is the test's). */
    private static String ping(String... args) throws Exception {
        PingRuns.Outcome o = PingRuns.run(args);
        if (o.error() != null) throw new AssertionError("ping failed: " + o.error());
        return String.join("\n", o.out()) + "\n";
    }

    private static String refused(String... args) {
        return assertThrows(IllegalArgumentException.class, () -> ping(args)).getMessage();
    }

    @Test
    void badValuesAreRefusedInOneLine() {
        String s = "/nonexistent.sock";
        assertEquals("--threads 0: expected 1..10000", refused("-s", s, "--threads", "0"));
        assertEquals("--threads 10001: expected 1..10000", refused("-s", s, "--threads", "10001"));
        assertEquals("--virtual needs --threads N (the callers it makes virtual)", refused("-s", s, "--virtual"));
        assertEquals("--threads calls one at a time on each thread: leave out --depth",
                refused("-s", s, "--threads", "4", "--depth", "8"));
        assertEquals("--threads sends GR_PING: leave out --ping2", refused("-s", s, "--threads", "4", "--ping2"));
        assertEquals("--threads runs its callers unpinned: leave out --cpu",
                refused("-s", s, "--threads", "4", "--cpu", "0"));
        assertEquals("-n 3: at least one call per thread (--threads 4)", refused("-s", s, "--threads", "4", "-n", "3"));
        assertEquals("--max-in-flight: maxInFlight 0: expected 1..65535 (request ids are 16-bit)",
                refused("-s", s, "--threads", "4", "--max-in-flight", "0"));
        assertEquals("--max-in-flight: maxInFlight 65536: expected 1..65535 (request ids are 16-bit)",
                refused("-s", s, "--max-in-flight", "65536"));
        assertEquals("--connections: connections 0: expected 1..64", refused("-s", s, "--connections", "0"));
        assertEquals("--connections: connections 65: expected 1..64",
                refused("-s", s, "--depth", "4", "--connections", "65"));
        // Through the command line: the one line on stderr, nothing else.
        StringWriter out = new StringWriter(), err = new StringWriter();
        int rc = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), "ping", "-s", s, "--threads",
                "x");
        assertEquals(Main.USAGE, rc);
        assertEquals("sysframe ping: Invalid value for option '--threads': 'x' is not an int (see ./sysframe ping "
                + "--help)\n", err.toString());
        err.getBuffer().setLength(0);
        rc = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), "ping", "-s", s, "--threads", "0");
        assertEquals(Main.USAGE, rc, "a bad value is a usage error");
        assertEquals("sysframe ping: --threads 0: expected 1..10000\n", err.toString());
        err.getBuffer().setLength(0);
        rc = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), "ping", "-s", s, "--threads", "8",
                "--max-in-flight", "0");
        assertEquals(Main.USAGE, rc);
        assertEquals("sysframe ping: --max-in-flight: maxInFlight 0: expected 1..65535 (request ids are 16-bit)\n",
                err.toString());
    }

    /**
     * --max-in-flight 1 --connections 4 against a server that answers one request per read (Grout's
     * api.c, emulated by requestsPerRead(1)): 8 platform and 64 virtual callers get every answer, none
     * times out, each send carries one request; a --depth pipeline is held to the cap and gets through too.
     */
    @Test
    void aCapOfOneAndFourConnectionsGetEveryCallThroughAServerThatAnswersOneRequestPerRead() throws Exception {
        String sock = dir.resolve("one-per-read.sock").toString();
        try (GroutServer server = GroutServer.start(ServerOptions.defaults().socketPath(sock).requestsPerRead(1))) {
            for (List<String> callers : List.of(List.of("--threads", "8"), List.of("--threads", "64", "--virtual"))) {
                List<String> args = new ArrayList<>(List.of("-s", sock, "-l", "32", "-n", "2000", "--warmup", "200",
                        "--max-in-flight", "1", "--connections", "4", "--json"));
                args.addAll(callers);
                String printed = ping(args.toArray(String[]::new));
                @SuppressWarnings("unchecked")
                Map<String, Object> m = (Map<String, Object>) Json.parse(printed.trim());
                assertEquals(0, ((Number) m.get("timed_out")).longValue(), printed);
                assertEquals(1, ((Number) m.get("max_in_flight")).intValue());
                assertEquals(4, ((Number) m.get("connections")).intValue());
                assertEquals(2000, ((Number) m.get("calls")).longValue());
                assertEquals(1.0, ((Number) m.get("client_lib_sendto_per_call")).doubleValue(),
                        "one request per send: " + printed);
            }
            String text = ping("-s", sock, "--threads", "8", "-n", "2000", "--warmup", "0", "--max-in-flight", "1",
                    "--connections", "4");
            assertTrue(
                    text.contains(", at most 1 in flight per connection, 4 connections); latency recorded for every "
                    + "call\n"), text);
            assertTrue(text.endsWith("\ntimed out (warm-up included): 0 calls\n"), text);
            ping("-s", sock, "-l", "32", "-n", "2000", "--warmup", "0", "--depth", "8", "--max-in-flight", "1");
        }
    }

    /**
     * The server in a child JVM (./sysframe serve), so that every thread of this JVM the kernel counts is the client's.
     */
    @Test
    void callersOnOneClientReportPingsFiguresSummedWithThreadsAndVirtual() throws Exception {
        String sock = dir.resolve("threads.sock").toString();
        try (ChildProcess serve = new ChildProcess(ChildProcess.javaCommand(Main.class, "serve", "-s", sock))) {
            serve.awaitLine(l -> l.startsWith("serving "));
            for (boolean virtual : new boolean[] {false, true}) {
                List<String> args = new ArrayList<>(List.of("-s", sock, "-l", "32", "-n", "4000", "--warmup", "400",
                        "--threads", "8", "--json"));
                if (virtual) args.add("--virtual");
                boolean kernel = KernelSyscallCounter.unavailableReason() == null, counted = false;
                for (int run = 1; run <= KERNEL_RUNS && !counted; run++) {
                    String printed = ping(args.toArray(String[]::new));
                    @SuppressWarnings("unchecked")
                    Map<String, Object> m = (Map<String, Object>) Json.parse(printed.trim());
                    assertEquals(8, ((Number) m.get("threads")).intValue());
                    assertEquals(virtual, m.get("virtual"));
                    assertEquals(8, ((Number) m.get("clients")).intValue());
                    assertEquals(4000, ((Number) m.get("calls")).longValue());
                    assertEquals("one client 8 " + (virtual ? "virtual" : "platform") + " threads", m.get("label"));
                    assertEquals("socket", m.get("transport"));
                    for (String key : new String[] {"calls_per_sec", "p50_us", "p99_us", "client_cpu_us_per_call",
                            "server_cpu_us_per_call", "calls_per_send"}) {
                        assertTrue(((Number) m.get(key)).doubleValue() > 0, key + " in " + printed);
                    }
                    double sends = ((Number) m.get("client_lib_sendto_per_call")).doubleValue();
                    double recvs = ((Number) m.get("client_lib_recvfrom_per_call")).doubleValue();
                    assertTrue(sends > 0 && sends <= 1, "at most one send per call: " + sends);
                    assertTrue(recvs > 0 && recvs <= 1, "at most one recv per call (read-ahead): " + recvs);
                    if (!kernel) break;
                    if (!m.containsKey("client_kernel_sendto_per_call")) {
                        // A thread that makes the client's calls (a carrier of the scheduler, say) started during the
                        // run: its kernel counts are void, and the run says which thread; another run counts them.
                        assertTrue(String.valueOf(m.get("kernel_counts_unavailable")).startsWith(
                                CallersProbe.KERNEL_VOID), printed);
                        continue;
                    }
                    // The callers, the client's own thread and the poller together, as the kernel counted them on every
                    // thread of this JVM.
                    assertEquals(sends, ((Number) m.get("client_kernel_sendto_per_call")).doubleValue(),
                            "sendto: library == kernel");
                    assertEquals(recvs, ((Number) m.get("client_kernel_recvfrom_per_call")).doubleValue(),
                            "recvfrom: library == kernel");
                    counted = true;
                }
                assertTrue(!kernel || counted, KERNEL_RUNS + " runs in a row, each with a thread started mid-run");
            }
        }
    }

    /**
     * --backend io_uring (where io_uring is available) and --transport shm: the same one client, every caller on it.
     */
    @Test
    void callersOnOneClientOverIoUringAndOverSharedMemory() throws Exception {
        String sock = dir.resolve("threads-other.sock").toString();
        try (ChildProcess serve = new ChildProcess(ChildProcess.javaCommand(Main.class, "serve", "-s", sock,
                "--transport", "shm"))) {
            serve.awaitLine(l -> l.startsWith("serving "));
            List<List<String>> runs = new ArrayList<>();
            runs.add(List.of("--transport", "shm"));
            if (UringSupport.unavailableReason() == null) runs.add(List.of("--backend", "io_uring"));
            for (List<String> extra : runs) {
                List<String> args = new ArrayList<>(List.of("-s", sock, "-l", "32", "-n", "4000", "--warmup", "400",
                        "--threads", "8", "--virtual", "--json"));
                args.addAll(extra);
                String printed = ping(args.toArray(String[]::new));
                @SuppressWarnings("unchecked")
                Map<String, Object> m = (Map<String, Object>) Json.parse(printed.trim());
                boolean shm = extra.contains("shm");
                assertEquals(shm ? "shm" : "socket", m.get("transport"), printed);
                assertEquals(8, ((Number) m.get("clients")).intValue());
                assertEquals(4000, ((Number) m.get("calls")).longValue());
                assertEquals("one client 8 virtual threads", m.get("label"));
                assertEquals(0.0, ((Number) m.get("client_lib_sendto_per_call")).doubleValue(), "no sendto: "
                        + printed);
                if (shm) {
                    // The channel's only socket calls: a look for the server's end after a sleep (recv with MSG_PEEK),
                    // which finds nothing.
                    assertEquals(((Number) m.get("client_empty_recvfrom_per_call")).doubleValue(),
                            ((Number) m.get("client_lib_recvfrom_per_call")).doubleValue(), "only empty recvfrom: "
                            + printed);
                    assertTrue(!m.containsKey("calls_per_send"), "no send syscall over the channel: " + printed);
                } else {
                    assertEquals(0.0, ((Number) m.get("client_lib_recvfrom_per_call")).doubleValue(), "no recvfrom: "
                            + printed);
                    double enters = ((Number) m.get("client_lib_io_uring_enter_per_call")).doubleValue();
                    assertTrue(enters > 0, "io_uring_enter: " + printed);
                    assertTrue(((Number) m.get("calls_per_send")).doubleValue() >= 1, "no more send SQEs than calls: "
                            + printed);
                }
            }
        }
    }
}
