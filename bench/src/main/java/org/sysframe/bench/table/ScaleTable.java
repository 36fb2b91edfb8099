package org.sysframe.bench.table;

import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Goal;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.RoundRunner;
import org.sysframe.bench.peer.BenchFixture;
import org.sysframe.bench.peer.CPeer;
import org.sysframe.bench.peer.FileLimit;
import org.sysframe.bench.peer.ServerProcess;
import org.sysframe.transport.Backend;
import org.sysframe.unix.uring.UringSupport;

import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.sysframe.bench.measure.Goal.Metric.SERVER_RSS_KIB_PER_CONNECTION;

/**
 * The scale table: one server holding N connections (1, 100, 1,000, 10,000; {@code --full} also 100,000),
 * driven by the C load generator ({@code sysframe_ping -M N -A K}: one process, one level-triggered epoll
 * over its active connections), idle and active:
 * <ul>
 *   <li>{@code N idle}: one connection active, the N - 1 others idle (each said GR_HELLO and made one
 *       GR_PING, then nothing): what N idle connections cost a server that serves one;</li>
 *   <li>{@code N active}: min(N, {@value #MOST_ACTIVE}) active, each with one request in flight, the rest
 *       idle: a server busy with many clients at once, under the same offered concurrency from 100 on.</li>
 * </ul>
 * At N = 1 both are one connection, one row ({@code 1 active}). Each cell has a server of its own, in a
 * process of its own, started for it, so that the server's resident memory is its own: sysframe's server in
 * a child JVM as {@code ./sysframe serve} runs ({@link ServerProcess#java}), and the C server
 * ({@link ServerProcess#c}). Before its connections, each server is warmed by a short run of 8
 * connections (20,000 pings, closed before its memory is read), so that what it loads and compiles for
 * its first connections is not charged to the measured ones. Its resident memory per connection is
 * then the growth of its RSS from before the load generator connects to once every connection has made
 * its GR_HELLO and GR_PING, over N: one figure per cell, carried by every round.
 *
 * <p>The counts run as sets one after another, each with its own rounds (and added rounds), its
 * processes ended before the next starts: at 10,000 the servers of one set hold 40,000 connections. A
 * count that does not fit the open-files limit (RLIMIT_NOFILE, raised to the hard limit at start) in one
 * process is skipped, each of its cells named in a note with the reason.
 */
public final class ScaleTable implements Table {
    public static final String NAME = "scale";
    static final int PAYLOAD = 32;
    /** Active connections of an {@code active} cell at most. */
    static final int MOST_ACTIVE = 100;
    static final int[] COUNTS = {1, 100, 1_000, 10_000};
    static final int[] FULL_COUNTS = {1, 100, 1_000, 10_000, 100_000};
    /** Descriptors a process needs besides its connections: the C client's 16, a JVM's jars and its own. */
    static final int SPARE_DESCRIPTORS = 256;
    /** The warm-up run of every server before its memory is read: connections, and pings in all. */
    static final int WARM_CONNECTIONS = 8, WARM_PINGS = 20_000;
    static final String C_SERVER = "C server";

    /** A server of the table: sysframe's with its backend and loops, or the C server (backend null). */
    record Server(Backend backend, int loops) {
        static final Server C = new Server(null, 1);

        String label() {
            return backend == null ? C_SERVER : backend + " " + loops + (loops == 1 ? " loop" : " loops");
        }

        ServerProcess start(String socket) throws IOException {
            return backend == null ? ServerProcess.c(socket) : ServerProcess.java(socket, backend, loops);
        }
    }

    static final List<Server> SHORT = List.of(new Server(Backend.EPOLL, 1), Server.C);
    static final List<Server> FULL = List.of(new Server(Backend.EPOLL, 1), new Server(Backend.EPOLL, 2),
            new Server(Backend.IO_URING, 1), new Server(Backend.IO_URING, 2), Server.C);

    /** Idle: one connection active; active: min(N, most), most {@value #MOST_ACTIVE} in the bench. */
    enum Mode {
        IDLE, ACTIVE;

        int active(int n, int most) { return this == IDLE ? 1 : Math.min(n, most); }

        @Override
        public String toString() { return this == IDLE ? "idle" : "active"; }
    }

    /** The modes of N connections: at 1, idle and active are the same cell. */
    static List<Mode> modes(int n) { return n == 1 ? List.of(Mode.ACTIVE) : List.of(Mode.IDLE, Mode.ACTIVE); }

    /** e.g. {@code epoll 1 loop 10000 idle}, {@code C server 100 active}. */
    static String name(Server s, int n, Mode m) { return s.label() + " " + n + " " + m; }

    private static final Pattern ROW = Pattern.compile("(.+) (\\d+) (idle|active)");

    /** The C server's row beside a row (the same connections and mode), or null for a name of no row. */
    public static String cRowBeside(String row) {
        Matcher m = ROW.matcher(row);
        return m.matches() ? C_SERVER + " " + m.group(2) + " " + m.group(3) : null;
    }

    /** Calls of a run (before the round length's scaling): longer for 100 active connections than for one. */
    static long calls(int active, boolean quick) {
        if (active == 1) return quick ? 5_000 : 20_000;
        return quick ? 20_000 : 100_000;
    }

    // One figure per cell (the server's RSS growth over its connections), the C server's shown beside it.
    private static final List<Goal> GOALS = List.of(
            new Goal("idle connection memory <= 4 KiB per connection", NAME, name(SHORT.get(0), 10_000, Mode.IDLE),
                    name(Server.C, 10_000, Mode.IDLE), PAYLOAD, SERVER_RSS_KIB_PER_CONNECTION, false, 4.0));

    @Override
    public String name() { return NAME; }

    @Override
    public String about() {
        return "one server holding 1 to 10,000 connections, idle and active, sysframe's beside the C server";
    }

    @Override
    public Set<String> cells() {
        Set<String> out = new LinkedHashSet<>();
        for (int n : FULL_COUNTS) for (Mode m : modes(n)) for (Server s : FULL) out.add(name(s, n, m));
        return out;
    }

    @Override
    public List<Goal> goals() { return GOALS; }

    /** The short form ({@code make bench}) or the whole grid ({@code --full}). */
    @Override
    public BenchTable run(TableRun run) throws IOException {
        boolean full = run.full();
        return run(run.rounds(), run.quick(), full ? FULL : SHORT, full ? FULL_COUNTS : COUNTS, MOST_ACTIVE,
                FileLimit.raise(), run.plan());
    }

    /**
     * The table of servers at counts, an active cell with min(N, mostActive) active connections, within
     * limit, rounds added under plan (null: none).
     */
    static BenchTable run(int rounds, boolean quick, List<Server> servers, int[] counts, int mostActive,
            FileLimit limit, RoundRunner.Plan plan) throws IOException {
        List<String> notes = new ArrayList<>();
        notes.add(limit.describe());
        List<Cell> cells = new ArrayList<>();
        List<Measurement> runs = new ArrayList<>();
        if (!CPeer.available() || !ServerProcess.cAvailable()) {
            notes.add("not measured: bench/target/sysframe_ping and sysframe_serve are not built (make builds them)");
            return BenchTable.of(NAME, title(counts, mostActive), "server", "", false, rounds, cells, runs, notes);
        }
        String uring = UringSupport.unavailableReason();
        for (int n : counts) {
            List<Cell> set = new ArrayList<>();
            List<String> skipped = new ArrayList<>();
            try (BenchFixture f = new BenchFixture(NAME)) {
                for (Mode m : modes(n)) {
                    for (Server s : servers) {
                        String name = name(s, n, m);
                        if (s.backend() == Backend.IO_URING && uring != null) {
                            notes.add("skipped, not measured: " + name + ": " + uring);
                            continue;
                        }
                        if (!limit.fits(n, SPARE_DESCRIPTORS)) {
                            skipped.add(name);
                            continue;
                        }
                        int k = m.active(n, mostActive);
                        Probe probe = f.closing(new Probe(s, n, k, f.socket("s" + set.size())));
                        long c = calls(k, quick);
                        set.add(new Cell(name, PAYLOAD, describe(s, n, k), c, c / 4, probe));
                    }
                }
                if (!skipped.isEmpty()) {
                    notes.add(String.format(Locale.ROOT,
                            "skipped, not measured: %s: %d connections need %d descriptors and more in"
                                    + " one process (the client's, and the server's), over the open-files limit of %d "
                                            + "here (raise the hard"
                                    + " limit as root: ulimit -Hn, or LimitNOFILE)", String.join(", ", skipped), n, n,
                                            limit.descriptors()));
                }
                if (set.isEmpty()) continue;
                setUp(set);
                runs.addAll(RoundRunner.run(NAME, set, rounds, plan));
                for (Cell c : set) notes.add(((Probe) c.probe()).memoryNote(c.name()));
                cells.addAll(set);
            }
        }
        notes.add("server CPU and syscalls per request: sysframe's summed over its loops (kernel counts of the loop "
                + "threads beside"
                + " the library's), the C server's thread; calls/s and p99 are the load generator's over its active "
                        + "connections");
        notes.add("resident memory per connection: the server's RSS growth from before the load generator connected to "
                + "once every"
                + " connection had made its GR_HELLO and GR_PING, over N (below some 1,000 connections mostly the "
                        + "process's own drift)");
        return BenchTable.of(NAME, title(counts, mostActive), "server", cells.isEmpty() ? "" : cells.get(0).name(),
                false, rounds, cells, runs, notes);
    }

    /**
     * Starts, warms and connects the servers and load generators of a set's cells together, one thread
     * each (each reads only its own server's memory), before their first run: a set's setup is mostly
     * starting JVMs and making connections, and one after the other it took half the table's time.
     */
    static void setUp(List<Cell> set) throws IOException {
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        for (Cell c : set) {
            Probe p = (Probe) c.probe();
            threads.add(Thread.ofPlatform().name("scale-setup " + c.name()).start(() -> {
                try {
                    p.setUp(c.payload());
                } catch (IOException | RuntimeException e) {
                    failures.add(new IOException(c.name() + ": " + e.getMessage(), e));
                }
            }));
        }
        try {
            for (Thread t : threads) t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        if (!failures.isEmpty()) {
            IOException first = (IOException) failures.get(0);
            for (Throwable t : failures.subList(1, failures.size())) first.addSuppressed(t);
            throw first;
        }
    }

    static String title(int[] counts, int mostActive) {
        StringBuilder n = new StringBuilder();
        for (int c : counts) n.append(n.isEmpty() ? "" : ", ").append(String.format(Locale.ROOT, "%,d", c));
        return "Scale: one server holding " + n + " connections, idle (one of them active) and active (min(N, "
                + mostActive
                + ") active), C load generator, 32 B";
    }

    private static String describe(Server s, int n, int k) {
        String server = s.backend() == null ? ServerProcess.C_DESCRIPTION : "sysframe's server, " + s.label()
                + ", in a child JVM";
        return n + " connections, " + k + " active; " + server + "; " + CPeer.many("", n, k).describe();
    }

    /**
     * A cell's server and load generator, started at its first run (its warm-up) and kept for its
     * later ones: the server started and warmed, its resident memory read, the load generator's N
     * connections made, the memory read again.
     */
    static final class Probe implements Cell.Probe, AutoCloseable {
        private final Server server;
        private final int n, active;
        private final String socket;
        private ServerProcess process;
        private CPeer.Runner runner;
        private long rssBefore = -1, rssAfter = -1;
        private double perConnection = Double.NaN;

        Probe(Server server, int n, int active, String socket) {
            this.server = server;
            this.n = n;
            this.active = active;
            this.socket = socket;
        }

        @Override
        public Measurement measure(Cell cell, long calls, int round) throws IOException {
            if (runner == null) setUp(cell.payload());
            return runner.measure(cell, calls, round).withServerRss(perConnection);
        }

        /** The server started and warmed, its memory read, the N connections made, its memory read again. */
        void setUp(int payload) throws IOException {
            close();
            process = server.start(socket);
            warm(payload);
            process.awaitOpen(0, Duration.ofSeconds(30));
            rssBefore = ServerProcess.rssKb(process.pid());
            runner = CPeer.many("c-many-" + n + "-" + active, n, active).probe(socket, process.source(), 1);
            runner.open(payload);
            process.awaitOpen(n, Duration.ofSeconds(30));
            rssAfter = ServerProcess.rssKb(process.pid());
            perConnection = (rssAfter - rssBefore) * 1024.0 / n;
        }

        /** The warm-up run of the server: the load generator's own, to its end, its connections closed. */
        private void warm(int payload) throws IOException {
            List<String> cmd = List.of(CPeer.binaryPath(), "-s", socket, "-M", Integer.toString(WARM_CONNECTIONS),
                    "-A", Integer.toString(WARM_CONNECTIONS), "-n", Integer.toString(WARM_PINGS), "-l",
                    Integer.toString(payload));
            Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.INHERIT)
                            .start();
            try {
                if (!p.waitFor(120, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IOException("the warm-up run against " + process + " did not end within 120 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
                throw new IOException("interrupted", e);
            }
            if (p.exitValue() != 0) throw new IOException("the warm-up run against " + process + " failed: exit "
                    + p.exitValue());
        }

        /**
         * The requests the server answered since it started (its warm-up's, the set-up's and every run's); -1 before.
         */
        long serverRequests() throws IOException { return process == null ? -1 : process.requests(); }

        /**
         * e.g. {@code epoll 1 loop 10000 idle: server RSS 61234 KiB before, 452345 KiB with 10000 connections:
         * 40050 B each}.
         */
        String memoryNote(String name) {
            if (rssBefore < 0) return name + ": server RSS not read (the cell did not run)";
            return String.format(Locale.ROOT,
                    "%s: server RSS %d KiB before its connections, %d KiB with %d: %.0f B each",
                    name, rssBefore, rssAfter, n, perConnection);
        }

        @Override
        public void close() {
            if (runner != null) runner.close();
            runner = null;
            if (process != null) process.close();
        }
    }
}
