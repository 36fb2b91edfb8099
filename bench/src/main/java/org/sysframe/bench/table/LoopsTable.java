package org.sysframe.bench.table;

import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Goal;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.peer.BenchFixture;
import org.sysframe.bench.peer.ClientThreadsProbe;
import org.sysframe.bench.peer.Pairing;
import org.sysframe.bench.peer.PeerThread;
import org.sysframe.bench.peer.SysframePeer;
import org.sysframe.transport.GroutServer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The server-loops table: one server with 1 event loop and one with 2, each with 8 concurrent
 * sysframe clients (one thread each, default pairing, 32 B pings), measured in the same interleaved
 * rounds: aggregate calls/s of 2 loops over 1, server syscalls per request and CPU.
 */
public final class LoopsTable implements Table {
    static final String NAME = "server-loops";
    static final int CLIENTS = 8;
    static final int PAYLOAD = 32;
    static final int[] LOOPS = {1, 2};

    static String cellName(int loops) { return loops == 1 ? "1 loop" : loops + " loops"; }

    @Override
    public String name() { return NAME; }

    @Override
    public String about() { return "one server with 1 and with 2 event loops, " + CLIENTS + " concurrent clients"; }

    @Override
    public Set<String> cells() {
        Set<String> out = new LinkedHashSet<>();
        for (int loops : LOOPS) out.add(cellName(loops));
        return out;
    }

    /** None: the table shows what a second loop buys on this machine. */
    @Override
    public List<Goal> goals() { return List.of(); }

    @Override
    public BenchTable run(TableRun run) throws IOException {
        int rounds = run.rounds();
        boolean quick = run.quick();
        long calls = (quick ? 500L : 3_000L) * CLIENTS;
        Pairing p = Pairing.named("sysframe");
        List<String> notes = new ArrayList<>();
        try (BenchFixture f = new BenchFixture("loops")) {
            List<Cell> cells = new ArrayList<>();
            for (int loops : LOOPS) {
                String socket = f.socket("loops" + loops);
                GroutServer server;
                try {
                    server = f.server(p.server(socket).loops(loops));
                } catch (UnsupportedOperationException e) {
                    notes.add(cellName(loops) + " not measured: this server build refuses it (" + e.getMessage() + ")");
                    continue;
                }
                List<PeerThread> clients = new ArrayList<>();
                for (int i = 0; i < CLIENTS; i++) clients.add(f.peer(new SysframePeer("client " + i, p.client(socket)),
                        socket));
                cells.add(new Cell(cellName(loops), PAYLOAD,
                        CLIENTS + " clients on their own threads, " + p.framing() + ", " + loops + " server loop"
                        + (loops == 1 ? "" : "s"),
                        calls, calls / 2, new ClientThreadsProbe(clients, ServerSample.Source.of(server))));
            }
            List<Measurement> runs = run.measure(NAME, cells);
            return BenchTable.of(NAME, "Server loops, " + CLIENTS + " concurrent clients", "server", cellName(1), false,
                    rounds, cells, runs, notes);
        }
    }
}
