package org.sysframe.bench.table;

import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.RoundRunner;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.bench.peer.BenchFixture;
import org.sysframe.bench.peer.CPeer;
import org.sysframe.bench.peer.ChannelPeer;
import org.sysframe.bench.peer.ClientThreadsProbe;
import org.sysframe.bench.peer.Pairing;
import org.sysframe.bench.peer.PeerThread;
import org.sysframe.bench.peer.PingPeer;
import org.sysframe.bench.peer.SysframePeer;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.GroutServer;
import org.sysframe.unix.CpuPlacement;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The peers as a table: sysframe's client and the clients a user would pick instead (the JDK's
 * SocketChannel, jnr-unixsocket, a C client) against one embedded server with sysframe's default
 * framing; ratios are sysframe's over the peer's. Peer syscalls come from the kernel's counters. The C
 * client runs timed (c-split, c-sendmsg: a clock read around every call, for latency) and lean
 * ({@link #C_LEAN}: none), the row the goals against C take.
 *
 * <p>Internal to the bench: public for its other packages, not an API.
 */
public final class PeerTable {
    private PeerTable() {}

    public static final String NAME = "peers";
    static final String REFERENCE = "sysframe";
    static final int[] PAYLOADS = {32, 1024};
    /** The lean C client's row: the one the goals against C take. */
    static final String C_LEAN = "c-lean";
    /**
     * Every client on CPU 1, the server on CPU 0: unpinned, a cell's client and server shared a core in
     * some rounds and not in others, and the calls/s of one cell fell into two groups (about 40k and
     * 100k calls/s here), which no interval can settle.
     */
    static final int CLIENT_CPU = 1, SERVER_CPU = 0;

    public static BenchTable run(int rounds, boolean quick, int serverLoops) throws IOException {
        long calls = quick ? 1_200 : 6_000;
        Pairing best = Pairing.named("sysframe");
        try (BenchFixture f = new BenchFixture("compare")) {
            String socket = f.socket("compare");
            GroutServer server = f.server(best.server(socket).loops(serverLoops).cpus(serverLoops == 1 ? new int[] {SERVER_CPU} : new int[0]));
            ServerSample.Source side = ServerSample.Source.of(server);
            List<PingPeer> javaPeers = List.of(
                    new SysframePeer(REFERENCE, ClientOptions.defaults().send(best.clientSend()).recv(best.clientRecv())),
                    ChannelPeer.jdk("jdk-gather", ChannelPeer.Send.GATHER, true),
                    ChannelPeer.jdk("jdk-2write", ChannelPeer.Send.TWO_WRITES, false),
                    ChannelPeer.jnr("jnr", ChannelPeer.Send.COPY_ONE_WRITE, true));
            List<Cell.Probe> probes = new ArrayList<>();
            for (PingPeer p : javaPeers) {
                PeerThread t = f.peer(p, socket);
                t.onThread(() -> CpuPlacement.pinCurrentThread(CLIENT_CPU));
                probes.add(new ClientThreadsProbe(List.of(t), side));
            }
            List<CPeer> cPeers = List.of(new CPeer("c-split", "split", new CPeer.Options("block", CLIENT_CPU, 1, 1)),
                    new CPeer("c-sendmsg", "sendmsg", new CPeer.Options("block", CLIENT_CPU, 1, 1)),
                    new CPeer(C_LEAN, "sendmsg", CPeer.Options.lean("block", CLIENT_CPU, 1)));
            String serverSettings = "; server " + best.serverSend() + "/" + best.serverFlush().name().toLowerCase(java.util.Locale.ROOT)
                    + PairingTable.loops(serverLoops) + (serverLoops == 1 ? " on CPU " + SERVER_CPU : "") + ", client on CPU " + CLIENT_CPU;
            List<Cell> cells = new ArrayList<>();
            for (int payload : PAYLOADS) {
                for (int i = 0; i < javaPeers.size(); i++) {
                    cells.add(new Cell(javaPeers.get(i).name(), payload, javaPeers.get(i).framing() + serverSettings, calls, calls, probes.get(i)));
                }
                for (CPeer c : cPeers) cells.add(new Cell(c.name(), payload, c.describe() + serverSettings, calls, 0, c.probe(socket, side)));
            }
            List<Measurement> runs = RoundRunner.run(NAME, cells, rounds);
            return BenchTable.of(NAME, "Peers on one sysframe server", "peer", REFERENCE, true, rounds, cells, runs, List.of());
        }
    }
}
