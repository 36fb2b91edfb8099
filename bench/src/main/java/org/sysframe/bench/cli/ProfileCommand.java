package org.sysframe.bench.cli;

import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.KernelCounters;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.peer.BenchFixture;
import org.sysframe.bench.peer.CPeer;
import org.sysframe.bench.peer.CShmPingPong;
import org.sysframe.bench.peer.ChannelSide;
import org.sysframe.bench.peer.ClientThreadsProbe;
import org.sysframe.bench.peer.Pairing;
import org.sysframe.bench.peer.PeerThread;
import org.sysframe.bench.peer.PipelinedPeer;
import org.sysframe.bench.peer.SysframePeer;
import org.sysframe.bench.profile.PerfProfile;
import org.sysframe.bench.profile.PerfRecording;
import org.sysframe.bench.profile.Turnaround;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.WaitMode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sysframe profile}: where a call's CPU time goes, sysframe's against the C program's it is compared
 * with in the bench, in ns per call: one call at a time on the socket, both spinning; depth 64 across
 * cores and on one core; the shared-memory channel, both spinning, against the C ping-pong (both sides
 * of the call, client and the loop serving it). The same server for both clients of a socket target;
 * {@code perf record} of the CPUs they run on while they make their timed calls, the samples of their
 * threads (or processes) kept, Java methods named by the JIT's map; for a socket target, each client's
 * {@link Turnaround} from a run of its own with its sends and receives traced. The kernel's syscall counters are
 * left off (each counted syscall fires a tracepoint handler, which the profile would show).
 */
@Command(name = "profile", mixinStandardHelpOptions = true, description = "Where a call's CPU time goes, sysframe's "
        + "against the C program's it is compared with (ns per call, perf on the CPUs the calls run on, Java methods by"
        + " the JIT's map). Needs perf, and root or kernel.perf_event_paranoid 0.")
public final class ProfileCommand implements Callable<Integer> {
    static final int CLIENT_CPU = 1, SERVER_CPU = 0;

    /**
     * The thread's clock less the samples: a guest's sampling misses the time spent out of the guest (a thread that
     * sleeps and wakes, or a syscall of a paravirtualized guest), and charges a sample due while the CPU was idle
     * to the thread running when it fires (docs/results.md).
     */
    static final String UNSAMPLED = "not in the samples (clock - samples)";

    /**
     * From the last receive that brought bytes to the next send's entry ({@link Turnaround}): the client's own time
     * while the server waits for it, measured in a run of its own with its sends and receives traced.
     */
    static final String TURNAROUND = "turnaround, answer in to next send: median, ns";
    static final String TURNAROUND_PER_CALL = "  all turnarounds, per call, ns";
    static final String TRACED_CALLS = "traced run: calls";
    static final String TURNAROUNDS = "turnarounds (sends after a receive)";

    /** A comparison of the bench, profiled: its name, what runs, where. */
    enum Target {
        SPIN("spin", "one call at a time on the socket, client and server loop spinning", CLIENT_CPU, 1, "spin",
                "spin", false),
        DEPTH64("depth64", "64 calls in flight on the socket, client and server loop blocking, across cores",
                CLIENT_CPU, 64, "block", "block", false),
        DEPTH64_CORE("depth64-core", "64 calls in flight on the socket, client and server loop blocking, on one core",
                SERVER_CPU, 64, "block", "block", false),
        SHM("shm", "one call at a time over a shared-memory channel, client and the loop serving it spinning; both"
                + " sides of the call", CLIENT_CPU, 1, "spin", "spin", true);

        final String name;
        final String description;
        final int clientCpu;
        final int depth;
        final String serverWait;
        final String clientWait;
        final boolean shm;

        Target(String name, String description, int clientCpu, int depth, String serverWait, String clientWait,
                boolean shm) {
            this.name = name;
            this.description = description;
            this.clientCpu = clientCpu;
            this.depth = depth;
            this.serverWait = serverWait;
            this.clientWait = clientWait;
            this.shm = shm;
        }

        /** The CPUs perf records: the client's, and the server's too where both sides are profiled. */
        String cpus() { return shm ? SERVER_CPU + "," + clientCpu : Integer.toString(clientCpu); }

        static Target parse(String s) {
            for (Target t : values()) if (t.name.equals(s)) return t;
            throw new IllegalArgumentException("--target " + s + ": expected spin, depth64, depth64-core or shm");
        }
    }

    @Option(names = "--target", split = ",", description = "spin, depth64, depth64-core, shm: one or more (default: "
            + "${DEFAULT-VALUE})")
    List<String> targets = List.of("spin", "depth64", "depth64-core", "shm");

    @Option(names = "--seconds", description = "what each client's profiled run lasts, about (default: "
            + "${DEFAULT-VALUE})")
    double seconds = 2;

    @Option(names = "--warmup", description = "seconds of calls before the profiled ones, at least, for the JIT and"
            + " caches: runs of half a second, the first of a few thousand calls (default: ${DEFAULT-VALUE})")
    double warmup = 1.5;

    @Option(names = "-l", description = "payload length (default: ${DEFAULT-VALUE})")
    int len = 32;

    @Option(names = "--methods", description = "sysframe's methods listed, the costliest first (default: "
            + "${DEFAULT-VALUE})")
    int methods = 12;

    @Option(names = "--keep", paramLabel = "DIR", description = "keep perf's recordings in DIR (TARGET-sysframe.data,"
            + " TARGET-c.data: perf report -i FILE --tid/--pid as the command printed; default: removed)")
    Path keep;

    @Override
    public Integer call() throws Exception {
        List<Target> chosen = new ArrayList<>();
        for (String s : targets) chosen.add(Target.parse(s));
        if (!(seconds > 0 && seconds <= 600)) throw new IllegalArgumentException("--seconds " + seconds
                + ": expected more than 0, at most 600");
        if (!(warmup >= 0 && warmup <= 600)) throw new IllegalArgumentException("--warmup " + warmup
                + ": expected 0 to 600");
        if (len < 0 || len > 65536) throw new IllegalArgumentException("-l " + len + " is outside 0..65536");
        if (methods < 0) throw new IllegalArgumentException("--methods " + methods + ": expected 0 or more");
        String why = PerfRecording.unavailable();
        if (why != null) throw new IOException("profile needs perf: " + why);
        if (!CPeer.available()) throw new IOException(CPeer.binaryPath() + " is missing: build it with make (gcc)");
        if (chosen.stream().anyMatch(t -> t.shm) && !CShmPingPong.available()) {
            throw new IOException(CShmPingPong.program() + " is missing: build it with make (gcc)");
        }
        System.out.println("machine: " + MachineInfo.describe());
        System.out.println("each side one run after the other, not in interleaved rounds: the split of a call's CPU"
                + " is the point, the bench's rounds judge its calls/s");
        Path dir = keep != null ? Files.createDirectories(keep) : Files.createTempDirectory("sysframe-profile");
        try (KernelCounters.Off off = KernelCounters.off("left off by profile")) {
            for (Target t : chosen) profile(t, dir);
        } finally {
            if (keep == null) {
                BenchFixture.removeTree(dir);
                Files.deleteIfExists(Path.of("/tmp/perf-" + ProcessHandle.current().pid() + ".map"));
            }
        }
        return 0;
    }

    /** One client's profiled run: its figures, where its CPU went, and how to read its recording again. */
    record Side(Measurement run, String settings, PerfProfile profile, double clockNanos, String report,
            Turnaround turnaround, long tracedCalls) {
        double nanosPerCall(long ns) { return (double) ns / run.calls(); }
    }

    private void profile(Target t, Path dir) throws IOException {
        Pairing p = Pairing.named("sysframe");
        Side mine;
        Side theirs = null;
        String framing;
        try (BenchFixture f = new BenchFixture("profile")) {
            String socket = f.socket(t.name);
            WaitMode serverWait = WaitMode.parse(t.serverWait);
            // A channel's loop blocks by itself and waits as its channel while it serves it (as in the bench).
            GroutServer server = f.server(t.shm ? p.server(socket).sharedMemory(true).sharedMemoryWaitMode(serverWait)
                    .waitMode(WaitMode.BLOCK).cpus(SERVER_CPU)
                    : p.server(socket).waitMode(serverWait).cpus(SERVER_CPU));
            ClientOptions o = p.client(socket).sharedMemory(t.shm).waitMode(WaitMode.parse(t.clientWait))
                    .cpu(t.clientCpu);
            PeerThread client = f.peer(t.depth == 1 ? new SysframePeer("sysframe", o)
                    : new PipelinedPeer("sysframe", o, t.depth, t.depth), socket);
            framing = client.peer().framing() + (t.shm ? ", over a shared-memory channel" : "");
            if (t.shm && !client.peer().transport().equals("shm")) {
                throw new IOException("the server gave no shared-memory channel");
            }
            ChannelSide channel = t.shm ? new ChannelSide(server) : null;
            ServerSample.Source side = t.shm ? channel : ServerSample.Source.of(server);
            Cell cell = new Cell("sysframe", len, framing, 0, 0, new ClientThreadsProbe(List.of(client), side));
            ProfileSubject.Id ids = () -> "--tid=" + client.tid() + (channel == null ? ""
                    : channel.threadIds().stream().map(i -> "," + i).collect(Collectors.joining()));
            mine = run(t, new ProfileSubject.Known(cell, ids, null, t.shm), dir.resolve(t.name + "-sysframe.data"));
            if (!t.shm) {
                CPeer c = new CPeer("c-lean", "sendmsg", CPeer.Options.lean(t.clientWait, t.clientCpu, t.depth));
                try (CPeer.Runner r = c.probe(socket, side)) {
                    Cell theirCell = new Cell("c-lean", len, c.describe(), 0, 0, r);
                    theirs = run(t, new ProfileSubject.Known(theirCell, () -> "--pid=" + r.pids().get(0),
                            Path.of(CPeer.binaryPath()).getFileName().toString(), false),
                            dir.resolve(t.name + "-c.data"));
                }
            }
        }
        // The C ping-pong once the channel is closed: its loop, spinning, would take half of the C server's CPU.
        if (t.shm) theirs = run(t, new ProfileSubject.PingPong(new CShmPingPong(t.clientCpu, SERVER_CPU), len),
                dir.resolve(t.name + "-c.data"));
        print(t, framing, mine, theirs);
    }

    /**
     * A warm-up (runs of half a second each at the rate of the run before, the first of a few thousand calls, until
     * --warmup's seconds are spent), then calls for about --seconds while perf records the target's CPUs.
     */
    private Side run(Target t, ProfileSubject s, Path file) throws IOException {
        Cell cell = s.cell();
        long n = 2_000L * t.depth;
        double spent = 0;
        Measurement warm;
        do {
            warm = cell.probe().measure(cell, n, 0);
            spent += warm.seconds();
            n = Math.max(n, (long) (warm.callsPerSecond() / 2));
        } while (spent < warmup);
        long calls = Math.max(1_000, (long) (warm.callsPerSecond() * seconds));
        Measurement timed;
        Path data;
        try (PerfRecording perf = PerfRecording.start(t.cpus(), file)) {
            timed = s.profiled(calls, perf);
            data = perf.stop();
        }
        if (s.program() == null) PerfRecording.writeJitMap();
        String filter = s.filter();
        PerfProfile profile = PerfProfile.read(data, filter, s.program());
        if (profile.total() == 0) throw new IOException("perf recorded no sample of " + cell.name() + " (" + filter
                + ") on CPU " + t.cpus());
        Turnaround turnaround = null;
        long tracedCalls = 0;
        if (!t.shm && Turnaround.supported()) {
            // A run of its own, of half the sampled one's calls: a traced send or receive runs perf's handler, which
            // the samples would show.
            Path traced = file.resolveSibling(file.getFileName() + ".syscalls");
            try (PerfRecording perf = PerfRecording.syscalls(Integer.toString(t.clientCpu), traced)) {
                tracedCalls = s.profiled(Math.max(1_000, calls / 2), perf).calls();
                traced = perf.stop();
            }
            turnaround = Turnaround.read(traced, s.filter());
            if (turnaround.turnarounds() == 0) throw new IOException("no send after a receive of " + cell.name()
                    + " (" + filter + ") in " + traced);
        }
        return new Side(timed, cell.settings(), profile, s.clockNanos(timed), "perf report -i " + data + " " + filter,
                turnaround, tracedCalls);
    }

    private void print(Target t, String framing, Side mine, Side theirs) {
        String peer = t.shm ? "C" : "C lean";
        System.out.printf(Locale.ROOT, "%n%s: %s, %d B; client on CPU %d, server loop on CPU %d%n", t.name,
                t.description, len, t.clientCpu, SERVER_CPU);
        System.out.println("  sysframe: " + framing);
        System.out.println("  " + peer + ": " + theirs.settings());
        String row = "  %-48s %12s %12s %12s%n";
        System.out.printf(Locale.ROOT, row, "", "sysframe", peer, "difference");
        System.out.printf(Locale.ROOT, row, "calls profiled", count(mine.run().calls()), count(theirs.run().calls()),
                "");
        System.out.printf(Locale.ROOT, row, "calls/s", count(Math.round(mine.run().callsPerSecond())),
                count(Math.round(theirs.run().callsPerSecond())), String.format(Locale.ROOT, "%.3fx",
                        mine.run().callsPerSecond() / theirs.run().callsPerSecond()));
        long mineClock = Math.round(mine.clockNanos()), theirClock = Math.round(theirs.clockNanos());
        System.out.printf(Locale.ROOT, row, (t.shm ? "CPU per call, both sides" : "client CPU per call") + ", ns (the"
                + " clock)", nanos(mine, mineClock),
                nanos(theirs, theirClock), difference(mine, mineClock, theirs, theirClock));
        System.out.printf(Locale.ROOT, row, "  in perf's samples", nanos(mine, mine.profile().total()),
                nanos(theirs, theirs.profile().total()), difference(mine, mine.profile().total(), theirs,
                        theirs.profile().total()));
        for (PerfProfile.Part part : PerfProfile.Part.values()) {
            long a = mine.profile().of(part), b = theirs.profile().of(part);
            if (a == 0 && b == 0) continue;
            System.out.printf(Locale.ROOT, row, "    " + part.label, nanos(mine, a), nanos(theirs, b),
                    difference(mine, a, theirs, b));
        }
        long a = mineClock - mine.profile().total(), b = theirClock - theirs.profile().total();
        System.out.printf(Locale.ROOT, row, "  " + UNSAMPLED, nanos(mine, a), nanos(theirs, b),
                difference(mine, a, theirs, b));
        Turnaround tm = mine.turnaround(), tt = theirs.turnaround();
        if (tm != null && tt != null) {
            System.out.printf(Locale.ROOT, row, TURNAROUND, count(tm.medianNanos()), count(tt.medianNanos()),
                    String.format(Locale.ROOT, "%+,d", tm.medianNanos() - tt.medianNanos()));
            double pm = tm.meanNanos() * tm.turnarounds() / mine.tracedCalls(), pt = tt.meanNanos()
                    * tt.turnarounds() / theirs.tracedCalls();
            System.out.printf(Locale.ROOT, row, TURNAROUND_PER_CALL, count(Math.round(pm)), count(Math.round(pt)),
                    String.format(Locale.ROOT, "%+,d", Math.round(pm - pt)));
            System.out.printf(Locale.ROOT, row, "    " + TRACED_CALLS, count(mine.tracedCalls()),
                    count(theirs.tracedCalls()), "");
            System.out.printf(Locale.ROOT, row, "      sends", count(tm.sends()), count(tt.sends()), "");
            System.out.printf(Locale.ROOT, row, "      " + TURNAROUNDS, count(tm.turnarounds()),
                    count(tt.turnarounds()), "");
            if (tm.lost() + tt.lost() > 0) System.out.printf(Locale.ROOT, row, "      perf's records of lost events",
                    count(tm.lost()), count(tt.lost()), "");
        }
        if (keep != null) {
            System.out.println("  kept: " + mine.report());
            System.out.println("        " + theirs.report());
        }
        if (methods == 0) return;
        System.out.println("  sysframe's Java code by method, ns per call (a method's inlined callees in it"
                + (t.shm ? "; both sides" : "") + "):");
        mine.profile().methods().entrySet().stream()
                .sorted((x, y) -> Long.compare(y.getValue(), x.getValue())).limit(methods)
                .forEach(e -> System.out.printf(Locale.ROOT, row, "    " + e.getKey(), nanos(mine, e.getValue()), "",
                        ""));
    }

    private static String count(long n) { return String.format(Locale.ROOT, "%,d", n); }

    private static String nanos(Side s, long ns) { return String.format(Locale.ROOT, "%,.0f", s.nanosPerCall(ns)); }

    private static String difference(Side a, long na, Side b, long nb) {
        return String.format(Locale.ROOT, "%+,d", Math.round(a.nanosPerCall(na) - b.nanosPerCall(nb)));
    }
}
