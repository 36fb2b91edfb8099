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
import org.sysframe.bench.peer.Pairing;
import org.sysframe.bench.peer.SharedClientPeer;
import org.sysframe.bench.peer.SysframePeer;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.SharedGroutClient;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;

import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The concurrency table: 1, 8 and 64 callers at once, each calling one 32 B ping at a time, against
 * one epoll server of this JVM. Rows: the callers on one {@link SharedGroutClient} (platform and
 * virtual threads); a thread-confined GroutClient per caller (Grout's model; platform and virtual); a
 * JDK SocketChannel per virtual thread; N lean C clients, a process each. Client syscalls and CPU are
 * summed over every thread of this JVM but the server's loop (a virtual caller runs on any carrier; a
 * shared client's calls are made by its callers, its reader and the JVM's poller), or over the C
 * processes. Ratios against one plain GroutClient on a platform thread.
 *
 * <p>Internal to the bench: public for its other packages, not an API.
 */
public final class ConcurrencyTable {
    private ConcurrencyTable() {}

    static final String NAME = "concurrency";
    static final int PAYLOAD = 32;
    static final int[] CALLERS = {1, 8, 64};

    /** Row names: e.g. {@code shared 64 virtual}, {@code clients 64 platform}, {@code jdk 64 virtual}, {@code C lean 64}. */
    static String shared(int n, boolean virtual) { return "shared " + n + (virtual ? " virtual" : " platform"); }

    static String clients(int n, boolean virtual) { return "clients " + n + (virtual ? " virtual" : " platform"); }

    static String jdk(int n) { return "jdk " + n + " virtual"; }

    static String cLean(int n) { return "C lean " + n; }

    static final String REFERENCE = clients(1, false);

    /** Every row's name, in the table's order (the C rows are left out of a run where the C client is not built). */
    static List<String> names() {
        List<String> out = new ArrayList<>();
        for (int n : CALLERS) {
            out.addAll(List.of(shared(n, false), clients(n, false), shared(n, true), clients(n, true), jdk(n), cLean(n)));
        }
        return out;
    }

    public static BenchTable run(int rounds, boolean quick) throws IOException {
        long calls = quick ? 2_000L : 12_000L;
        Pairing p = Pairing.named("sysframe");
        boolean cPeer = CPeer.available();
        List<String> notes = new ArrayList<>();
        List<AutoCloseable> open = new ArrayList<>();
        try (BenchFixture f = new BenchFixture(NAME)) {
            String socket = f.socket("concurrency");
            GroutServer server = f.server(p.server(socket));
            ServerSample.Source side = ServerSample.Source.of(server);
            Set<Integer> loops = new HashSet<>();
            for (int i = 0; i < server.loopCount(); i++) loops.add(server.loopThreadId(i));
            List<Cell> cells = new ArrayList<>();
            try {
                for (int n : CALLERS) {
                    String where = n + (n == 1 ? " caller" : " callers") + ", one 32 B ping at a time each, epoll server (1 loop); ";
                    for (boolean virtual : new boolean[] {false, true}) {
                        SharedGroutClient client = SharedGroutClient.connect(p.client(socket));
                        open.add(client);
                        CallersProbe shared = new CallersProbe(n, virtual, i -> new SharedClientPeer(shared(n, virtual), client),
                                new CallersProbe.Counts() {
                                    @Override public SyscallCounts library() { return client.counts(); }

                                    @Override public SyscallCounts empty() {
                                        return client.sendCounters().emptySnapshot().plus(client.receiveCounters().emptySnapshot());
                                    }
                                }, side, () -> loops);
                        open.add(shared);
                        cells.add(new Cell(shared(n, virtual), PAYLOAD, where + "one SharedGroutClient, " + (virtual ? "virtual" : "platform")
                                + " threads", calls, calls / 4, shared));
                        CallersProbe own = new CallersProbe(n, virtual, i -> {
                            SysframePeer peer = new SysframePeer(clients(n, virtual) + " #" + i, p.client(socket));
                            peer.open(socket);
                            return peer;
                        }, null, side, () -> loops);
                        open.add(own);
                        cells.add(new Cell(clients(n, virtual), PAYLOAD, where + "a GroutClient per caller, " + (virtual ? "virtual" : "platform")
                                + " threads, " + p.framing(), calls, calls / 4, own));
                    }
                    CallersProbe channels = new CallersProbe(n, true, i -> {
                        ChannelPeer peer = ChannelPeer.jdk(jdk(n) + " #" + i, ChannelPeer.Send.GATHER, true);
                        peer.open(socket);
                        return peer;
                    }, null, side, () -> loops).kernelKinds(EnumSet.allOf(SyscallKind.class));
                    open.add(channels);
                    cells.add(new Cell(jdk(n), PAYLOAD, where + "a JDK SocketChannel per virtual thread, gathering write, read-ahead 8192",
                            calls, calls / 4, channels));
                    if (cPeer) {
                        CPeer c = new CPeer("c-lean-" + n, "sendmsg", CPeer.Options.lean("block", -1, 1));
                        cells.add(new Cell(cLean(n), PAYLOAD, where + c.describe() + ", a process each", calls, calls / 4, f.closing(c.probe(socket, side, n))));
                    }
                }
                if (!cPeer) notes.add("C client rows left out: bench/target/sysframe_ping is not built (make builds it)");
                notes.add("client syscalls and CPU: every thread of this JVM but the server's loop (JIT and GC included), or the C processes;"
                        + " C lean rows measure no latency (p50/p99 read 0); jdk rows: the kernel's count of every kind, read and write"
                        + " included; the JVM poller's epoll_ctl calls are not a counted kind");
                List<Measurement> runs = RoundRunner.run(NAME, cells, rounds);
                return BenchTable.of(NAME, "1, 8 and 64 callers: one shared client, a client per caller, JDK channels, C clients",
                        "caller", REFERENCE, false, rounds, cells, runs, notes);
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
}
