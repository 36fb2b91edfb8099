package org.sysframe.bench.cli;

import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.KernelCounters;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.RoundRunner;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.peer.ClientThreadsProbe;
import org.sysframe.bench.peer.PeerThread;
import org.sysframe.bench.peer.PingPeer;
import org.sysframe.bench.peer.PipelinedPeer;
import org.sysframe.bench.peer.SysframePeer;
import org.sysframe.transport.Backend;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.PipelineOptions;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.RecvFraming;
import org.sysframe.transport.WaitMode;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.Self;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;

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
            + " kernel column): each counted syscall fires a tracepoint handler, 2-5 %% of the calls/s of a client"
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
            return new PingThreads(this).run(o);
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
            ServerSample.Source server = MeasuredServer.of(peer::serverPid).source();
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
                PingReport.printJson(m, r, null);
            } else {
                PingReport.print(r, null);
                System.out.println(PingReport.coldStart(connectNanos[0], client.firstCallNanos(), firstInJvm));
            }
        }
        return 0;
    }

    /**
     * What --max-in-flight and --connections change, e.g. {@code , at most 1 in flight per connection, 4 connections};
     * "" for the defaults.
     */
    String limits() {
        return (maxInFlight != ClientOptions.MAX_IN_FLIGHT ? ", at most " + maxInFlight + " in flight per connection"
                : "")
                + (connections != 1 ? ", " + connections + " connections" : "");
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
}
