package org.sysframe.bench.cli;

import org.sysframe.bench.explore.BenchRun;
import org.sysframe.bench.explore.Bisection;
import org.sysframe.bench.explore.PairingSpec;
import org.sysframe.bench.explore.Payloads;
import org.sysframe.bench.explore.Sweep;
import org.sysframe.bench.explore.SweepParameter;
import org.sysframe.bench.explore.SweepSpec;
import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.KernelCounters;
import org.sysframe.bench.measure.Progress;
import org.sysframe.bench.report.ResultFiles;
import org.sysframe.bench.report.TerminalReport;
import org.sysframe.bench.table.PairingTable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code sysframe sweep PARAM=V1,V2,...}: one parameter of a held pairing at each value, every value
 * over every payload size in interleaved rounds against embedded servers, with the crossover of two of
 * the values over the sizes; the same terminal table, CSV, JSON and HTML report as {@code matrix}.
 */
@Command(name = "sweep", mixinStandardHelpOptions = true,
        description =
        "Sweep one parameter (others held) over payload sizes, in interleaved rounds, and find where two values cross.")
public final class SweepCommand implements Callable<Integer> {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(arity = "1", paramLabel = "PARAM=V1,V2,...",
            description = "the parameter and its values: copy-threshold, readahead, high-water, depth, spin or flush")
    String sweep;

    @Option(names = "--payloads", description = "payload sizes; A,...,B doubles A up to B (default: ${DEFAULT-VALUE})")
    String payloads = "32,...,65536";

    @Option(names = "--base", description =
            "the held pairing, as --pairing of matrix takes it (default: the library's defaults, sysframe)")
    String base = "sysframe";

    @Option(names = "--crossover", description =
            "two values whose crossover over the sizes to find, e.g. 8192,256 (default: the first and last)")
    String crossover;

    @Option(names = "--bisect", paramLabel = "STEPS", description =
            "measure up to STEPS more sizes, each halfway (log2) between the"
            + " two the crossover's medians change side at (default: ${DEFAULT-VALUE})")
    int bisect = 0;

    @Mixin
    QuickOption quickOption;

    @Mixin
    RoundsOption roundsOption;

    @Option(names = "--out", description = "output directory (default: bench/results/sweep-<timestamp>)")
    Path out;

    @Override
    public Integer call() throws Exception {
        roundsOption.check();
        if (bisect < 0 || bisect > 8) throw new IllegalArgumentException("--bisect " + bisect + ": accepted 0..8");
        SweepSpec s = SweepSpec.parse(sweep);
        Sweep.Plan plan = new Sweep.Plan(s, OptionValues.parse("--base", base, PairingSpec::parse),
                OptionValues.parse("--payloads", payloads, Payloads::parse),
                OptionValues.parse("--crossover", crossover == null ? "" : crossover, c -> pair(s, c)),
                roundsOption.rounds, quickOption.quick);
        plan.pairings(); // a value the held pairing cannot take fails here, before anything runs
        if (out == null) out = ResultFiles.defaultDir(Sweep.NAME);
        ResultFiles.checkWritable("--out", out);
        long started = System.nanoTime();
        String reproduce = MachineInfo.reproduction("./sysframe "
                + String.join(" ", spec.commandLine().getParseResult().originalArgs()));
        BenchRun run = Progress.during(Progress.toStderr("sweep", 1, List.of()),
                () -> Bisection.refine(plan, run(plan, reproduce, started), bisect, started));
        System.out.print(TerminalReport.of(run));
        System.out.println(ResultFiles.wroteLine(out, ResultFiles.writeAll(run, out)));
        return 0;
    }

    /** Runs the plan's table and finds its crossover. */
    static BenchRun run(Sweep.Plan plan, String reproduce, long startedNanos) throws IOException {
        SweepParameter p = plan.spec().parameter();
        BenchTable t = PairingTable.run(Sweep.NAME, "sweep of " + p.id + ", held " + plan.held().name() + " ("
                + plan.held().framing() + ")",
                p.id, plan.pairings(), plan.spec().reference(plan.held()), plan.payloads(), plan.rounds(),
                        plan.quick(), 1, Sweep.CALLS_SCALE);
        return BenchRun.of(MachineInfo.describe(), plan.rounds(), plan.quick(),
                (System.nanoTime() - startedNanos) / 1e9, 1, List.of(t),
                KernelCounters.unavailable(), reproduce).withCrossovers(List.of(plan.crossover()));
    }

    /** The two rows of --crossover A,B (values of the sweep), or its first and last values when empty. */
    public static List<String> pair(SweepSpec s, String text) {
        List<String> values = s.values();
        if (text.isBlank()) return List.of(s.parameter().given(values.get(0)),
                s.parameter().given(values.get(values.size() - 1)));
        String[] v = text.split(",", -1);
        if (v.length != 2) throw new IllegalArgumentException("'" + text + "': expected two swept values, A,B");
        List<String> out = new ArrayList<>();
        for (String x : v) {
            String c = s.parameter().check(x.trim());
            if (!values.contains(c)) throw new IllegalArgumentException(c + " is not a swept value ("
                    + String.join(", ", values) + ")");
            out.add(s.parameter().given(c));
        }
        if (out.get(0).equals(out.get(1))) throw new IllegalArgumentException("'" + text
                + "': two different values, please");
        return out;
    }
}
