package org.sysframe.bench.table;

import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.RoundRunner;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.peer.BenchFixture;
import org.sysframe.bench.peer.CPeer;
import org.sysframe.bench.peer.CallersProbe;
import org.sysframe.bench.peer.ChannelPeer;
import org.sysframe.bench.peer.ChannelSide;
import org.sysframe.bench.peer.OneClientPeer;
import org.sysframe.bench.peer.Pairing;
import org.sysframe.bench.peer.SysframePeer;
import org.sysframe.transport.Backend;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.GroutServer;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.uring.UringSupport;

import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The concurrency table: 1, 8 and 64 callers at once, each calling one 32 B ping at a time, against
 * one epoll server of this JVM. Rows: the callers on one {@link GroutClient} (platform and virtual
 * threads), and at 64 virtual callers also one client on io_uring (same server) and one over a
 * shared-memory channel (a server of its own, whose channel's thread is the server side); a
 * GroutClient per caller (platform and virtual); a JDK SocketChannel per virtual thread; N lean C
 * clients, a process each. Client syscalls and CPU are summed over every thread of this JVM but the
 * servers' loops and channels (a virtual caller runs on any carrier; one client's calls are made by
 * whichever caller does its I/O, its own thread and the JVM's poller), or over the C processes.
 * Ratios against one GroutClient on one platform thread.
 *
 * <p>Internal to the bench: public for its other packages, not an API.
 */
public final class ConcurrencyTable {
    private ConcurrencyTable() {}

    static final String NAME = "concurrency";
    static final int PAYLOAD = 32;
    static final int[] CALLERS = {1, 8, 64};
    /** The callers of the io_uring and shared-memory rows (virtual threads). */
    static final int OTHER_TRANSPORTS_CALLERS = 64;

    /**
     * Row names: e.g. {@code one client 64 virtual}, {@code one client io_uring 64 virtual}, {@code one client shm 64 virtual},
     * {@code clients 64 platform}, {@code jdk 64 virtual}, {@code C lean 64}.
     */
    static String oneClient(int n, boolean virtual) { return "one client " + n + (virtual ? " virtual" : " platform"); }

    static String oneClientUring(int n) { return "one client io_uring " + n + " virtual"; }

    static String oneClientShm(int n) { return "one client shm " + n + " virtual"; }

    static String clients(int n, boolean virtual) { return "clients " + n + (virtual ? " virtual" : " platform"); }

    static String jdk(int n) { return "jdk " + n + " virtual"; }

    static String cLean(int n) { return "C lean " + n; }

    static final String REFERENCE = clients(1, false);

    /**
     * Every row's name, in the table's order (the C rows are left out of a run where the C client is
     * not built, the io_uring row where io_uring is unavailable).
     */
    static List<String> names() {
        boolean uring = UringSupport.unavailableReason() == null;
        List<String> out = new ArrayList<>();
        for (int n : CALLERS) {
            out.addAll(List.of(oneClient(n, false), clients(n, false), oneClient(n, true)));
            if (n == OTHER_TRANSPORTS_CALLERS) {
                if (uring) out.add(oneClientUring(n));
                out.add(oneClientShm(n));
            }
            out.addAll(List.of(clients(n, true), jdk(n), cLean(n)));
        }
        return out;
    }

    public static BenchTable run(int rounds, boolean quick) throws IOException {
        // 20 rows where there were 18: as many calls per round as before.
        long calls = quick ? 2_000L : 10_800L;
        Pairing p = Pairing.named("sysframe");
        boolean cPeer = CPeer.available();
        String uringUnavailable = UringSupport.unavailableReason();
        List<String> notes = new ArrayList<>();
        List<AutoCloseable> open = new ArrayList<>();
        try (BenchFixture f = new BenchFixture(NAME)) {
            String socket = f.socket("concurrency");
            GroutServer server = f.server(p.server(socket));
            ServerSample.Source side = ServerSample.Source.of(server);
            String shmSocket = f.socket("concurrency-shm");
            GroutServer shmServer = f.server(p.server(shmSocket).sharedMemory(true));
            ChannelSide channel = new ChannelSide(shmServer);
            Set<Integer> loops = new HashSet<>();
            for (GroutServer s : List.of(server, shmServer)) {
                for (int i = 0; i < s.loopCount(); i++) loops.add(s.loopThreadId(i));
            }
            // The servers' threads of this JVM: their loops, and the channel's thread once the shm row's client opened it.
            Supplier<Set<Integer>> notClient = () -> {
                Set<Integer> out = new HashSet<>(loops);
                out.addAll(channel.threadIds());
                return out;
            };
            List<Cell> cells = new ArrayList<>();
            try {
                for (int n : CALLERS) {
                    String callers = n + (n == 1 ? " caller" : " callers") + ", one 32 B ping at a time each, ";
                    String where = callers + "epoll server (1 loop); ";
                    for (boolean virtual : new boolean[] {false, true}) {
                        String threads = virtual ? "virtual" : "platform";
                        GroutClient client = f.closing(GroutClient.connect(p.client(socket)));
                        CallersProbe one = oneClientProbe(oneClient(n, virtual), n, virtual, client, side, notClient, open);
                        cells.add(new Cell(oneClient(n, virtual), PAYLOAD, where + "one GroutClient, " + threads + " threads, " + p.framing(),
                                calls, calls / 4, one));
                        if (virtual && n == OTHER_TRANSPORTS_CALLERS) {
                            if (uringUnavailable == null) {
                                GroutClient uring = f.closing(GroutClient.connect(p.client(socket).backend(Backend.IO_URING)));
                                CallersProbe u = oneClientProbe(oneClientUring(n), n, true, uring, side, notClient, open);
                                cells.add(new Cell(oneClientUring(n), PAYLOAD, where + "one GroutClient on io_uring, virtual threads, "
                                        + p.framing(), calls, calls / 4, u));
                            } else {
                                notes.add("row " + oneClientUring(n) + " left out: " + uringUnavailable);
                            }
                            GroutClient shm = f.closing(GroutClient.connect(p.client(shmSocket).sharedMemory(true)));
                            if (!shm.sharedMemory()) {
                                throw new IOException("the server on " + shmSocket + " gave no shared-memory channel (see its log)");
                            }
                            CallersProbe s = oneClientProbe(oneClientShm(n), n, true, shm, channel, notClient, open);
                            cells.add(new Cell(oneClientShm(n), PAYLOAD, callers + "a server's shared-memory channel (server figures: the"
                                    + " channel's thread); one GroutClient over it, virtual threads, " + p.framing(), calls, calls / 4, s));
                        }
                        CallersProbe own = new CallersProbe(n, virtual, i -> {
                            SysframePeer peer = new SysframePeer(clients(n, virtual) + " #" + i, p.client(socket));
                            peer.open(socket);
                            return peer;
                        }, null, side, notClient);
                        open.add(own);
                        cells.add(new Cell(clients(n, virtual), PAYLOAD, where + "a GroutClient per caller, " + threads
                                + " threads, " + p.framing(), calls, calls / 4, own));
                    }
                    CallersProbe channels = new CallersProbe(n, true, i -> {
                        ChannelPeer peer = ChannelPeer.jdk(jdk(n) + " #" + i, ChannelPeer.Send.GATHER, true);
                        peer.open(socket);
                        return peer;
                    }, null, side, notClient).kernelKinds(EnumSet.allOf(SyscallKind.class));
                    open.add(channels);
                    cells.add(new Cell(jdk(n), PAYLOAD, where + "a JDK SocketChannel per virtual thread, gathering write, read-ahead 8192",
                            calls, calls / 4, channels));
                    if (cPeer) {
                        CPeer c = new CPeer("c-lean-" + n, "sendmsg", CPeer.Options.lean("block", -1, 1));
                        cells.add(new Cell(cLean(n), PAYLOAD, where + c.describe() + ", a process each", calls, calls / 4, f.closing(c.probe(socket, side, n))));
                    }
                }
                if (!cPeer) notes.add("C client rows left out: bench/target/sysframe_ping is not built (make builds it)");
                notes.add("client syscalls and CPU: every thread of this JVM but the servers' loops and channel (JIT and GC included), or the"
                        + " C processes; C lean rows measure no latency (p50/p99 read 0); jdk rows: the kernel's count of every kind, read and"
                        + " write included; the JVM poller's epoll_ctl calls are not a counted kind; " + oneClientShm(OTHER_TRANSPORTS_CALLERS)
                        + ": the server side is the channel's thread, and the kernel counts futex too (the carriers' own parking in it)");
                List<Measurement> runs = RoundRunner.run(NAME, cells, rounds);
                return BenchTable.of(NAME, "1, 8 and 64 callers: one client (at 64 virtual callers also on io_uring and over shared memory),"
                        + " a client per caller, JDK channels, C clients", "caller", REFERENCE, false, rounds, cells, runs, notes);
            } finally {
                for (int i = open.size() - 1; i >= 0; i--) {
                    try {
                        open.get(i).close();
                    } catch (Exception e) {
                        // closing the rest anyway
                    }
                }
            }
        }
    }

    /** n callers (virtual or platform threads) on client, its counts the client's own; added to open. */
    private static CallersProbe oneClientProbe(String name, int n, boolean virtual, GroutClient client, ServerSample.Source server,
                                               Supplier<Set<Integer>> notClient, List<AutoCloseable> open) throws IOException {
        CallersProbe probe = new CallersProbe(n, virtual, i -> new OneClientPeer(name, client), OneClientPeer.counts(client), server, notClient)
                .kernelKinds(OneClientPeer.kernelKinds(client));
        open.add(probe);
        return probe;
    }
}
