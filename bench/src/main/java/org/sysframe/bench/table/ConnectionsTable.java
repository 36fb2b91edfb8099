package org.sysframe.bench.table;

import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Goal;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.RoundRunner;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.peer.BenchFixture;
import org.sysframe.bench.peer.CPeer;
import org.sysframe.bench.peer.ClientThreadsProbe;
import org.sysframe.bench.peer.Pairing;
import org.sysframe.bench.peer.PeerThread;
import org.sysframe.bench.peer.ServerProcess;
import org.sysframe.bench.peer.SysframePeer;
import org.sysframe.transport.Backend;
import org.sysframe.transport.GroutServer;
import org.sysframe.unix.uring.UringSupport;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static org.sysframe.bench.measure.Goal.Metric.SERVER_CPU_RATIO;
import static org.sysframe.bench.measure.Goal.Metric.SERVER_SYSCALLS_PER_CALL;

/**
 * The many-connections table, io_uring's: {@link #CLIENTS} clients at once, each on a connection of its
 * own, one blocking 32 B ping at a time (depth 1), against the epoll server with 1 and 2 loops, the
 * io_uring server (1 loop) and the C server ({@link ServerProcess#c}: sysframe_serve, the server-side
 * anchor, in a process of its own); and one client alone against the epoll server with 1 loop and the C
 * server (the {@code (1 conn)} rows, on the same servers). Two kinds of clients: sysframe's, each on a
 * thread of its own in this JVM, and the lean C client, one process each. What the rows compare is the
 * server: its calls/s, CPU per request, syscalls per request (summed over its loops) and library ==
 * kernel. Ratios against the sysframe clients on the epoll server with 1 loop; the goals compare servers
 * under the same clients (the C server's goals: under the lean C clients, which share no process with
 * either server).
 *
 * <p>The two kinds are measured in two sets of interleaved rounds, one after the other, each with its
 * own added rounds, so that a goal's cells have the same neighbours in every round. In one set, the C
 * cells' company raises the io_uring server's CPU per request against epoll's in the rounds they
 * share, and a goal's verdict would depend on how many rounds it takes (why is not known:
 * docs/results.md). The ratio column of the C rows, against the sysframe row of the other set, pairs
 * rounds that did not run side by side.
 */
public final class ConnectionsTable implements Table {
    static final String NAME = "connections";
    static final int CLIENTS = 32;
    static final int PAYLOAD = 32;
    /** Row-name prefix of the lean C clients' cells. */
    static final String C_LEAN_PREFIX = "C lean ";

    /** A server of the table: its backend and loops. */
    record Server(Backend backend, int loops) {
        String cell() { return backend + " " + loops + (loops == 1 ? " loop" : " loops"); }
    }

    static final List<Server> SERVERS = List.of(new Server(Backend.EPOLL, 1), new Server(Backend.EPOLL, 2),
            new Server(Backend.IO_URING, 1));

    static final String REFERENCE = SERVERS.get(0).cell();

    /** The C server's row, beside the sysframe server's (with C lean clients: {@link #C_LEAN_PREFIX} before it). */
    static final String C_SERVER = "C server";

    /** The rows of one connection: the epoll server with 1 loop and the C server, each with one client. */
    static final String ONE = " (1 conn)";
    static final List<String> ONE_CONNECTION = List.of(REFERENCE + ONE, C_SERVER + ONE);

    private static final String URING = SERVERS.get(2).cell();

    private static final List<Goal> GOALS = List.of(
            new Goal("32 connections: io_uring server at most 0.8x epoll's server CPU per request", NAME,
                    URING, REFERENCE, PAYLOAD, SERVER_CPU_RATIO, false, 0.8),
            new Goal("32 connections: io_uring server at most 0.25 syscalls per request", NAME,
                    URING, URING, PAYLOAD, SERVER_SYSCALLS_PER_CALL, false, 0.25),
            new Goal("32 C lean connections: io_uring server at most 0.8x epoll's server CPU per request", NAME,
                    C_LEAN_PREFIX + URING, C_LEAN_PREFIX + REFERENCE, PAYLOAD, SERVER_CPU_RATIO, false, 0.8),
            new Goal("32 C lean connections: io_uring server at most 0.25 syscalls per request", NAME,
                    C_LEAN_PREFIX + URING, C_LEAN_PREFIX + URING, PAYLOAD, SERVER_SYSCALLS_PER_CALL, false, 0.25),
            // The server-side anchor: sysframe's server against the C server (sysframe_serve), both under the lean C
            // clients.
            new Goal("32 C lean connections: sysframe server CPU per request <= 1.10x the C server's", NAME,
                    C_LEAN_PREFIX + REFERENCE, C_LEAN_PREFIX + C_SERVER, PAYLOAD, SERVER_CPU_RATIO, false, 1.10),
            new Goal("1 C lean connection: sysframe server CPU per request <= 1.10x the C server's", NAME,
                    C_LEAN_PREFIX + REFERENCE + ONE, C_LEAN_PREFIX + C_SERVER + ONE, PAYLOAD, SERVER_CPU_RATIO, false,
                    1.10));

    @Override
    public String name() { return NAME; }

    @Override
    public String about() {
        return CLIENTS + " connections at depth 1 on epoll (1 and 2 loops), io_uring and C servers; and 1 connection";
    }

    @Override
    public Set<String> cells() {
        Set<String> out = new LinkedHashSet<>();
        List<String> servers = new ArrayList<>(SERVERS.stream().map(Server::cell).toList());
        servers.add(C_SERVER);
        servers.addAll(ONE_CONNECTION);
        for (String s : servers) out.addAll(List.of(s, C_LEAN_PREFIX + s));
        return out;
    }

    @Override
    public List<Goal> goals() { return GOALS; }

    @Override
    public BenchTable run(TableRun run) throws IOException {
        int rounds = run.rounds();
        boolean quick = run.quick();
        long calls = (quick ? 100L : 600L) * CLIENTS;
        Pairing p = Pairing.named("sysframe");
        boolean cPeer = CPeer.available();
        boolean cServer = cPeer && ServerProcess.cAvailable();
        String uring = UringSupport.unavailableReason();
        List<String> notes = new ArrayList<>();
        try (BenchFixture f = new BenchFixture(NAME)) {
            List<Cell> cells = new ArrayList<>();
            ServerSample.Source epoll1 = null;
            String epoll1Socket = null;
            for (Server s : SERVERS) {
                if (s.backend == Backend.IO_URING && uring != null) {
                    notes.add(s.cell() + " not measured: " + uring);
                    continue;
                }
                String socket = f.socket(s.backend + "-" + s.loops);
                GroutServer server;
                try {
                    server = f.server(p.server(socket).backend(s.backend).loops(s.loops));
                } catch (UnsupportedOperationException e) {
                    notes.add(s.cell() + " not measured: this server build refuses it (" + e.getMessage() + ")");
                    continue;
                }
                ServerSample.Source side = ServerSample.Source.of(server);
                if (s.cell().equals(REFERENCE)) {
                    epoll1 = side;
                    epoll1Socket = socket;
                }
                addCells(f, cells, s.cell(), s.cell() + " " + s.backend + " server", socket, side, CLIENTS, calls, p,
                        cPeer);
            }
            if (cServer) {
                String socket = f.socket("c-server");
                ServerProcess c = ServerProcess.c(socket);
                try {
                    addCells(f, cells, C_SERVER, ServerProcess.C_DESCRIPTION, socket, c.source(), CLIENTS, calls, p,
                            cPeer);
                    if (epoll1 != null) {
                        addCells(f, cells, REFERENCE + ONE, REFERENCE + " epoll server", epoll1Socket, epoll1, 1,
                                calls, p, cPeer);
                        addCells(f, cells, C_SERVER + ONE, ServerProcess.C_DESCRIPTION, socket, c.source(), 1, calls,
                                p, cPeer);
                    }
                } finally {
                    f.closing(c); // closed after the C processes connected to it, which the fixture closes first
                }
            }
            if (!cPeer) notes.add("C client rows left out: bench/target/sysframe_ping is not built (make builds it)");
            else if (
                    !cServer) notes.add("C server rows left out: bench/target/sysframe_serve is not built (make builds "
                    + "it)");
            notes.add("C lean rows measure no latency (p50/p99 read -); server syscalls and CPU are summed over the "
                    + "server's loops");
            if (cServer) {
                notes.add("C server rows: " + ServerProcess.C_DESCRIPTION
                        + ", in a process of its own; its CPU is its thread's, its"
                        + " syscalls its own counts (the kernel's beside them), the epoll_wait that brought each stats "
                                + "command taken out;"
                        + " the (1 conn) rows: one client, on the epoll 1 loop server and on the C server");
            }
            if (cPeer) notes.add(RoundRunner.apartNote("sysframe", "C lean", REFERENCE));
            List<Measurement> runs = run.measureApart(NAME, cells, c -> c.name().startsWith(C_LEAN_PREFIX));
            return BenchTable.of(NAME, CLIENTS
                    + " connections at depth 1: epoll (1 and 2 loops), io_uring and C servers; 1 connection:"
                            + " epoll 1 loop and C servers", "server", REFERENCE, false, rounds, cells, runs, notes);
        }
    }

    /**
     * The two cells of one server and connection count: n sysframe clients on threads of their own, and
     * (the C client built) n lean C processes.
     */
    private static void addCells(BenchFixture f, List<Cell> cells, String name, String server, String socket,
            ServerSample.Source side, int n, long calls, Pairing p, boolean cPeer) throws IOException {
        String where = n + (n == 1 ? " connection" : " connections") + " at depth 1, 32 B, " + server;
        List<PeerThread> clients = new ArrayList<>();
        for (int i = 0; i < n; i++) clients.add(f.peer(new SysframePeer("client " + i, p.client(socket)), socket));
        // The C server has no framing settings of sysframe's: only the clients' are said.
        String framing = name.startsWith(C_SERVER) ? "client " + p.clientSend() + "/" + p.clientRecv() : p.framing();
        cells.add(new Cell(name, PAYLOAD, where + "; sysframe clients, a thread each, " + framing, calls, calls / 4,
                new ClientThreadsProbe(clients, side)));
        if (!cPeer) return;
        CPeer c = new CPeer("c-lean-" + name.replace(' ', '-'), "sendmsg", CPeer.Options.lean("block", -1, 1));
        cells.add(new Cell(C_LEAN_PREFIX + name, PAYLOAD, where + "; " + c.describe() + ", a process each",
                calls, calls / 4, f.closing(c.probe(socket, side, n))));
    }
}
