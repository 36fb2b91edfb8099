package org.sysframe.bench.table;

import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Goal;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.peer.BenchFixture;
import org.sysframe.bench.peer.CPeer;
import org.sysframe.bench.peer.ClientThreadsProbe;
import org.sysframe.bench.peer.Pairing;
import org.sysframe.bench.peer.PeerFork;
import org.sysframe.bench.peer.PeerForks;
import org.sysframe.bench.peer.PeerThread;
import org.sysframe.bench.peer.PingPeer;
import org.sysframe.transport.GroutServer;
import org.sysframe.unix.CpuPlacement;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import static org.sysframe.bench.measure.Goal.Metric.CALLS_RATIO;
import static org.sysframe.bench.measure.Goal.Metric.CLIENT_CPU_RATIO;

/**
 * The peers as a table: sysframe's client and the clients a user would pick instead (the JDK's
 * SocketChannel, jnr-unixsocket, a C client) against one embedded server with sysframe's default
 * framing; ratios are sysframe's over the peer's. Peer syscalls come from the kernel's counters. The C
 * client runs timed (c-split, c-sendmsg: a clock read around every call, for latency) and lean
 * ({@link #C_LEAN}: none), the row the goals against C take.
 */
public final class PeerTable implements Table {
    public static final String NAME = "peers";
    static final String REFERENCE = "sysframe";
    static final int[] PAYLOADS = {32, 1024};
    /** The lean C client's row: the one the goals against C take. */
    static final String C_LEAN = "c-lean";
    /** The timed C clients' rows: the header and payload in two sends, and in one sendmsg. */
    static final String C_SPLIT = "c-split", C_SENDMSG = "c-sendmsg";
    /** The Java peers the goals put sysframe beside (of {@link #javaPeers}). */
    static final String JDK_GATHER = "jdk-gather", JNR = "jnr";

    private static final List<Goal> GOALS = declareGoals();

    private static List<Goal> declareGoals() {
        List<Goal> out = new ArrayList<>();
        for (int payload : PAYLOADS) {
            out.add(new Goal("one at a time: at least 0.97x C lean", NAME, REFERENCE, C_LEAN, payload, CALLS_RATIO,
                    true, 0.97));
            out.add(new Goal("client CPU within 10 % of C lean", NAME, REFERENCE, C_LEAN, payload, CLIENT_CPU_RATIO,
                    false, 1.10));
            out.add(new Goal("at least the tuned JDK's throughput", NAME, REFERENCE, JDK_GATHER, payload, CALLS_RATIO,
                    true, 1.00));
            out.add(new Goal("10 % less client CPU than the tuned JDK", NAME, REFERENCE, JDK_GATHER, payload,
                    CLIENT_CPU_RATIO, false, 0.90));
            out.add(new Goal("+20 % over jnr-unixsocket", NAME, REFERENCE, JNR, payload, CALLS_RATIO, true, 1.20));
        }
        return List.copyOf(out);
    }

    @Override
    public String name() { return NAME; }

    @Override
    public String about() {
        return "sysframe's client beside the JDK's SocketChannel, jnr-unixsocket and C clients on one server (--forks)";
    }

    @Override
    public Set<String> cells() {
        Set<String> out = new LinkedHashSet<>();
        for (PingPeer p : javaPeers()) out.add(p.name());
        out.addAll(List.of(C_SPLIT, C_SENDMSG, C_LEAN));
        return out;
    }

    @Override
    public List<Goal> goals() { return GOALS; }

    @Override
    public BenchTable run(TableRun run) throws IOException {
        try {
            return measured(run);
        } catch (UnsupportedOperationException e) {
            throw run.serverLoopsRefused(e);
        }
    }
    /**
     * Every client on CPU 1, the server on CPU 0: unpinned, a cell's client and server share a core in
     * some rounds and not in others, and the calls/s of one cell fall into two groups, which no interval
     * can settle (docs/results.md).
     */
    static final int CLIENT_CPU = 1, SERVER_CPU = 0;

    /**
     * Child JVMs the Java peers run in by default ({@link PeerForks}): in one JVM, sysframe's cells can
     * sit apart from one run to the next for a whole run, against every peer, with tight intervals (a
     * met in one run, a missed in the next; docs/results.md); the rounds spread over 3 forks average
     * such a JVM's fate out. 0: in the bench's own JVM ({@code --quick}).
     */
    public static final int DEFAULT_FORKS = 3;

    /**
     * The table's runs are at least its own length (6,000 calls, 1,200 with {@code --quick}), whatever
     * {@code --round-length} says: shorter runs leave the intervals of the C lean goals wider for the
     * time they take (docs/results.md).
     */
    static final double OWN_LENGTH = 1.0;

    /**
     * The Java peers of the table (in this JVM or in a fork: the same list, by name); the first is {@value #REFERENCE}.
     */
    public static List<PingPeer> javaPeers() { return PeerFork.Peers.PEER_TABLE.create(); }

    /**
     * The forks a command's {@code --forks} asks for (null: not given, {@link #DEFAULT_FORKS}, none with quick),
     * checked: 0..16.
     */
    public static int forks(Integer asked, boolean quick) {
        if (asked == null) return quick ? 0 : DEFAULT_FORKS;
        if (asked < 0 || asked > 16) throw new IllegalArgumentException("--forks " + asked + ": expected 0..16");
        return asked;
    }

    /** With the Java peers in the run's forks child JVMs (0: in this JVM). */
    private static BenchTable measured(TableRun run) throws IOException {
        boolean quick = run.quick();
        int serverLoops = run.serverLoops(), rounds = run.rounds(), forks = run.forks();
        long calls = quick ? 1_200 : 6_000;
        Pairing best = Pairing.named("sysframe");
        try (BenchFixture f = new BenchFixture("compare")) {
            String socket = f.socket("compare");
            GroutServer server = f.server(best.server(socket).loops(serverLoops).cpus(serverLoops == 1
                    ? new int[] {SERVER_CPU} : new int[0]));
            ServerSample.Source side = ServerSample.Source.of(server);
            List<PingPeer> javaPeers = javaPeers();
            List<Cell.Probe> probes = new ArrayList<>();
            PeerForks forked = forks == 0 ? null : f.closing(PeerForks.start(forks, PeerFork.Peers.PEER_TABLE, socket,
                    CLIENT_CPU));
            for (PingPeer p : javaPeers) {
                if (forked != null) {
                    probes.add(forked.probe(p.name(), side));
                    continue;
                }
                PeerThread t = f.peer(p, socket);
                t.onThread(() -> CpuPlacement.pinCurrentThread(CLIENT_CPU));
                probes.add(new ClientThreadsProbe(List.of(t), side));
            }
            List<CPeer> cPeers = List.of(new CPeer(C_SPLIT, "split", new CPeer.Options("block", CLIENT_CPU, 1, 1)),
                    new CPeer(C_SENDMSG, "sendmsg", new CPeer.Options("block", CLIENT_CPU, 1, 1)),
                    new CPeer(C_LEAN, "sendmsg", CPeer.Options.lean("block", CLIENT_CPU, 1)));
            String serverSettings = "; server " + best.serverSend() + "/"
                    + best.serverFlush().name().toLowerCase(Locale.ROOT)
                    + PairingTable.loops(serverLoops) + (serverLoops == 1 ? " on CPU " + SERVER_CPU : "")
                            + ", client on CPU " + CLIENT_CPU;
            String forkSettings = forks == 0 ? "" : "; in " + forks + " JVM forks, rounds spread over them";
            List<Cell> cells = new ArrayList<>();
            for (int payload : PAYLOADS) {
                for (int i = 0; i < javaPeers.size(); i++) {
                    cells.add(new Cell(javaPeers.get(i).name(), payload, javaPeers.get(i).framing() + serverSettings
                            + forkSettings, calls, calls,
                            probes.get(i)));
                }
                for (CPeer c : cPeers) cells.add(new Cell(c.name(), payload, c.describe() + serverSettings, calls,
                        calls, f.closing(c.probe(socket, side))));
            }
            List<Measurement> runs = run.measure(NAME, cells, OWN_LENGTH);
            List<String> notes = forks == 0 ? List.of()
                    : List.of(PeerForks.spread(runs, forks, REFERENCE, C_LEAN, PAYLOADS));
            return BenchTable.of(NAME, "Peers on one sysframe server", "peer", REFERENCE, true, rounds, cells, runs,
                    notes);
        }
    }
}
