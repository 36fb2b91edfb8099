package org.sysframe.bench.cli;

import org.sysframe.bench.explore.BenchRun;
import org.sysframe.bench.explore.PairingSpec;
import org.sysframe.bench.measure.AddedTime;
import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Goal;
import org.sysframe.bench.measure.KernelCounters;
import org.sysframe.bench.measure.Progress;
import org.sysframe.bench.measure.RoundRunner;
import org.sysframe.bench.peer.FileLimit;
import org.sysframe.bench.peer.Pairing;
import org.sysframe.bench.report.ResultFiles;
import org.sysframe.bench.report.TerminalReport;
import org.sysframe.bench.table.Table;
import org.sysframe.bench.table.TableRun;
import org.sysframe.bench.table.Tables;
import org.sysframe.transport.wire.GroutApi;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code sysframe matrix}: the tables of {@link Tables#MATRIX} in their order (the pairings table, every
 * standard pairing over every payload size, first), or those {@code --tables} names or {@code --skip}
 * leaves, each through {@link RoundRunner} against embedded servers (the scale table's: servers in
 * processes of their own), with their goals evaluated on them.
 *
 * <p>The servers run in this JVM, so their loop thread ids are known: the kernel counts and the
 * on-CPU time of the server side are read exactly, per loop thread, beside the client's. The loop
 * threads do not allocate per request, so the shared heap costs them nothing during a run.
 */
@Command(name = "matrix", mixinStandardHelpOptions = true,
        description = "Compare framing pairings over payload sizes against embedded servers, in interleaved rounds.")
public final class MatrixCommand implements Callable<Integer> {
    /** Rounds every cell runs before any is added. */
    public static final int DEFAULT_ROUNDS = 8;
    /**
     * Seconds of added rounds for the whole run, shared by its tables ({@link AddedTime}): make bench measured 4 min
     * 09 s with it on a slow day of this machine (2026-12-05), where 30 s for each table took 5 min 04 s.
     */
    static final double DEFAULT_BUDGET_SECONDS = 100;
    /** The same with --quick. */
    static final double QUICK_BUDGET_SECONDS = 15;
    /** Round cap per table; the statistics tests' budget (VerdictSimulationTest). */
    public static final int DEFAULT_MAX_ROUNDS = 1024;
    /** Calls per run as a factor of the tables' own counts (bench/README.md: width per second of measuring). */
    static final double DEFAULT_ROUND_LENGTH = 0.1;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--quick", description = "fewer calls per cell (finishes in under a minute)")
    boolean quick;

    @Option(names = "--rounds", description =
            "interleaved rounds every cell runs, at least 6 (a 95 %% interval needs them);"
            + " rounds are then added to the cells of unsettled goals (default: ${DEFAULT-VALUE})")
    int rounds = DEFAULT_ROUNDS;

    @Option(names = "--budget", paramLabel = "SECONDS",
            description =
            "the run's time for the rounds added while a goal is not settled, shared by the tables in turn (each may"
                    + " use what is left over the tables still to come); 0 adds none (default: "
                    + (int) DEFAULT_BUDGET_SECONDS + ", with --quick " + (int) QUICK_BUDGET_SECONDS + ")")
    Double budget;

    @Option(names = "--max-rounds", description =
            "round cap per table, initial rounds included (default: ${DEFAULT-VALUE})")
    int maxRounds = DEFAULT_MAX_ROUNDS;

    @Option(names = "--round-length", paramLabel = "FACTOR",
            description =
            "calls per run of a cell, as a factor of each table's own count (default: ${DEFAULT-VALUE}, chosen from"
                    + " measurement: bench/README.md)")
    double roundLength = DEFAULT_ROUND_LENGTH;

    @Option(names = "--payloads", split = ",", description = "payload sizes (default: 0,32,1024,8192,65536)")
    int[] payloads = {0, 32, 1024, 8192, 65536};

    @Mixin
    OutOption outOption;

    @Option(names = "--tables", split = ",", paramLabel = "NAME", completionCandidates = TableNames.class,
            description = "run only these tables, in the matrix's order (of: ${COMPLETION-CANDIDATES})")
    List<String> only = new ArrayList<>();

    @Option(names = "--skip", split = ",", paramLabel = "NAME", completionCandidates = TableNames.class,
            description = "run every table but these")
    List<String> skip = new ArrayList<>();

    @Option(names = "--full", description =
            "the whole grid of every table (wait modes: 4 client x 2 server modes x 1 or 2 cores x 32 and 1024 B;"
            + " scale: epoll and io_uring with 1 and 2 loops, up to 100,000 connections; concurrency: the one-per-read "
                    + "rows of 8 callers"
            + " and of C on 1 connection)")
    boolean full;

    @Option(names = "--pairing", paramLabel = "SPEC",
            description =
            "a pairing to run instead of the built-in four (repeatable): name=NAME[,KEY=VALUE...] with keys"
                    + " base, client-send, client-recv, server-send, flush, high-water, wait, cpu, server-cpu, depth; "
                            + "or a built-in name")
    List<String> pairingSpecs = new ArrayList<>();

    @Option(names = "--baseline", paramLabel = "NAME", description =
            "the pairing ratios are taken against (default: the first)")
    String baseline;

    @Option(names = "--crossover", paramLabel = "A,B", description =
            "two pairings whose crossover over the payload sizes to report (repeatable)")
    List<String> crossovers = new ArrayList<>();

    @Mixin
    PeersOptions peers;

    @Override
    public Integer call() throws Exception {
        if (quick
                && full) throw new IllegalArgumentException("--quick and --full: choose one (--quick shortens every "
                        + "table, --full runs its whole grid)");
        if (rounds < 6) throw new IllegalArgumentException("--rounds " + rounds
                + ": at least 6 (a 95 % interval needs them)");
        if (budget == null) budget = quick ? QUICK_BUDGET_SECONDS : DEFAULT_BUDGET_SECONDS;
        if (!(budget >= 0) || budget > 3600) throw new IllegalArgumentException("--budget " + budget
                + ": expected 0..3600 seconds");
        if (maxRounds < rounds || maxRounds > 4096) {
            throw new IllegalArgumentException("--max-rounds " + maxRounds + ": expected --rounds (" + rounds
                    + ")..4096");
        }
        if (!(roundLength >= 0.01) || roundLength > 10) {
            throw new IllegalArgumentException("--round-length " + roundLength + ": expected a factor 0.01..10");
        }
        int peerForks = peers.checkedForks(quick);
        int serverLoops = peers.serverLoops;
        List<Table> selected = Tables.MATRIX.select(only, skip);
        for (int p : payloads) {
            if (p < 0 || p > GroutApi.MAX_MSG_LEN) {
                throw new IllegalArgumentException("--payloads " + p
                        + ": each size must be 0..131072 bytes (GR_API_MAX_MSG_LEN)");
            }
        }
        List<Pairing> pairings = pairings(pairingSpecs);
        List<String> names = pairings.stream().map(Pairing::name).toList();
        String reference = baseline == null ? names.get(0) : baseline;
        if (!names.contains(reference)) {
            throw new IllegalArgumentException("--baseline " + reference + ": no such pairing ("
                    + String.join(", ", names) + ")");
        }
        List<List<String>> pairs = new ArrayList<>();
        for (String c : crossovers) pairs.add(OptionValues.parse("--crossover", c, x -> crossoverPair(x, names)));
        Path out = outOption.dir();
        // Many connections need many descriptors: the soft limit up to the hard one, for this JVM and what it starts.
        System.err.println(FileLimit.raise().describe());
        long started = System.nanoTime();
        List<Goal> goals = Tables.MATRIX.goals();
        AddedTime added = AddedTime.of(budget);
        TableRun settings = new TableRun(rounds, quick, full, serverLoops, payloads, pairings, reference, peerForks,
                new RoundRunner.Plan(goals, added, maxRounds, roundLength));
        List<BenchTable> tables = Progress.during(Progress.toStderr("matrix", selected.size(), goals), () -> {
            List<BenchTable> ran = new ArrayList<>();
            for (int i = 0; i < selected.size(); i++) {
                int withGoals = withGoalsFrom(selected, i);
                if (withGoals > 0) added.table(withGoals); // the share of a table without goals goes unused
                ran.add(selected.get(i).run(settings));
            }
            return ran;
        });
        BenchRun run = BenchRun.of(MachineInfo.describe(), rounds, quick, (System.nanoTime() - started) / 1e9,
                serverLoops, tables, KernelCounters.unavailable(),
                MachineInfo.reproduction("./sysframe " + String.join(" ",
                        spec.commandLine().getParseResult().originalArgs())))
                .withCrossovers(pairs);
        System.out.print(TerminalReport.of(run));
        System.out.println(ResultFiles.wroteLine(out, ResultFiles.writeAll(run, out)));
        return 0;
    }

    /**
     * The tables from tables[from] on that have goals: those that share the run's added-rounds time from there
     * ({@link AddedTime#table}).
     */
    static int withGoalsFrom(List<Table> tables, int from) {
        return (int) tables.subList(from, tables.size()).stream().filter(t -> !t.goals().isEmpty()).count();
    }

    /** The tables' names, for --help and shell completion. */
    static final class TableNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() { return Tables.MATRIX.names().iterator(); }
    }

    /** The pairings of the --pairing values, or the built-in four when there are none; each name once. */
    static List<Pairing> pairings(List<String> specs) {
        if (specs.isEmpty()) return Pairing.standard();
        List<Pairing> out = new ArrayList<>();
        for (String s : specs) {
            Pairing p = OptionValues.parse("--pairing", s, PairingSpec::parse);
            if (out.stream().anyMatch(q -> q.name().equals(p.name()))) {
                throw new IllegalArgumentException("--pairing: name " + p.name() + " given twice");
            }
            out.add(p);
        }
        return out;
    }

    /** A,B: two different pairings of names. */
    static List<String> crossoverPair(String text, List<String> names) {
        String[] v = text.split(",", -1);
        if (v.length != 2 || v[0].equals(v[1])) throw new IllegalArgumentException("'" + text
                + "': expected two different pairings, A,B");
        for (String n : v) {
            if (!names.contains(n)) throw new IllegalArgumentException(n + " is no pairing of this run ("
                    + String.join(", ", names) + ")");
        }
        return List.of(v[0], v[1]);
    }
}
