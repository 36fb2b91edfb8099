package org.sysframe.bench.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.testsupport.NeedsRoot;
import org.sysframe.transport.ConnectionStats;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.Self;
import org.sysframe.unix.SyscallCounts;
import org.w3c.dom.Document;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The command line's own texts, exact: {@code help} and {@code help COMMAND}, a top-level usage error,
 * {@code -V} (the pom's version), {@code serve} into a missing directory, the EACCES remedy of
 * {@code ping}, {@code ping}'s cold-start line, and {@code serve}'s bounded stop report.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CliTextsTest {
    @TempDir Path dir;

    private record Run(int rc, String out, String err) {}

    /** Every command of the CLI. */
    private static final List<String> COMMANDS = List.of("serve", "ping", "matrix", "compare", "sweep", "tune",
            "results", "profile", "help");

    /** The CLI in this JVM (Main.execute): exit code, stdout of picocli (usage, help, version) and stderr. */
    private static Run cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(rc, out.toString(), err.toString());
    }

    @Test
    void helpListsTheCommandsAndHelpCommandPrintsThatCommandsUsage() {
        Run help = cli("help");
        assertEquals(0, help.rc, help.err);
        assertEquals("", help.err);
        assertEquals(cli("--help").out, help.out, "help is --help");
        assertTrue(help.out.startsWith("Usage: sysframe [-hV] [COMMAND]\n"), help.out);
        for (String cmd : COMMANDS) {
            assertTrue(help.out.lines().anyMatch(l -> l.startsWith("  " + cmd + " ")), cmd + " listed: " + help.out);
        }
        Run ping = cli("help", "ping");
        assertEquals(0, ping.rc, ping.err);
        assertEquals(cli("ping", "--help").out, ping.out, "help ping is ping --help");
        assertTrue(ping.out.startsWith("Usage: sysframe ping [-hV]"), ping.out);
    }

    /**
     * Every command's help renders its descriptions as written: picocli formats them, and a lone % there was printed
     * raw, with three warnings on stderr (ping's --no-kernel-counts said "2-5 % of the calls/s").
     */
    @Test
    void everyCommandsHelpRendersWithoutPicocliWarnings() {
        PrintStream stderr = System.err;
        ByteArrayOutputStream warned = new ByteArrayOutputStream();
        System.setErr(new PrintStream(warned, true, StandardCharsets.UTF_8));
        Run ping = null;
        try {
            for (String cmd : COMMANDS) {
                if (cmd.equals("help")) continue;
                Run help = cli(cmd, "--help");
                assertEquals(0, help.rc, cmd + ": " + help.err);
                if (cmd.equals("ping")) ping = help;
            }
        } finally {
            System.setErr(stderr);
        }
        assertEquals("", warned.toString(StandardCharsets.UTF_8));
        String flat = ping.out.replaceAll("\\s+", " ");
        assertTrue(flat.contains("a tracepoint handler, 2-5 % of the calls/s"), ping.out);
    }

    @Test
    void usageErrorsOfTheTopLevelNameItOnce() {
        Run unknown = cli("nosuch");
        assertEquals(Main.USAGE, unknown.rc);
        assertEquals("sysframe: Unmatched argument at index 0: 'nosuch' (see ./sysframe help)\n", unknown.err);
        Run helpUnknown = cli("help", "nosuch");
        assertEquals(Main.USAGE, helpUnknown.rc);
        assertEquals("sysframe: Unknown subcommand 'nosuch'. (see ./sysframe help)\n", helpUnknown.err);
        Run badOption = cli("ping", "--nosuch");
        assertEquals(Main.USAGE, badOption.rc);
        assertEquals("sysframe ping: Unknown option: '--nosuch' (see ./sysframe ping --help)\n", badOption.err);
    }

    @Test
    void theVersionIsThePoms() throws Exception {
        // Surefire runs in the module's directory: bench/pom.xml inherits the parent's version, ../pom.xml.
        String pom = text(Path.of("..", "pom.xml"), "/project/version");
        assertEquals(pom, text(Path.of("pom.xml"), "/project/parent/version"), "bench's parent is the root pom");
        assertTrue(pom.matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"), pom);
        Run v = cli("-V");
        assertEquals(0, v.rc, v.err);
        assertEquals("sysframe " + pom + "\n", v.out);
        assertEquals(v.out, cli("ping", "-V").out, "a command's -V too");
        assertEquals(pom, Main.Version.version());
    }

    private static String text(Path pom, String xpath) throws Exception {
        Document d = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
        return XPathFactory.newInstance().newXPath().evaluate(xpath, d).trim();
    }

    @Test
    void serveIntoAMissingDirectoryNamesItAndSaysToCreateIt() {
        Path missing = dir.resolve("no-such-dir");
        String sock = missing.resolve("x.sock").toString();
        Run r = cli("serve", "-s", sock);
        assertEquals(1, r.rc);
        assertEquals("sysframe serve: -s " + sock + ": the directory " + missing
                + " does not exist: create it (mkdir -p " + missing
                + ") or choose a path in an existing directory\n", r.err);
        assertFalse(Files.exists(missing), "nothing was created");
        assertEquals(null, ServeCommand.missingDirectory(dir.resolve("x.sock").toString()), "an existing directory");
        assertEquals(null, ServeCommand.missingDirectory("@abstract"), "an abstract name has no directory");
    }

    @Test
    void pingsEaccesLineSaysWhatToDo() {
        ErrnoException e = new ErrnoException("connect(/run/x.sock)", Errno.EACCES,
                "the socket file's mode does not let uid " + Self.uid() + " connect");
        assertEquals("connect(/run/x.sock): EACCES (13) Permission denied: the socket file's mode does not let uid "
                + Self.uid()
                + " connect: run ping as the server's uid, or start the server with --mode 0660 and a group that uid "
                        + Self.uid() + " is in",
                PingCommand.withRemedy(e).getMessage());
        ErrnoException other = new ErrnoException("recv(/run/x.sock)", Errno.EACCES);
        assertEquals(other, PingCommand.withRemedy(other), "only connect's EACCES is about the file's mode");
    }

    /** ping's last line: the connect and the first call as a fresh JVM pays them (the times are not checked). */
    @Test
    void pingEndsWithTheColdStartLine() throws Exception {
        assertEquals("first connect: 182.4 ms, first call: 0.9 ms (in a fresh JVM)",
                PingReport.coldStart(182_400_000, 900_000, true));
        assertEquals("first connect: 3.1 ms (this JVM connected before)", PingReport.coldStart(3_100_000, -1, false));
        String line = "first connect: [0-9]+\\.[0-9] ms%s \\((in a fresh JVM|this JVM connected before)\\)";
        String call = ", first call: [0-9]+\\.[0-9] ms";
        String sock = dir.resolve("cold.sock").toString();
        try (GroutServer server = GroutServer.start(ServerOptions.defaults().socketPath(sock))) {
            PingRuns.Outcome one = PingRuns.run(sock, List.of("-n", "20", "--warmup", "5"));
            assertEquals(null, one.error());
            assertTrue(one.out().getLast().matches(String.format(line, call)), one.out().getLast());
            String cold = PingRuns.run(sock, List.of("-n", "20", "--warmup", "0")).out().getLast();
            assertTrue(cold.matches(String.format(line, call)), "the run's first call without a warm-up: " + cold);
            String piped = PingRuns.run(sock, List.of("-n", "20", "--warmup", "5", "--depth", "4")).out().getLast();
            assertTrue(piped.matches(String.format(line, "")), "no first call with --depth: " + piped);
        }
    }

    /** Uid 65534 pings a 0600 socket file of root's: the whole line, from a child JVM of that uid. */
    @Test
    @NeedsRoot
    void anotherUidRefusedByTheFileModeGetsTheRemedyInItsLine() throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        String sock = dir.resolve("root-only.sock").toString();
        // The child reads no jar of the build's private repository (not readable by uid 65534): copies here.
        Path lib = Files.createDirectory(dir.resolve("lib"));
        List<String> cp = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(e);
            if (Files.isRegularFile(p)) {
                Path copy = lib.resolve(cp.size() + "-" + p.getFileName());
                Files.copy(p, copy);
                cp.add(copy.toString());
            } else {
                cp.add(e);
            }
        }
        try (GroutServer server = GroutServer.start(ServerOptions.defaults().socketPath(sock))) {
            List<String> cmd = new ArrayList<>(List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED",
                    "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData", "-Xmx64m",
                    "-cp", String.join(File.pathSeparator, cp), Main.class.getName(), "ping", "-s", sock, "-n", "1"));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "exited");
            assertEquals(1, p.exitValue(), out);
            assertEquals("sysframe ping: connect(" + sock
                    + "): EACCES (13) Permission denied: the socket file's mode does not let uid 65534"
                    + " connect: run ping as the server's uid, or start the server with --mode 0660 and a group that "
                            + "uid 65534 is in\n", out);
            assertEquals(0, server.closedConnections().size() + server.openConnections().size(), "nothing connected");
        }
    }

    private static ConnectionStats conn(int pid, long requests) {
        return new ConnectionStats(pid, 0, requests,
                SyscallCounts.builder().sendto(requests).recvfrom(requests + 1).build(), "peer closed");
    }

    @Test
    void serveStopReportListsTheFirstConnectionsAndCountsTheRest() {
        List<ConnectionStats> closed = new ArrayList<>();
        for (int i = 0; i < 13; i++) closed.add(conn(1000 + i, 10 + i));
        List<ConnectionStats> open = List.of(conn(2000, 5));
        List<String> lines = ServeCommand.stopReport(closed, open, 3);
        // 10 + 11 + ... + 22 = 208, plus the open one's 5
        assertEquals(List.of(
                "stopped; 14 connection(s) (13 closed, 1 open at the stop): 213 requests, sendto=213 recvfrom=227; the "
                + "first 3:",
                "  pid 1000 uid 0: 10 requests, sendto=10 recvfrom=11 (peer closed)",
                "  pid 1001 uid 0: 11 requests, sendto=11 recvfrom=12 (peer closed)",
                "  pid 1002 uid 0: 12 requests, sendto=12 recvfrom=13 (peer closed)",
                "  ... and 11 more connection(s), not listed"), lines);
        assertEquals(10, ServeCommand.LISTED);
        assertEquals(ServeCommand.LISTED + 2, ServeCommand.stopReport(closed, open, ServeCommand.LISTED).size(),
                "bounded");
    }

    @Test
    void aFewConnectionsAreEachListedAsBefore() {
        assertEquals(List.of("stopped; 2 connection(s):",
                        "  pid 7 uid 0: 1 requests, sendto=1 recvfrom=2 (peer closed)",
                        "  pid 8 uid 0: 2 requests, sendto=2 recvfrom=3 (peer closed)"),
                ServeCommand.stopReport(List.of(conn(7, 1)), List.of(conn(8, 2)), ServeCommand.LISTED));
        assertEquals(List.of("stopped; 0 connection(s):"),
                ServeCommand.stopReport(List.of(), List.of(), ServeCommand.LISTED));
    }
}
