package org.sysframe.bench.peer;

import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.KernelCounters;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.measure.ThreadCpu;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.SyscallCounts;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The C client (bench/src/main/c/sysframe_ping.c, built by make with gcc -O2) as a peer: a process
 * (or several together, one connection each: {@link #probe(String, ServerSample.Source, int)}) started
 * at a cell's first run and kept for its later ones, each run one command on its stdin ({@code -R}),
 * with the kernel's counter of each process (a single-threaded process: its tid is its pid) read
 * around its timed loop. See {@link Runner} for why it is kept.
 *
 * <p>Two modes: <b>timed</b> reads the clock around every request for latency percentiles (and, when
 * pipelining, refills a whole batch at a time); <b>lean</b> ({@code -L}, {@link Options#lean}) is the
 * least a C client can do for the workload, the anchor the goals compare against: no clock read per
 * request (its latency figures are 0, which the report shows as -), frames built once, the slots freed by each receive
 * refilled with one send, a 1 MiB read-ahead.
 *
 * <p>A third, the many-connections mode ({@link #many}, {@code -M N -A K}), is the scale table's load
 * generator: one process holding N connections, set up when it starts (each its GR_HELLO and one
 * GR_PING, then {@code connected N}), K of them active in a run with one request in flight each.
 */
public final class CPeer {
    /**
     * How the C client waits for a response ({@code -W}: block, spin, spin:N, yield), the CPU it is
     * pinned to ({@code -c}, -1: not pinned), pipelining ({@code -d} requests in flight, sent
     * {@code -b} at a time) and whether it runs lean ({@code -L}: refilled as answers come, so no
     * batch; block, spin or yield). {@link #DEFAULT} is one blocking timed call at a time, unpinned.
     */
    public record Options(String waitMode, int cpu, int depth, int batch, boolean lean) {
        public static final Options DEFAULT = new Options("block", -1, 1, 1);

        /** The timed mode. */
        public Options(String waitMode, int cpu, int depth, int batch) {
            this(waitMode, cpu, depth, batch, false);
        }

        public Options {
            if (waitMode == null || !waitMode.matches("block|spin|spin:[0-9]+|yield")) {
                throw new IllegalArgumentException("wait mode " + waitMode);
            }
            if (cpu < -1) throw new IllegalArgumentException("cpu " + cpu);
            if (depth < 1 || batch < 1 || batch > depth) throw new IllegalArgumentException("depth " + depth
                    + ", batch " + batch);
            if (lean
                    && waitMode.startsWith("spin:")) throw new IllegalArgumentException("lean mode reads no clock per "
                            + "request: wait " + waitMode);
        }

        /** The lean mode: depth in flight (1: one call at a time), waiting as waitMode says (block, spin, yield). */
        public static Options lean(String waitMode, int cpu, int depth) {
            return new Options(waitMode, cpu, depth, depth, true);
        }

        List<String> args() {
            List<String> a = new ArrayList<>(List.of("-W", waitMode, "-d", Integer.toString(depth)));
            if (lean) a.add("-L");
            else a.addAll(List.of("-b", Integer.toString(batch)));
            if (cpu >= 0) a.addAll(List.of("-c", Integer.toString(cpu)));
            return a;
        }
    }

    private final String name;
    private final String framing;
    private final Options options;
    /** The many-connections mode ({@code -M}): connections of one process, 0 when off; active ones ({@code -A}). */
    private final int connections, active;

    CPeer(String name, String framing) {
        this(name, framing, Options.DEFAULT);
    }

    public CPeer(String name, String framing, Options options) {
        this(name, framing, options, 0, 0);
    }

    private CPeer(String name, String framing, Options options, int connections, int active) {
        if (options.depth() > 1
                && framing.equals("split")) throw new IllegalArgumentException("split framing is for depth 1 only");
        if (options.lean() && framing.equals("split")) throw new IllegalArgumentException("split framing is not lean");
        if (connections < 0 || active < 0 || active > connections || (connections > 0 && active < 1)) {
            throw new IllegalArgumentException(connections + " connections, " + active + " active");
        }
        this.name = name;
        this.framing = framing;
        this.options = options;
        this.connections = connections;
        this.active = active;
    }

    /**
     * The many-connections mode ({@code -M connections -A active}): one process holding connections,
     * each of which said GR_HELLO and made one GR_PING before the first run (its {@code connected N}
     * line); in a run the first active ones keep one request in flight each, the others stay idle.
     */
    public static CPeer many(String name, int connections, int active) {
        if (connections < 1) throw new IllegalArgumentException(connections + " connections");
        return new CPeer(name, "frame", Options.DEFAULT, connections, active);
    }

    public String name() { return name; }

    Options options() { return options; }

    public String describe() {
        if (connections > 0) {
            return "C load generator, gcc -O2: " + connections + " connections from one process (-M), " + active
                    + " of them active with one request in flight each (-A), one send() and one recv() per call, "
                            + "level-triggered"
                    + " epoll over the active ones; each idle one said GR_HELLO and made one GR_PING before the first "
                            + "run";
        }
        if (options.lean()) {
            return "C lean, gcc -O2, " + (options.depth() > 1 ? "depth " + options.depth() + ", " : "")
                    + "one send() per refill as answers come, read-ahead 1 MiB, no clock per request (latency not "
                            + "measured)"
                    + (options.waitMode().equals("block") ? "" : ", wait " + options.waitMode())
                    + (options.cpu() < 0 ? "" : ", pinned to cpu " + options.cpu());
        }
        String send = options.depth() > 1 ? "depth " + options.depth() + ", batches of " + options.batch()
                + " in one send"
                : framing.equals("split") ? "two send()" : "one sendmsg()";
        return "C timed (clock per request, for latency), gcc -O2, " + send + ", read-ahead 8192"
                + (options.waitMode().equals("block") ? "" : ", wait " + options.waitMode())
                + (options.cpu() < 0 ? "" : ", pinned to cpu " + options.cpu());
    }

    /** Whether the C client is built (make builds it; a bare Maven build does not). */
    public static boolean available() {
        return Files.isExecutable(Path.of(System.getProperty("sysframe.cpeer", "bench/target/sysframe_ping")));
    }

    /** The C client's binary, for a run of its own (the scale table's warm-up). */
    public static String binaryPath() { return binary().toString(); }

    static Path binary() {
        Path p = Path.of(System.getProperty("sysframe.cpeer", "bench/target/sysframe_ping"));
        if (!Files.isExecutable(p)) throw new IllegalStateException(p + " is missing: build it with make (gcc)");
        return p;
    }

    /** A probe of one process of this peer against socket; the server side read from server. */
    public Runner probe(String socket, ServerSample.Source server) {
        return probe(socket, server, 1);
    }

    /**
     * A probe of processes copies of this peer together, each on a connection of its own, the calls
     * of a run split evenly between them: the figures are their sum, the wall time from the first
     * one's start to the last one's end (CLOCK_MONOTONIC, as {@link System#nanoTime}), and the
     * latency percentiles the highest of theirs (0 for lean peers, which measure none).
     */
    public Runner probe(String socket, ServerSample.Source server, int processes) {
        if (processes < 1) throw new IllegalArgumentException("processes " + processes);
        return new Runner(socket, server, processes);
    }

    /** The command line of this peer's process: runs on command ({@code -R}) of len-byte pings against socket. */
    List<String> command(String socket, int payload) {
        List<String> cmd = new ArrayList<>(List.of(binary().toString(), "-s", socket, "-l", Integer.toString(payload),
                "-R", "-j"));
        if (connections > 0) {
            cmd.addAll(List.of("-M", Integer.toString(connections), "-A", Integer.toString(active)));
            return cmd;
        }
        if (!options.lean()) cmd.addAll(List.of("-f", framing, "-r", "readahead"));
        cmd.addAll(options.args());
        return cmd;
    }

    /** How long the runner waits for a line of its processes: a run of the bench takes well under a second. */
    static final long ANSWER_SECONDS = 300;

    /**
     * The processes of a probe, started at its first run and kept, connected, for every later one
     * (each run one command to each, {@code -R}), as the bench's Java peers keep their threads: a
     * process started for its run would begin cold, its first calls at another rate than its later ones
     * (docs/results.md), where a Java peer has run before; kept, both are warmed once, by the cell's
     * warm-up, and both sleep between their runs. The kernel's
     * counter of each process stays open with it; what it counts of a run is, besides the timed
     * calls, exactly one read(2) (the go line's byte) and one write(2) (the summary) per process.
     * A process that fails is gone with its run's error; the next run starts the set again.
     * {@link #close} ends them (their stdin closed).
     */
    public final class Runner implements Cell.Probe, AutoCloseable {
        private final String socket;
        private ServerSample.Source server;
        private final int count;
        private final List<Live> live = new ArrayList<>();
        private int payload = -1;

        private Runner(String socket, ServerSample.Source server, int count) {
            this.socket = socket;
            this.server = server;
            this.count = count;
        }

        /** The pids of the running processes (none before the first run or after close). */
        public List<Long> pids() { return live.stream().map(l -> l.process.pid()).toList(); }

        /**
         * Starts the processes for pings of len bytes now, unless they run for it already; in the
         * many-connections mode, returns once every connection is set up ({@code connected N}).
         */
        public void open(int len) throws IOException {
            try {
                if (live.isEmpty() || payload != len) start(len);
            } catch (IOException | RuntimeException e) {
                stop();
                throw e;
            }
        }

        @Override
        public Measurement measure(Cell cell, long n, int round) throws IOException {
            try {
                if (live.isEmpty() || payload != cell.payload()) start(cell.payload());
                return run(cell, n, round);
            } catch (IOException | RuntimeException e) {
                stop();
                throw e;
            }
        }

        /**
         * For a server started anew on the socket, read from server from now on: every running process
         * closes its connection and makes a new one (its GR_HELLO, nothing timed).
         */
        public void reconnect(ServerSample.Source server) throws IOException {
            this.server = server;
            try {
                for (Live l : live) l.send("reconnect");
                for (Live l : live) l.expect("connected");
            } catch (IOException | RuntimeException e) {
                stop();
                throw e;
            }
        }

        private void start(int len) throws IOException {
            stop();
            payload = len;
            for (int i = 0; i < count; i++) {
                Process p = new ProcessBuilder(command(socket, len)).redirectError(ProcessBuilder.Redirect.INHERIT)
                        .start();
                live.add(new Live(p, new BufferedReader(new InputStreamReader(p.getInputStream())), p.getOutputStream(),
                        KernelCounters.openOnce((int) p.pid(), PeerThread.ALL_KINDS)));
            }
            // The many-connections mode sets its connections up at start and says so before any command.
            if (connections > 0) for (Live l : live) l.expect("connected " + connections);
        }

        private Measurement run(Cell cell, long n, int round) throws IOException {
            int k = live.size();
            for (int i = 0; i < k; i++) live.get(i).send(Long.toString(ClientThreadsProbe.share(n, k, i)));
            for (Live l : live) l.expect("ready"); // each now waits in poll(2), not counted, for its go line
            ServerSample s0 = server.sample();
            List<SyscallCounts> k0 = new ArrayList<>(k);
            for (Live l : live) k0.add(l.kernel == null ? null : l.kernel.read());
            for (Live l : live) l.send("");
            List<String> jsons = new ArrayList<>(k);
            for (Live l : live) {
                // Text summary lines, then the JSON line, its last; the process then waits for its next command.
                String json = null;
                for (String line; json == null && (line = l.line()) != null; ) if (line.startsWith("{")) json = line;
                jsons.add(json);
            }
            SyscallCounts kernel = SyscallCounts.ZERO;
            for (int i = 0; i < k; i++) {
                KernelSyscallCounter c = live.get(i).kernel;
                kernel = kernel == null || c == null || k0.get(i) == null ? null
                        : kernel.plus(c.read().minus(k0.get(i)));
            }
            // The server's side of the run: every client is still connected, so no EOF in it.
            ServerSample s1 = server.sample();
            ServerSample sd = s0 == null || s1 == null ? null : s1.minus(s0);
            return measurement(cell, n, round, jsons, kernel, sd);
        }

        /** Ends every process (stdin closed; killed if it does not end within seconds) and closes its counter. */
        private void stop() {
            for (Live l : live) l.close();
            live.clear();
            payload = -1;
        }

        @Override
        public void close() { stop(); }
    }

    /** One running process of a {@link Runner}: its pipes and its kernel counter (null when unavailable). */
    private record Live(Process process, BufferedReader out, OutputStream in, KernelSyscallCounter kernel) {
        void send(String line) throws IOException {
            try {
                in.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
                in.flush();
            } catch (IOException e) {
                throw new IOException("the C client (pid " + process.pid() + ") took no command: "
                        + ChildLines.exitOf(process), e);
            }
        }

        /**
         * The next line, waiting at most {@value #ANSWER_SECONDS} s; IOException when the process ended or took longer.
         */
        String line() throws IOException {
            String line = ChildLines.next(out, process, ANSWER_SECONDS, "the C client (pid " + process.pid() + ")");
            if (line == null) throw new IOException("the C client (pid " + process.pid() + ") ended: "
                    + ChildLines.exitOf(process));
            return line;
        }

        void expect(String want) throws IOException {
            String got = line();
            if (!got.equals(want)) throw new IOException("the C client (pid " + process.pid() + ") said '" + got
                    + "', not '" + want + "'");
        }

        void close() { ChildLines.end(process, in, out, kernel, 5); }
    }

    /** The figures of a run from its processes' JSON lines, kernel counts and server sample. */
    private Measurement measurement(Cell cell, long n, int round, List<String> jsons, SyscallCounts kernel,
            ServerSample sd) throws IOException {
        int k = jsons.size();
        long cpuNanos = 0, user = 0, sys = 0, nvcsw = 0, nivcsw = 0, empty = 0, first = Long.MAX_VALUE, last =
                Long.MIN_VALUE;
        long[] lat = new long[5];
        String[] latKeys = {"p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns"};
        SortedSet<Integer> cpus = new TreeSet<>();
        double seconds = 0;
        for (String json : jsons) {
            cpuNanos += (long) num(json, "cpu_ns");
            user += (long) num(json, "cpu_user_us");
            sys += (long) num(json, "cpu_sys_us");
            nvcsw += (long) num(json, "nvcsw");
            nivcsw += (long) num(json, "nivcsw");
            empty += (long) num(json, "recv_empty");
            for (int j = 0; j < lat.length; j++) lat[j] = Math.max(lat[j], (long) num(json, latKeys[j]));
            cpus.addAll(cpuSet(str(json, "cpus")));
            seconds = num(json, "seconds");
            first = Math.min(first, (long) num(json, "start_ns"));
            last = Math.max(last, (long) num(json, "end_ns"));
        }
        if (k > 1) seconds = (last - first) / 1e9;
        // The total from each process's thread CPU clock, exact; getrusage's user and system only split it.
        ThreadCpu cpu = new ThreadCpu(cpuNanos, user, sys, nvcsw, nivcsw);
        // Requests in flight at once: a process each, or the active connections of the many-connections mode.
        int clients = connections > 0 ? active * k : k;
        return new Measurement(cell.name(), cell.payload(), round, clients, n, seconds,
                lat[0], lat[1], lat[2], lat[3], lat[4],
                null, kernel,
                sd == null ? null : sd.library(), sd == null ? null : sd.kernel(),
                cpu, sd == null ? null : sd.cpu(),
                ClientThreadsProbe.cpus(cpus, sd == null ? null : sd.cpus()),
                SyscallCounts.builder().recvfrom(empty).build(), sd == null ? null : sd.empty(),
                null, sd == null ? null : sd.uring());
    }

    /** A JSON string value (no escapes: the C client writes none). */
    static String str(String json, String key) throws IOException {
        Matcher m = Pattern.compile("\"" + key + "\":\"([^\"]*)\"").matcher(json);
        if (!m.find()) throw new IOException("no " + key + " in " + json);
        return m.group(1);
    }

    /** The C client's "cpus" ("0,1"; "?" when none was seen) as a set. */
    static SortedSet<Integer> cpuSet(String cpus) {
        SortedSet<Integer> set = new TreeSet<>();
        if (!cpus.equals("?")) for (String c : cpus.split(",")) set.add(Integer.parseInt(c));
        return set;
    }

    static double num(String json, String key) throws IOException {
        Matcher m = Pattern.compile("\"" + key + "\":([-0-9.eE+]+)").matcher(json);
        if (!m.find()) throw new IOException("no " + key + " in " + json);
        return Double.parseDouble(m.group(1));
    }
}
