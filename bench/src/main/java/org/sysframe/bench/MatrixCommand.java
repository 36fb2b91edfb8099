package org.sysframe.bench;

import org.sysframe.transport.GroutClient;
import org.sysframe.transport.GroutServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code sysframe matrix}: every standard pairing over every payload size against embedded servers,
 * in interleaved rounds, summarised as medians with spreads and ratios against the baseline.
 *
 * <p>The servers run in this JVM, one per pairing, each on its own event-loop thread: their loop
 * thread ids are then known, so the kernel counts and the on-CPU time of the server side are read
 * exactly, per thread, beside the client's. The cost is a shared heap and JIT; the loop threads do
 * not allocate per request, so the GC has nothing to do during a run.
 */
@Command(name = "matrix", mixinStandardHelpOptions = true,
        description = "Compare framing pairings over payload sizes against embedded servers, in interleaved rounds.")
final class MatrixCommand implements Callable<Integer> {
    @Option(names = "--quick", description = "fewer calls per cell (finishes in under a minute)")
    boolean quick;

    @Option(names = "--rounds", description = "interleaved rounds, at least 5 (default: ${DEFAULT-VALUE})")
    int rounds = 7;

    @Option(names = "--payloads", split = ",", description = "payload sizes (default: 0,32,1024,8192,65536)")
    int[] payloads = {0, 32, 1024, 8192, 65536};

    @Option(names = "--out", description = "output directory (default: bench/results/<timestamp>)")
    Path out;

    @Option(names = "--no-compare", description = "skip the peer comparison (JDK, jnr, C) that follows the matrix")
    boolean noCompare;

    @Override
    public Integer call() throws Exception {
        if (rounds < 5) throw new IllegalArgumentException("--rounds must be at least 5 (medians need them)");
        if (out == null) out = Path.of("bench", "results", LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        MatrixResult result = run(Pairing.standard(), payloads, rounds, quick);
        if (!noCompare) result = result.withCompare(CompareCommand.run(rounds, quick));
        System.out.println();
        System.out.print(ReportWriter.table(result));
        ReportWriter.writeAll(result, out);
        System.out.println("wrote " + out.resolve("results.csv") + ", results.json, "
                + (result.compare() != null ? "compare.csv, compare.json, " : "") + "report.html");
        return 0;
    }

    /** Calls per cell: enough for a stable median, fewer for big payloads. */
    static long callsFor(int payload, boolean quick) {
        long n = payload <= 1024 ? 20_000 : payload <= 8192 ? 10_000 : 3_000;
        return quick ? n / 10 : n;
    }

    static MatrixResult run(List<Pairing> pairings, int[] payloads, int rounds, boolean quick) throws IOException {
        Path dir = Files.createTempDirectory("sysframe-matrix");
        List<GroutServer> servers = new ArrayList<>();
        List<GroutClient> clients = new ArrayList<>();
        long started = System.nanoTime();
        try {
            for (Pairing p : pairings) {
                String path = dir.resolve(p.name() + ".sock").toString();
                servers.add(GroutServer.start(p.server(path)));
                clients.add(GroutClient.connect(p.client(path)));
            }
            // Warm-up: the JIT compiles every path that the measured rounds take.
            for (int i = 0; i < pairings.size(); i++) {
                for (int payload : payloads) {
                    progress("warm-up " + pairings.get(i).name() + " " + payload + " B");
                    PingRunner.run("warm-up", clients.get(i), false, payload, callsFor(payload, quick) / 2, servers.get(i));
                }
            }
            Map<String, List<PingResult>> cells = new LinkedHashMap<>();
            for (int r = 1; r <= rounds; r++) {
                for (int payload : payloads) {
                    for (int i = 0; i < pairings.size(); i++) {
                        Pairing p = pairings.get(i);
                        progress(String.format(Locale.ROOT, "round %d/%d  %-9s %6d B", r, rounds, p.name(), payload));
                        PingResult res = PingRunner.run(p.name(), clients.get(i), false, payload, callsFor(payload, quick), servers.get(i));
                        cells.computeIfAbsent(key(p.name(), payload), k -> new ArrayList<>()).add(res);
                    }
                }
            }
            Progress.done();
            List<CellSummary> summaries = new ArrayList<>();
            String base = pairings.get(0).name();
            for (Pairing p : pairings) {
                for (int payload : payloads) {
                    summaries.add(CellSummary.of(p.name(), payload, cells.get(key(p.name(), payload)), cells.get(key(base, payload))));
                }
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            return new MatrixResult(MachineInfo.describe(), pairings, payloads, rounds, quick, seconds, summaries,
                    PingRunner.kernelUnavailable(), null);
        } finally {
            KernelCounters.closeAll();
            for (GroutClient c : clients) c.close();
            for (GroutServer s : servers) s.close();
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    private static String key(String pairing, int payload) { return pairing + "/" + payload; }

    private static void progress(String what) {
        Progress.show(what);
    }
}
