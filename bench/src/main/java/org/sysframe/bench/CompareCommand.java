package org.sysframe.bench;

import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.GroutServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code sysframe compare}: the ping workload through the clients a user would pick instead of
 * sysframe's (the JDK's SocketChannel, jnr-unixsocket, a C client), all against one embedded sysframe
 * server, interleaved in rounds. Every peer's syscalls come from the kernel's counters of its thread
 * (or process).
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = "Compare sysframe's client with JDK SocketChannel, jnr-unixsocket and a C client on one server.")
final class CompareCommand implements Callable<Integer> {
    @Option(names = "--quick", description = "fewer calls per run")
    boolean quick;

    @Option(names = "--rounds", description = "interleaved rounds, at least 5 (default: ${DEFAULT-VALUE})")
    int rounds = 7;

    @Option(names = "--out", description = "output directory (default: bench/results/<timestamp>)")
    Path out;

    static final int[] PAYLOADS = {32, 1024};
    static final String REFERENCE = "sysframe";

    @Override
    public Integer call() throws Exception {
        if (rounds < 5) throw new IllegalArgumentException("--rounds must be at least 5");
        if (out == null) out = Path.of("bench", "results", LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        CompareResult r = run(rounds, quick);
        System.out.println();
        System.out.print(r.table());
        Files.createDirectories(out);
        Files.writeString(out.resolve("compare.json"), ReportWriter.compareJson(r));
        Files.writeString(out.resolve("compare.csv"), ReportWriter.compareCsv(r));
        System.out.println("wrote " + out.resolve("compare.csv") + ", compare.json");
        return 0;
    }

    static CompareResult run(int rounds, boolean quick) throws IOException {
        long calls = quick ? 2_000 : 20_000;
        Path dir = Files.createTempDirectory("sysframe-compare");
        String socket = dir.resolve("compare.sock").toString();
        Pairing best = Pairing.standard().get(3);
        List<PeerThread> javaPeers = new ArrayList<>();
        List<CPeer> cPeers = List.of(new CPeer("c-split", "split"), new CPeer("c-sendmsg", "sendmsg"));
        Map<String, String> framings = new LinkedHashMap<>();
        List<String> names = new ArrayList<>();
        try (GroutServer server = GroutServer.start(best.server(socket))) {
            javaPeers.add(new PeerThread(new SysframePeer(REFERENCE,
                    ClientOptions.defaults().send(best.clientSend()).recv(best.clientRecv()))));
            javaPeers.add(new PeerThread(ChannelPeer.jdk("jdk-gather", ChannelPeer.Send.GATHER, true)));
            javaPeers.add(new PeerThread(ChannelPeer.jdk("jdk-2write", ChannelPeer.Send.TWO_WRITES, false)));
            javaPeers.add(new PeerThread(ChannelPeer.jnr("jnr", ChannelPeer.Send.COPY_ONE_WRITE, true)));
            for (PeerThread p : javaPeers) {
                p.onThread(() -> p.peer().open(socket));
                names.add(p.peer().name());
                framings.put(p.peer().name(), p.peer().framing());
            }
            for (CPeer c : cPeers) {
                names.add(c.name());
                framings.put(c.name(), c.describe());
            }
            for (PeerThread p : javaPeers) {
                for (int payload : PAYLOADS) {
                    progress("warm-up " + p.peer().name() + " " + payload + " B");
                    p.measure(payload, calls, server);
                }
            }
            Map<String, Map<Integer, List<PeerRun>>> runs = new LinkedHashMap<>();
            for (int r = 1; r <= rounds; r++) {
                for (int payload : PAYLOADS) {
                    for (PeerThread p : javaPeers) {
                        progress(String.format(Locale.ROOT, "compare round %d/%d  %-10s %5d B", r, rounds, p.peer().name(), payload));
                        add(runs, p.measure(payload, calls, server));
                    }
                    for (CPeer c : cPeers) {
                        progress(String.format(Locale.ROOT, "compare round %d/%d  %-10s %5d B", r, rounds, c.name(), payload));
                        add(runs, c.measure(socket, payload, calls, server));
                    }
                }
            }
            Progress.done();
            return CompareResult.of(names, framings, PAYLOADS, rounds, runs, REFERENCE);
        } finally {
            KernelCounters.closeAll();
            for (PeerThread p : javaPeers) {
                try {
                    p.close();
                } catch (IOException e) {
                    System.err.println("closing " + p.peer().name() + ": " + e.getMessage());
                }
            }
            Files.deleteIfExists(Path.of(socket));
            Files.deleteIfExists(dir);
        }
    }

    private static void add(Map<String, Map<Integer, List<PeerRun>>> runs, PeerRun r) {
        runs.computeIfAbsent(r.peer(), k -> new LinkedHashMap<>()).computeIfAbsent(r.payload(), k -> new ArrayList<>()).add(r);
    }

    private static void progress(String what) {
        Progress.show(what);
    }
}
