package org.sysframe.bench.cli;

import org.sysframe.transport.Backend;
import org.sysframe.transport.ConnectionStats;
import org.sysframe.transport.FlushMode;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;
import org.sysframe.transport.WaitMode;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.Self;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.uring.UringCounts;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code sysframe serve}: a server until SIGINT/SIGTERM, then per-connection totals (the first {@value #LISTED}, and
 * the totals of all).
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Serve the Grout API (GR_HELLO, GR_PING, GR_PING2, events) until SIGINT or SIGTERM.")
final class ServeCommand implements Callable<Integer> {
    @Option(names = {"-s", "--socket"}, description =
            "socket path (default: $GROUT_SOCK_PATH, else /run/grout.sock; @NAME: abstract)")
    String socket = GroutApi.defaultSocketPath();

    @Mixin
    SendOption sendOption;

    @Option(names = "--flush", description = "immediate | deferred (default: ${DEFAULT-VALUE})")
    String flush = "deferred";

    @Option(names = "--api-version", description = "API version answered in GR_HELLO (default: ${DEFAULT-VALUE})")
    int apiVersion = GroutApi.DEFAULT_API_VERSION;

    @Option(names = "--mode", description = "socket file mode, octal (default: ${DEFAULT-VALUE})")
    String mode = "0600";

    @Option(names = "--empty-hello", description =
            "answer GR_HELLO without max_ifaces, as older Grout servers did (their clients need it)")
    boolean emptyHello;

    @Option(names = "--allow-uid", description =
            "let these uids connect (repeatable). Socket file: only these (default: whoever the file mode"
            + " lets in). Abstract @NAME, which has no file mode: these besides this server's own uid (default: its "
                    + "own uid only)")
    List<Integer> allowUids = new ArrayList<>();

    @Option(names = "--loops", description =
            "event-loop threads; loop 0 also accepts, each connection goes to the least-loaded loop (default: "
            + "${DEFAULT-VALUE})")
    int loops = 1;

    @Option(names = "--wait", description =
            "how each loop waits for events: block | spin | spin:DURATION (e.g. spin:50us) | yield (default: "
            + "${DEFAULT-VALUE})")
    String waitMode = "block";

    @Option(names = "--cpu", split = ",", description =
            "pin loop i to the i-th of these CPUs, repeating (e.g. --cpu 0 or --cpu 0,1; default: not pinned)")
    int[] cpus = new int[0];

    @Option(names = "--backend", description =
            "epoll | io_uring | auto: how the loops move bytes (io_uring: multishot accept and receive,"
            + " one io_uring_enter per loop turn; auto falls back to epoll where io_uring is unavailable, saying why) "
                    + "(default: ${DEFAULT-VALUE})")
    String backend = "epoll";

    @Option(names = "--transport", description =
            "socket | shm: shm also offers sysframe clients a shared-memory channel, served by the loop of its"
            + " socket and waiting as --wait says; the loops then block by themselves, and a loop serving a"
            + " spinning channel spins, on either backend (default: ${DEFAULT-VALUE})")
    String transport = "socket";

    @Option(names = "--allow-any-uid", description =
            "let every uid connect to an abstract @NAME (default: only this server's uid)")
    boolean allowAnyUid;

    @Option(names = "--request-timeout", description =
            "close a connection whose started request is not whole after this long, e.g. 500ms, 10s, 2m (default: "
            + "${DEFAULT-VALUE})")
    String requestTimeout = "10s";

    @Option(names = "--idle-timeout", description =
            "close a connection from which nothing came for this long; 0: never (default: ${DEFAULT-VALUE}: a client"
            + " subscribed to events may rightly stay silent)")
    String idleTimeout = "0";

    @Option(names = "--memory-budget", description =
            "bytes, across all connections, for large requests (128 KiB each) and unsent output, e.g. 64M;"
            + " at the budget a large request waits, unread, until memory is freed or its request timeout (default: "
                    + "${DEFAULT-VALUE})")
    String memoryBudget = "64M";

    @Option(names = "--log-limit", description =
            "at most LINES warnings of one kind (refused uid, bad hello, over-size request, timeouts, slow reader)"
            + " per INTERVAL, then one line counting the rest: LINES/INTERVAL (default: ${DEFAULT-VALUE})")
    String logLimit = "10/10s";

    @Option(names = "--requests-per-read", paramLabel = "N", description = "for testing clients: emulate Grout's api.c,"
            + " which handles one request per socket read and keeps the rest until more bytes arrive: handle at most"
            + " N requests per read (socket connections only); 0: every complete request (default: ${DEFAULT-VALUE})")
    int requestsPerRead;

    /** --mode as an octal file mode; anything else fails naming the option and the form. */
    static int octalMode(String m) {
        try {
            int v = Integer.parseInt(m, 8);
            if ((v & ~0777) == 0) return v;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--mode " + m + ": expected an octal file mode 0000..0777, e.g. 0600");
    }

    /** A duration option: a whole number of ms, s or m (or 0 where allowed); anything else fails naming the option. */
    static Duration duration(String option, String v, boolean zeroAllowed) {
        Matcher m = Pattern.compile("(\\d{1,9})(ms|s|m)?").matcher(v.trim());
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            String unit = m.group(2) == null ? "" : m.group(2);
            if (n == 0 && zeroAllowed) return Duration.ZERO;
            if (n > 0) {
                switch (unit) {
                    case "ms": return Duration.ofMillis(n);
                    case "s": return Duration.ofSeconds(n);
                    case "m": return Duration.ofMinutes(n);
                    default: break;
                }
            }
        }
        throw new IllegalArgumentException(option + " " + v + ": expected a whole number of ms, s or m"
                + (zeroAllowed ? ", or 0 for never" : "")
                + ", e.g. 500ms or 10s");
    }

    /** A size option: bytes, or a whole number of K, M or G (KiB, MiB, GiB). */
    static long size(String option, String v) {
        Matcher m = Pattern.compile("(\\d{1,12})([KMG]?)").matcher(v.trim().toUpperCase(Locale.ROOT));
        if (m.matches()) {
            int shift = switch (m.group(2)) { case "K" -> 10; case "M" -> 20; case "G" -> 30; default -> 0; };
            long n = Long.parseLong(m.group(1));
            if (n <= (Long.MAX_VALUE >> shift)) return n << shift;
        }
        throw new IllegalArgumentException(option + " " + v
                + ": expected bytes or a whole number of K, M or G, e.g. 64M");
    }

    /** How many connections the stop report lists one per line; past it, totals and a count of the rest. */
    static final int LISTED = 10;

    /**
     * What {@code serve} prints on stop about its connections, closed ones first: up to {@code listed}
     * of them, one line each after a header; with more, the header gives the totals of all of them and a
     * last line says how many were not listed, e.g.
     * <pre>
     * stopped; 26 connection(s) (20 closed, 6 open at the stop): 4567 requests, sendto=... recvfrom=...; the first 10:
     *   pid 4242 uid 0: 137 requests, sendto=137 recvfrom=138 (peer closed)
     *   ...
     *   ... and 16 more connection(s), not listed
     * </pre>
     */
    static List<String> stopReport(List<ConnectionStats> closed, List<ConnectionStats> open, int listed) {
        List<ConnectionStats> all = new ArrayList<>(closed);
        all.addAll(open);
        List<String> lines = new ArrayList<>();
        if (all.size() <= listed) {
            lines.add("stopped; " + all.size() + " connection(s):");
            for (ConnectionStats c : all) lines.add("  " + c);
            return lines;
        }
        long requests = 0;
        SyscallCounts syscalls = SyscallCounts.ZERO;
        for (ConnectionStats c : all) {
            requests += c.requests();
            syscalls = syscalls.plus(c.syscalls());
        }
        lines.add("stopped; " + all.size() + " connection(s) (" + closed.size() + " closed, " + open.size()
                + " open at the stop): "
                + requests + " requests, " + syscalls + "; the first " + listed + ":");
        for (ConnectionStats c : all.subList(0, listed)) lines.add("  " + c);
        lines.add("  ... and " + (all.size() - listed) + " more connection(s), not listed");
        return lines;
    }

    /**
     * Starts the server; a socket file in a directory that does not exist fails naming the directory and
     * saying to create it, e.g. {@code serve -s /tmp/nodir/x.sock: the directory /tmp/nodir does not exist:
     * create it (mkdir -p /tmp/nodir) or choose a path in an existing directory}.
     */
    private static GroutServer start(ServerOptions o, String socket) throws IOException {
        try {
            return GroutServer.start(o);
        } catch (ErrnoException e) {
            String missing = e.errno() == Errno.ENOENT ? missingDirectory(socket) : null;
            if (missing == null) throw e;
            throw new IOException("-s " + socket + ": the directory " + missing
                    + " does not exist: create it (mkdir -p " + missing
                    + ") or choose a path in an existing directory", e);
        }
    }

    /**
     * The directory a socket file path names when it does not exist, else null (an abstract name, an existing
     * directory).
     */
    static String missingDirectory(String socket) {
        if (socket.isEmpty() || socket.startsWith("@")) return null;
        Path dir = Path.of(socket).toAbsolutePath().getParent();
        return dir == null || Files.isDirectory(dir) ? null : dir.toString();
    }

    @Override
    public Integer call() throws Exception {
        ServerOptions o = ServerOptions.defaults().socketPath(socket).send(sendOption.framing())
                .flush(OptionValues.parse("--flush", flush, FlushMode::parse)).apiVersion(apiVersion)
                        .mode(octalMode(mode)).emptyHelloResponse(emptyHello).loops(loops)
                .waitMode(OptionValues.parse("--wait", waitMode, WaitMode::parse)).cpus(cpus)
                .backend(OptionValues.parse("--backend", backend, Backend::parse));
        OptionValues.parse("--requests-per-read", String.valueOf(requestsPerRead),
                v -> o.requestsPerRead(requestsPerRead));
        if (OptionValues.sharedMemory(transport)) {
            // The channels wait as --wait says; the loops block by themselves, and wait as their channels while they
            // serve them.
            o.sharedMemory(true).sharedMemoryWaitMode(o.freeze().waitMode()).waitMode(WaitMode.BLOCK);
        }
        o.requestTimeout(duration("--request-timeout", requestTimeout, false))
                .idleTimeout(duration("--idle-timeout", idleTimeout, true));
        long budget = size("--memory-budget", memoryBudget);
        OptionValues.parse("--memory-budget", memoryBudget, v -> o.memoryBudget(budget));
        int slash = logLimit.indexOf('/');
        if (slash < 0) throw new IllegalArgumentException("--log-limit " + logLimit
                + ": expected LINES/INTERVAL, e.g. 10/10s");
        int lines;
        try {
            lines = Integer.parseInt(logLimit.substring(0, slash).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--log-limit " + logLimit + ": expected LINES/INTERVAL, e.g. 10/10s");
        }
        Duration interval = duration("--log-limit", logLimit.substring(slash + 1), false);
        OptionValues.parse("--log-limit", logLimit, v -> o.logLimit(lines, interval));
        if (!allowUids.isEmpty()) {
            Set<Integer> uids = new HashSet<>(allowUids);
            if (socket.startsWith("@")) uids.add(Self.uid()); // widens the abstract name's default
            o.allowedUids(uids);
        }
        o.allowAnyUid(allowAnyUid);
        GroutServer server = start(o, socket);
        // The line claims the socket's mode: only while the file at the path is this server's socket with it.
        String moved = server.socketFileProblem();
        if (moved != null) {
            server.close();
            throw new IOException(moved
                    + ": stopped (another user who can write the directory may have moved the socket)");
        }
        StringBuilder tids = new StringBuilder();
        for (int i = 0; i < server.loopCount(); i++) tids.append(i == 0 ? "" : ", ").append(server.loopThreadId(i));
        System.out.println("serving " + server.config() + " (loop thread" + (server.loopCount() > 1 ? "s " : " ")
                + tids + "); SIGINT or SIGTERM stops");
        CountDownLatch done = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                List<ConnectionStats> closed = server.closedConnections();
                List<ConnectionStats> open = server.openConnections();
                server.close();
                for (String line : stopReport(closed, open, LISTED)) System.out.println(line);
                System.out.println("server loops total: " + server.totalCounts());
                if (server.backend() == Backend.IO_URING) {
                    UringCounts u = UringCounts.ZERO;
                    for (int i = 0; i < server.loopCount(); i++) u = u.plus(server.loopUringCounts(i));
                    System.out.println("server loops io_uring: " + u);
                }
            } catch (Exception e) {
                System.err.println("shutdown: " + e.getMessage());
            } finally {
                done.countDown();
            }
        }, "sysframe-serve-shutdown"));
        // Stopped by the hook (SIGINT, SIGTERM), or by a loop that failed: then the process does not stay
        // up half-alive, it exits non-zero (the failure and its stack trace were logged by the loop).
        while (!server.awaitStop(Duration.ofDays(1))) {
            // waiting
        }
        Throwable failure = server.failure();
        if (failure != null) {
            System.err.println("sysframe serve: a server loop failed (" + failure + "): stopped");
            return 1;
        }
        done.await();
        return 0;
    }
}
