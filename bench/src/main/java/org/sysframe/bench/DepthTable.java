package org.sysframe.bench;

import org.sysframe.transport.GroutServer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The pipelining table: one sysframe client keeping DEPTH pings in flight (refilled a whole window at
 * a time, one send per refill) against the default server, for each depth and payload, next to the C
 * client doing the same; ratios against depth 1 of the same payload.
 */
final class DepthTable {
    private DepthTable() {}

    static final String NAME = "depth";
    static final int[] DEPTHS = {1, 4, 16, 64};
    static final String C_PREFIX = "C ";

    static String name(int depth) { return "depth " + depth; }

    static BenchTable run(int[] payloads, int rounds, boolean quick) throws IOException {
        Pairing p = Pairing.named("sysframe");
        boolean cPeer = CPeer.available();
        try (BenchFixture f = new BenchFixture(NAME)) {
            String socket = f.socket("depth");
            GroutServer server = f.server(p.server(socket));
            ServerSample.Source side = ServerSample.Source.of(server);
            List<Cell> cells = new ArrayList<>();
            for (int payload : payloads) {
                for (int depth : DEPTHS) {
                    long calls = (quick ? 600L : 3_000L) * depth;
                    PeerThread t = f.peer(depth == 1 ? new SysframePeer(name(depth), p.client(socket))
                            : new PipelinedPeer(name(depth), p.client(socket), depth, depth), socket);
                    cells.add(new Cell(name(depth), payload, "sysframe client, " + t.peer().framing(), calls, calls / 4,
                            new ClientThreadsProbe(List.of(t), side)));
                    if (!cPeer) continue;
                    CPeer c = new CPeer("c-depth-" + depth, "sendmsg", new CPeer.Options("block", -1, depth, depth));
                    cells.add(new Cell(C_PREFIX + name(depth), payload, "C client, depth " + depth + ", batch " + depth,
                            calls, calls / 4, c.probe(socket, side)));
                }
            }
            List<Measurement> runs = RoundRunner.run(NAME, cells, rounds);
            List<String> notes = cPeer ? List.of() : List.of("C client rows left out: bench/target/sysframe_ping is not built (make builds it)");
            return BenchTable.of(NAME, "pipelining depth (requests in flight, one send per refill)", "depth", name(1), false,
                    rounds, cells, runs, notes);
        }
    }
}
