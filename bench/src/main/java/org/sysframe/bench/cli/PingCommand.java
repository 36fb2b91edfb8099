package org.sysframe.bench.cli;

import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.KernelCounters;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.RoundRunner;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.measure.ThreadCpu;
import org.sysframe.bench.peer.CallersProbe;
import org.sysframe.bench.peer.ClientThreadsProbe;
import org.sysframe.bench.peer.OneClientPeer;
import org.sysframe.bench.peer.PeerThread;
import org.sysframe.bench.peer.PingPeer;
import org.sysframe.bench.peer.PipelinedPeer;
import org.sysframe.bench.peer.SysframePeer;
import org.sysframe.bench.report.Json;
import org.sysframe.transport.Backend;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.PipelineOptions;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.RecvFraming;
import org.sysframe.transport.WaitMode;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.Self;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.uring.UringOp;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/** {@code sysframe ping}: Grout's ping_perf workload, with syscalls per call from the library and the kernel. */
@Command(name = "ping", mixinStandardHelpOptions = true,
        description = "Grout's ping_perf workload: COUNT GR_PING calls of LEN bytes, timed and counted.")
final class PingCommand implements Callable<Integer> {
    @Option(names = {"-s", "--socket"}, description = "socket path (default: $GROUT_SOCK_PATH, else /run/grout.sock)")
    String socket = GroutApi.defaultSocketPath();

    @Option(names = "-n", description = "number of calls (default: ${DEFAULT-VALUE})")
    long count = 10000;

    @Option(names = "-l", description = "payload length in bytes, 0..131072 (default: ${DEFAULT-VALUE})")
    int len;

    @Option(names = "--ping2", description = "send GR_PING2 (the seed patch's 32-byte echo) instead of GR_PING")
    boolean ping2;

    @Mixin
    SendOption sendOption;

    @Option(names = "--recv", description = "exact | readahead[:SIZE] (default: ${DEFAULT-VALUE})")
    String recv = "readahead:8192";

    @Option(names = "--api-version", description = "API version sent in GR_HELLO (default: ${DEFAULT-VALUE})")
    int apiVersion = GroutApi.DEFAULT_API_VERSION;

    @Option(names = "--wait", description =
            "how the client waits for its answer: block | spin | spin:DURATION (e.g. spin:50us) | yield (default: "
            + "${DEFAULT-VALUE})")
    String waitMode = "block";

    @Option(names = "--cpu", description = "pin the client thread to this CPU (default: not pinned)")
    int cpu = -1;

    @Option(names = "--depth", description =
            "requests kept in flight (pipelining; default: ${DEFAULT-VALUE}, one at a time)")
    int depth = 1;

    @Option(names = "--batch", description = "refill this many at a time, each refill one send (default: the depth)")
    int batch;

    @Option(names = "--backend", description =
            "epoll | io_uring | auto: how the client moves its bytes (default: ${DEFAULT-VALUE})")
    String backend = "epoll";

    @Option(names = "--transport", description =
            "socket | shm: shm asks the server for a shared-memory channel after GR_HELLO"
            + " (a server that does not offer one leaves the client on the socket, said in one line; default: "
                    + "${DEFAULT-VALUE})")
    String transport = "socket";

    @Option(names = "--sqpoll", description =
            "io_uring only: a kernel thread takes the submissions (IORING_SETUP_SQPOLL; burns a core)")
    boolean sqpoll;

    @Option(names = "--timeout", description =
            "ms a receive waits for the server, and a pipelined request for its answer, before the run"
            + " fails (0: forever; default: ${DEFAULT-VALUE})")
    long timeoutMillis = ClientOptions.DEFAULT_RECEIVE_TIMEOUT_MILLIS;

    @Option(names = "--server-uid", description =
            "accept a server running as this uid (repeatable; default: for an abstract @name"
            + " the client's own uid or root, for a socket file any uid)")
    List<Integer> serverUids;

    @Option(names = "--any-server-uid", description = "accept a server of any uid, abstract names included")
    boolean anyServerUid;

    @Option(names = "--warmup", description = "untimed calls before the timed ones, for the JIT and caches"
            + " (default: ${DEFAULT-VALUE}; 0 is ping_perf's cold start)")
    long warmup = 1000;

    @Option(names = "--latency-every-request", description = "with --depth: record the latency of every answer"
            + " (default: one answer in " + PipelinedPeer.SAMPLE_EVERY
                    + ", weighted; the pipeline times answers once per poll)")
    boolean latencyEveryRequest;

    @Option(names = "--threads", description = "N callers at once on ONE GroutClient, each calling one at a time"
            + " (1.." + MAX_THREADS + "; default: one caller on one thread); the figures are summed over the callers")
    Integer threads;

    @Option(names = "--virtual", description =
            "with --threads: the callers are virtual threads (default: platform threads)")
    boolean virtual;

    @Option(names = "--max-in-flight", paramLabel = "N", description =
            "requests each connection keeps on the wire at most, 1.."
            + ClientOptions.MAX_IN_FLIGHT
                    + ": callers beyond it wait in the client, a --depth pipeline is held back by it; 1 for a server"
            + " that answers one request per read, as Grout's api.c (default: ${DEFAULT-VALUE}, no cap)")
    int maxInFlight = ClientOptions.MAX_IN_FLIGHT;

    @Option(names = "--connections", paramLabel = "N", description = "connections of the client, 1.."
            + ClientOptions.MAX_CONNECTIONS
            + ", each call on the least loaded (default: ${DEFAULT-VALUE})")
    int connections = 1;

    @Option(names = "--json", description = "print every figure as one JSON object instead of the table")
    boolean json;

    @Option(names = "--no-kernel-counts", description = "time the run without the kernel's syscall counters (the"
            + " kernel column): each counted syscall fires a tracepoint handler, 2-5 % of the calls/s of a client"
            + " spinning on a socket; the library's counts stay (default: counted where tracefs and privilege allow)")
    boolean noKernelCounts;

    /** What the kernel column says instead of counts with --no-kernel-counts. */
    static final String KERNEL_COUNTS_OFF = "left off (--no-kernel-counts)";

    @Option(names = "--jfr", paramLabel = "FILE", description =
            "record the run with the flight recorder (every org.sysframe.* event at"
            + " threshold 0, the periodic ones every second) and write it to FILE at the end, also when the run fails")
    Path jfr;

    /** The most callers --threads takes. */
    static final int MAX_THREADS = 10_000;

    /** The SIGINT line's shutdown hook of the last run (removed when the run ends, however it ends). */
    Thread interruptedHook;

    /** Whether a ping of this JVM connected already: only the first one's connect is a cold start. */
    private static final AtomicBoolean CONNECTED = new AtomicBoolean();

    @Override
    public Integer call() throws Exception {
        if (len < 0 || len > GroutApi.MAX_MSG_LEN) throw new IllegalArgumentException("-l " + len
                + " is outside 0..131072");
        if (count < 1) throw new IllegalArgumentException("-n must be at least 1");
        ClientOptions o = ClientOptions.defaults().socketPath(socket).send(sendOption.framing())
                .recv(OptionValues.parse("--recv", recv, RecvFraming::parse)).apiVersion(apiVersion)
                        .waitMode(OptionValues.parse("--wait", waitMode, WaitMode::parse)).cpu(cpu)
                .backend(OptionValues.parse("--backend", backend, Backend::parse)).sqpoll(sqpoll);
        o.sharedMemory(OptionValues.sharedMemory(transport));
        if (timeoutMillis < 0) throw new IllegalArgumentException("--timeout " + timeoutMillis
                + ": expected a number of ms >= 0 (0: forever)");
        if (anyServerUid && serverUids != null) throw new IllegalArgumentException("--any-server-uid and --server-uid "
                + serverUids + ": choose one");
        o.receiveTimeoutMillis(timeoutMillis).anyServerUid(anyServerUid);
        OptionValues.parse("--max-in-flight", String.valueOf(maxInFlight), v -> o.maxInFlight(maxInFlight));
        OptionValues.parse("--connections", String.valueOf(connections), v -> o.connections(connections));
        if (serverUids != null) o.serverUids(Set.copyOf(serverUids));
        if (sqpoll && o.freeze().backend() == Backend.EPOLL) {
            throw new IllegalArgumentException("--sqpoll needs --backend io_uring (or auto)");
        }
        if (depth < 1 || depth > PipelineOptions.MAX_WINDOW) {
            throw new IllegalArgumentException("--depth " + depth + ": expected 1.." + PipelineOptions.MAX_WINDOW);
        }
        if (batch == 0) batch = depth;
        if (batch < 1 || batch > depth) throw new IllegalArgumentException("--batch " + batch + ": expected 1.."
                + depth + " (the depth)");
        if (depth > 1
                && ping2) throw new IllegalArgumentException("--ping2 goes one call at a time: leave out --depth");
        if (virtual
                && threads
                        == null) throw new IllegalArgumentException("--virtual needs --threads N (the callers it makes "
                                + "virtual)");
        try (KernelCounters.Off off = noKernelCounts ? KernelCounters.off(KERNEL_COUNTS_OFF) : null) {
            return measure(o);
        }
    }

    /** The run, its options checked. */
    private Integer measure(ClientOptions o) throws Exception {
        if (threads != null) {
            if (threads < 1 || threads > MAX_THREADS) throw new IllegalArgumentException("--threads " + threads
                    + ": expected 1.." + MAX_THREADS);
            if (depth
                    > 1) throw new IllegalArgumentException("--threads calls one at a time on each thread: leave out "
                            + "--depth");
            if (ping2) throw new IllegalArgumentException("--threads sends GR_PING: leave out --ping2");
            if (cpu >= 0) throw new IllegalArgumentException("--threads runs its callers unpinned: leave out --cpu");
            if (count < threads) throw new IllegalArgumentException("-n " + count
                    + ": at least one call per thread (--threads " + threads + ")");
            return runOneClient(o);
        }
        String label = o.freeze().send() + "/" + o.freeze().recv()
                + (depth > 1 ? " depth " + depth + " batch " + batch : "");
        PingPeer peer = depth > 1 ? new PipelinedPeer(label, o, depth, batch).everyRequest(latencyEveryRequest)
                : new SysframePeer(label, o, ping2);
        String sampling = peer instanceof PipelinedPeer pp ? pp.latencySampling() : "every call";
        PingRecording recording = jfr == null ? null : PingRecording.start(jfr);
        try {
            return run(o, peer, sampling);
        } finally {
            if (recording != null) {
                // Written however the run ended; with --json the line goes to stderr, leaving stdout one JSON object.
                String line = recording.finish();
                (json ? System.err : System.out).println(line);
            }
        }
    }

    private Integer run(ClientOptions o, PingPeer peer, String sampling) throws Exception {
        // From before the peer's thread starts: its first syscall (gettid) links what the connect would.
        long start = System.nanoTime();
        try (PeerThread client = new PeerThread(peer)) {
            boolean firstInJvm = !CONNECTED.getAndSet(true);
            long[] connectNanos = new long[1];
            try {
                client.onThread(() -> {
                    peer.open(socket);
                    connectNanos[0] = System.nanoTime() - start;
                });
            } catch (ErrnoException e) {
                throw withRemedy(e);
            }
            if (depth == 1) client.timeFirstCall();
            if (transport.equals("shm") && !peer.transport().equals("shm")) {
                System.err.println("the server did not give a shared-memory channel (it does not offer one, or "
                        + "--backend io_uring): on the socket");
            }
            if (!json) {
                // One line says what runs, how latency is recorded included.
                System.out.printf("performing %d %s calls after %d untimed warm-up calls (%d bytes; send %s, recv %s, "
                        + "wait %s, backend %s%s%s%s%s);"
                                + " latency recorded for %s%n", count,
                        ping2 ? "ping2" : "ping", warmup, ping2 ? GroutApi.PING2_SIZE : len, o.freeze().send(),
                                o.freeze().recv(),
                        o.freeze().waitMode(), peer.backend() + (sqpoll ? " (sqpoll)" : ""),
                                peer.transport().equals("shm") ? ", shared memory" : "", cpu >= 0
                                ? ", client pinned to CPU " + cpu : "",
                        depth > 1 ? ", " + depth + " in flight, refilled " + batch + " at a time" : "", limits(),
                                sampling);
            }
            // A server elsewhere on this machine is measured by its process (every thread).
            ServerProcess sp = serverProcess(peer);
            ServerSample.Source server = sp.pid > 0 ? ServerSample.Source.ofProcess(sp.pid)
                    : ServerSample.Source.unknown(sp.unknown);
            Cell cell = new Cell(peer.name(), ping2 ? GroutApi.PING2_SIZE : len, peer.framing(), count, warmup,
                    new ClientThreadsProbe(List.of(client), server));
            // SIGINT prints how far the run got; a failure says it in its own line (the hook goes first).
            Thread partial = new Thread(() -> System.out.println("interrupted: " + progress(client)),
                    "ping-interrupted");
            Runtime.getRuntime().addShutdownHook(partial);
            interruptedHook = partial;
            Measurement r;
            try {
                r = RoundRunner.run("ping", List.of(cell), 1).get(0);
            } catch (IOException | RuntimeException e) {
                throw new IOException(progress(client) + ": " + e.getMessage(), e);
            } finally {
                removeHook(partial);
                KernelCounters.closeAll();
            }
            if (json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("label", r.cell()); // the key ping --json has always had
                m.put("latency_recorded_for", sampling);
                m.put("transport", peer.transport());
                m.put("max_in_flight", maxInFlight);
                m.put("connections", connections);
                m.putAll(r.toMap());
                printJson(m, r);
            } else {
                print(r);
                System.out.println(coldStart(connectNanos[0], client.firstCallNanos(), firstInJvm));
            }
        }
        return 0;
    }

    /**
     * e.g. {@code first connect: 182.4 ms, first call: 0.9 ms (in a fresh JVM)}: the connect (GR_HELLO
     * included, from the start of the peer's thread) and the first ping (the warm-up's first, else the
     * run's), as a short-lived client pays them; {@code this JVM connected before} when another ping of
     * this JVM did; the first call is left out with --depth (not timed alone).
     */
    static String coldStart(long connectNanos, long firstCallNanos, boolean firstInJvm) {
        return String.format(Locale.ROOT, "first connect: %.1f ms%s (%s)", connectNanos / 1e6,
                firstCallNanos < 0 ? "" : String.format(Locale.ROOT, ", first call: %.1f ms", firstCallNanos / 1e6),
                firstInJvm ? "in a fresh JVM" : "this JVM connected before");
    }

    /**
     * --threads N [--virtual]: N callers on one GroutClient (the options' backend and transport), measured together.
     */
    private Integer runOneClient(ClientOptions o) throws Exception {
        GroutClient client;
        try {
            client = GroutClient.connect(o);
        } catch (ErrnoException e) {
            throw withRemedy(e);
        }
        if (transport.equals("shm") && !client.sharedMemory()) {
            System.err.println("the server did not give a shared-memory channel (it does not offer one, or --backend "
                    + "io_uring): on the socket");
        }
        String what = threads + (virtual ? " virtual" : " platform") + (threads == 1 ? " thread" : " threads");
        String name = "one client " + what;
        String backendName = client.backend() + (sqpoll ? " (sqpoll)" : "");
        PingRecording recording = jfr == null ? null : PingRecording.start(jfr);
        LongAdder timedOut = new LongAdder();
        try (client; CallersProbe probe = new CallersProbe(threads, virtual, i ->
                new OneClientPeer(name, client, timedOut),
                OneClientPeer.counts(client), serverSource(client), Set::of)) {
            probe.kernelKinds(OneClientPeer.kernelKinds(client));
            if (!json) {
                System.out.printf("performing %d ping calls after %d untimed warm-up calls (%d bytes; %s, each calling "
                        + "one at a time on one"
                                + " client; send %s, recv %s, wait %s, backend %s%s%s); latency recorded for every "
                                        + "call%n", count, warmup, len, what,
                        o.freeze().send(), o.freeze().recv(), o.freeze().waitMode(), backendName, client.sharedMemory()
                                ? ", shared memory" : "",
                        limits());
            }
            Cell cell = new Cell(name, len, "one client, " + o.freeze().send() + " / " + o.freeze().recv()
                    + ", backend " + backendName
                    + (client.sharedMemory() ? ", shared memory" : "") + limits(), count, warmup, probe);
            var s0 = client.stats();
            long sends0 = sends(client);
            Measurement r;
            try {
                r = RoundRunner.run("ping", List.of(cell), 1).get(0);
            } catch (IOException | RuntimeException e) {
                // A caller stops at its first failure; the others may still be waiting for theirs.
                long n = timedOut.sum();
                throw new IOException("one client, " + what + ": "
                        + (n == 0 ? "" : n + (n == 1 ? " call" : " calls") + " timed out; ")
                        + e.getMessage(), e);
            } finally {
                KernelCounters.closeAll();
            }
            var s1 = client.stats();
            long calls = s1.calls() - s0.calls(), batches = s1.batches() - s0.batches(), sends = sends0 < 0 ? -1
                    : sends(client) - sends0;
            if (json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("label", r.cell());
                m.put("latency_recorded_for", "every call");
                m.put("transport", client.sharedMemory() ? "shm" : "socket");
                m.put("threads", threads);
                m.put("virtual", virtual);
                m.put("max_in_flight", maxInFlight);
                m.put("connections", connections);
                m.put("timed_out", timedOut.sum());
                m.putAll(r.toMap());
                if (sends > 0) m.put("calls_per_send", (double) calls / sends);
                m.put("queued_batches", batches);
                m.put("largest_batch", s1.largestBatch());
                printJson(m, r);
            } else {
                print(r);
                String perSend = sends > 0 ? String.format(Locale.ROOT, "%.2f calls per send, ", (double) calls / sends)
                        : sends < 0
                                ? "calls per send not known (io_uring: the client counts the SQEs of its first "
                                        + "connection only), "
                        : "no send syscall (the shared-memory channel), ";
                System.out.printf(Locale.ROOT,
                        "batching (warm-up included): %s%,d batches of requests queued while another caller did the "
                        + "I/O,"
                        + " largest %d%n", perSend, batches, s1.largestBatch());
                System.out.printf(Locale.ROOT, "timed out (warm-up included): %d calls%n", timedOut.sum());
            }
            return 0;
        } finally {
            if (recording != null) {
                String line = recording.finish();
                (json ? System.err : System.out).println(line);
            }
        }
    }

    /**
     * The sends client made so far: its send syscalls (epoll), or its send SQEs (io_uring); 0 over
     * the shared-memory channel, whose requests go through the ring; -1 on io_uring with several
     * connections (the client gives the first one's SQEs only).
     */
    private static long sends(GroutClient client) {
        if (client.sharedMemory()) return 0;
        if (client.backend() == Backend.IO_URING) {
            if (client.config().connections() > 1) return -1;
            var u = client.uringCounts();
            return u.sqes(UringOp.SEND) + u.sqes(UringOp.SENDMSG);
        }
        SyscallCounts c = client.counters().snapshot();
        return c.get(SyscallKind.SENDTO) + c.get(SyscallKind.SENDMSG) + c.get(SyscallKind.WRITEV)
                + c.get(SyscallKind.WRITE);
    }

    /**
     * What --max-in-flight and --connections change, e.g. {@code , at most 1 in flight per connection, 4 connections};
     * "" for the defaults.
     */
    private String limits() {
        return (maxInFlight != ClientOptions.MAX_IN_FLIGHT ? ", at most " + maxInFlight + " in flight per connection"
                : "")
                + (connections != 1 ? ", " + connections + " connections" : "");
    }

    /** The client's server, measured by its process when it is another one on this machine. */
    private static ServerSample.Source serverSource(GroutClient client) {
        long pid;
        try {
            pid = client.serverCredentials().pid();
        } catch (ErrnoException e) {
            return ServerSample.Source.unknown("SO_PEERCRED failed: " + e.getMessage());
        }
        if (pid <= 0) return ServerSample.Source.unknown("SO_PEERCRED gave no pid: the server runs in another PID "
                + "namespace (a container?)");
        if (pid == ProcessHandle.current().pid()) {
            return ServerSample.Source.unknown("the server runs in this process (pid " + pid
                    + "), where its threads are not told apart from the client's");
        }
        if (!Files.isReadable(Path.of("/proc/" + pid + "/task"))) {
            return ServerSample.Source.unknown("the server is pid " + pid + ", whose /proc/" + pid + "/task uid "
                    + Self.uid() + " cannot read");
        }
        return ServerSample.Source.ofProcess(pid);
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down already (SIGINT): the hook runs and says how far the run got
        }
    }

    /**
     * e.g. {@code about 4,096 of 10,000 calls completed in 0.412 s (9,942 calls/s)}, from the run under
     * way ({@code in the warm-up: about 12 of 1,000 warm-up calls ...} when it was the warm-up).
     */
    private String progress(PeerThread client) {
        PeerThread.Run run = client.current();
        if (run == null || run.startNanos == 0) return "no timed call completed (" + count + " asked)";
        boolean warmingUp = warmup > 0 && run.number == 1;
        long done = run.completedAbout();
        double s = ((run.endNanos != 0 ? run.endNanos : System.nanoTime()) - run.startNanos) / 1e9;
        return String.format(Locale.ROOT, "%sabout %,d of %,d %scalls completed in %.3f s (%,.0f calls/s)", warmingUp
                ? "in the warm-up: " : "",
                done, warmingUp ? warmup : count, warmingUp ? "warm-up " : "", s, done / s);
    }

    /**
     * A connect refused for the socket file's mode: the line says what to do (as docs/troubleshooting.md),
     * e.g. {@code connect(P): EACCES (13) Permission denied: the socket file's mode does not let uid 65534
     * connect: run ping as the server's uid, or start the server with --mode 0660 and a group that uid 65534 is in}.
     */
    static IOException withRemedy(ErrnoException e) {
        if (e.errno() != Errno.EACCES || !e.call().startsWith("connect(")) return e;
        int uid = Self.uid();
        return new IOException(e.getMessage()
                + ": run ping as the server's uid, or start the server with --mode 0660 and a group that uid "
                + uid + " is in", e);
    }

    /** The server's process when this ping can measure it (pid > 0), else why not ({@code unknown}). */
    record ServerProcess(long pid, String unknown) {}

    /** The server in another process on this machine whose /proc we can read; else why its CPU stays unknown. */
    static ServerProcess serverProcess(PingPeer peer) {
        long pid;
        try {
            pid = peer.serverPid();
        } catch (ErrnoException e) {
            return new ServerProcess(-1, "SO_PEERCRED failed: " + e.getMessage());
        }
        if (pid < 0) return new ServerProcess(-1, "this client does not learn its server's pid");
        if (pid == 0) return new ServerProcess(-1,
                "SO_PEERCRED gave no pid: the server runs in another PID namespace (a container?)");
        if (pid == ProcessHandle.current().pid()) {
            return new ServerProcess(-1, "the server runs in this process (pid " + pid
                    + "), where its threads are not told apart from the client's");
        }
        Path task = Path.of("/proc/" + pid + "/task");
        if (!Files.isReadable(task)) {
            return new ServerProcess(-1, "the server is pid " + pid + ", whose " + task + " uid " + Self.uid()
                    + " cannot read");
        }
        return new ServerProcess(pid, null);
    }

    /** The --json line: m, and why the kernel's counts are missing when they are. */
    private static void printJson(Map<String, Object> m, Measurement r) {
        if (r.clientKernel() == null) m.put("kernel_counts_unavailable", KernelCounters.unavailable());
        System.out.println(Json.write(m));
    }

    static void print(Measurement r) {
        System.out.printf(Locale.ROOT, "total time: %.3f s (%.1f calls/s)%n", r.seconds(), r.callsPerSecond());
        System.out.printf(Locale.ROOT, "latency us: p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f%n",
                r.p50Nanos() / 1e3, r.p90Nanos() / 1e3, r.p99Nanos() / 1e3, r.p999Nanos() / 1e3, r.maxNanos() / 1e3);
        ThreadCpu c = r.clientCpu();
        System.out.printf(Locale.ROOT,
                "client cpu: %.2f us/call on-CPU (user %.2f, sys %.2f from 10 ms ticks), busy %.0f %% of the run,"
                        + " %.3f voluntary + %.3f involuntary ctx switches/call%n",
                c.cpuNanos() / 1e3 / r.calls(), (double) c.userMicros() / r.calls(),
                        (double) c.systemMicros() / r.calls(),
                100.0 * c.cpuNanos() / (r.seconds() * 1e9), (double) c.voluntarySwitches() / r.calls(),
                        (double) c.involuntarySwitches() / r.calls());
        ThreadCpu sc = r.serverCpu();
        if (sc != null) {
            System.out.printf(Locale.ROOT,
                    "server cpu: %.2f us/call on-CPU, whole server process (user %.2f, sys %.2f from 10 ms ticks)%n",
                    sc.cpuNanos() / 1e3 / r.calls(), (double) sc.userMicros() / r.calls(),
                            (double) sc.systemMicros() / r.calls());
        }
        if (r.cpus() != null) System.out.println("ran on: " + r.cpus());
        System.out.println("client syscalls per call:   library    kernel   of them empty (EAGAIN)");
        for (SyscallKind k : SyscallKind.values()) {
            double lib = r.clientLibrary().perCall(k, r.calls());
            SyscallCounts kc = r.clientKernel();
            double ker = kc == null ? Double.NaN : kc.perCall(k, r.calls());
            if (lib == 0 && (kc == null || ker == 0)) continue;
            double empty = r.clientEmpty() == null ? 0 : r.clientEmpty().perCall(k, r.calls());
            System.out.printf(Locale.ROOT, "  %-24s %9.3f %9s %9s%n", k.kernelName(), lib,
                    kc == null ? "n/a" : String.format(Locale.ROOT, "%.3f", ker), empty == 0 ? ""
                    : String.format(Locale.ROOT, "%.3f", empty));
        }
        if (r.clientUring() != null) {
            System.out.printf(Locale.ROOT, "client io_uring per call:   %s SQEs, %.3f CQEs%n",
                    r.clientUring().describe(r.calls()), (double) r.clientUring().cqes() / r.calls());
        }
        if (r.clientKernel() == null) System.out.println("kernel counts unavailable: " + KernelCounters.unavailable());
    }
}
