package org.sysframe.bench;

import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;
import org.sysframe.transport.WaitMode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The wait-and-placement table: how the client waits for its answer (block, spin, spin:50us, yield),
 * how the server loop waits (block, spin), and whether the two threads share one core or have one
 * each, for one client of the default pairing. Every run starts its own server and client and stops
 * them after it, so a spinning server of one cell burns no CPU while another cell is measured.
 */
final class WaitTable {
    private WaitTable() {}

    static final String NAME = "wait";
    static final String BASELINE = name("block", "block", false);

    /** One cell's settings: client wait, server wait, and placement. */
    record Setting(String client, String server, boolean sameCore) {}

    /** The cells that tell the story (the default run). */
    static final List<Setting> TELLING = List.of(
            new Setting("block", "block", false),
            new Setting("block", "block", true),
            new Setting("spin", "spin", false),
            new Setting("spin:50us", "spin", false),
            new Setting("yield", "block", true));

    /** Every combination (--full). */
    static List<Setting> grid() {
        List<Setting> all = new ArrayList<>();
        for (boolean same : new boolean[] {false, true}) {
            for (String server : new String[] {"block", "spin"}) {
                for (String client : new String[] {"block", "spin", "spin:50us", "yield"}) all.add(new Setting(client, server, same));
            }
        }
        return all;
    }

    static String name(String client, String server, boolean sameCore) {
        return client + "/" + server + (sameCore ? " 1 core" : " 2 cores");
    }

    /** Row-name prefix of the C client's cells: the same wait, server and placement as the row without it. */
    static final String C_PREFIX = "C ";

    static BenchTable run(List<Setting> settings, int[] payloads, int rounds, boolean quick) throws IOException {
        boolean cPeer = CPeer.available();
        Pairing p = Pairing.named("sysframe");
        Path dir = Files.createTempDirectory("sysframe-wait");
        try {
            List<Cell> cells = new ArrayList<>();
            for (int payload : payloads) {
                for (Setting s : settings) {
                    long calls = quick ? 2_000 : 10_000;
                    String socket = dir.resolve("wait-" + cells.size() + ".sock").toString();
                    String where = "client wait " + s.client + " on CPU " + clientCpu(s) + ", server loop wait " + s.server + " on CPU 0";
                    cells.add(new Cell(name(s.client, s.server, s.sameCore), payload, where + " (" + p.framing() + ")",
                            calls, calls / 4, probe(p, s, socket)));
                    if (cPeer) {
                        String cSocket = dir.resolve("wait-" + cells.size() + ".sock").toString();
                        cells.add(new Cell(C_PREFIX + name(s.client, s.server, s.sameCore), payload,
                                where + " (C client, one sendmsg, read-ahead 8192; server " + p.server(cSocket).freeze().send() + ")",
                                calls, calls / 4, cProbe(p, s, cSocket)));
                    }
                }
            }
            List<Measurement> runs = RoundRunner.run(NAME, cells, rounds);
            return BenchTable.of(NAME, "wait modes and placement (client/server, cores)", "wait", BASELINE, false, rounds, cells, runs, List.of());
        } finally {
            Files.deleteIfExists(dir);
        }
    }

    private static int clientCpu(Setting s) { return s.sameCore ? 0 : 1; }

    /** The C client's -W form of a wait mode: spin:N counts microseconds. */
    static String cWaitMode(String mode) {
        WaitMode m = WaitMode.parse(mode);
        return m.kind() == WaitMode.Kind.SPIN_THEN_BLOCK ? "spin:" + Math.max(1, m.spinNanos() / 1000) : m.toString();
    }

    /** A probe that starts the cell's server for one run and runs the C client in the same wait mode and placement. */
    private static Cell.Probe cProbe(Pairing p, Setting s, String socket) {
        CPeer peer = new CPeer("c-" + s.client, "sendmsg", new CPeer.Options(cWaitMode(s.client), clientCpu(s), 1, 1));
        return (cell, calls, round) -> {
            try (GroutServer server = GroutServer.start(p.server(socket).waitMode(WaitMode.parse(s.server)).cpus(0))) {
                try {
                    return peer.probe(socket, ServerSample.Source.of(server)).measure(cell, calls, round);
                } finally {
                    for (int i = 0; i < server.loopCount(); i++) KernelCounters.forget(server.loopThreadId(i));
                }
            }
        };
    }

    /** A probe that starts the cell's server and client for one run and stops them after it. */
    private static Cell.Probe probe(Pairing p, Setting s, String socket) {
        return (cell, calls, round) -> {
            ServerOptions so = p.server(socket).waitMode(WaitMode.parse(s.server)).cpus(0);
            ClientOptions co = p.client(socket).waitMode(WaitMode.parse(s.client)).cpu(clientCpu(s));
            try (GroutServer server = GroutServer.start(so);
                 PeerThread client = new PeerThread(new SysframePeer(cell.name(), co))) {
                try {
                    client.onThread(() -> client.peer().open(socket));
                    return new ClientThreadsProbe(List.of(client), ServerSample.Source.of(server)).measure(cell, calls, round);
                } finally {
                    KernelCounters.forget(client.tid());
                    for (int i = 0; i < server.loopCount(); i++) KernelCounters.forget(server.loopThreadId(i));
                }
            }
        };
    }
}
