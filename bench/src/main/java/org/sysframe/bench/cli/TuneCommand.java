package org.sysframe.bench.cli;

import org.sysframe.bench.explore.PairingSpec;
import org.sysframe.bench.explore.Payloads;
import org.sysframe.bench.explore.SweepParameter;
import org.sysframe.bench.explore.SweepSpec;
import org.sysframe.bench.explore.TuneDecision;
import org.sysframe.bench.explore.Workload;
import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Progress;
import org.sysframe.bench.measure.Spread;
import org.sysframe.bench.peer.Pairing;
import org.sysframe.bench.table.PairingTable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code sysframe tune}: a bounded search for this machine and a workload. Every candidate value of
 * each tuned parameter (one parameter changed at a time, the others at the library's defaults) runs
 * beside the defaults over the workload's sizes in one table of interleaved rounds; each candidate's
 * gain is the defaults' time per call of the workload over its own, round by round, and
 * {@link TuneDecision} says per parameter what to use, or that there is no clear winner.
 */
@Command(name = "tune", mixinStandardHelpOptions = true,
        description =
        "Recommend settings for this machine and a workload (payload sizes or a size histogram), with gains and "
                + "spreads.")
public final class TuneCommand implements Callable<Integer> {
    public static final String NAME = "tune";
    public static final String DEFAULTS = "default";

    /** The candidates: a few values of each parameter around the default, bounded so a run takes minutes. */
    static final List<SweepSpec> CANDIDATES = List.of(
            SweepSpec.parse("copy-threshold=256,4096,16384"),
            SweepSpec.parse("readahead=1024,65536"),
            SweepSpec.parse("flush=immediate,deferred"));

    /** The workload's sizes without --payloads or --histogram. */
    static final String DEFAULT_PAYLOADS = "32,1024,8192";

    @Option(names = "--payloads", description =
            "the workload's sizes, equally often; A,...,B doubles A up to B (default: " + DEFAULT_PAYLOADS + ")")
    String payloads;

    @Option(names = "--histogram", description = "the workload as a file of SIZE COUNT lines (instead of --payloads)")
    Path histogram;

    @Mixin
    QuickOption quickOption;

    @Mixin
    RoundsOption roundsOption;

    @Option(names = "--json", description = "print the decisions as JSON (for scripts) instead of text")
    boolean json;

    @Option(names = "--try", paramLabel = "PARAM=V1,...", description =
            "candidates instead of the built-in ones (repeatable, one"
            + " parameter each, at most " + MAX_CANDIDATES
                    + " values in all besides the defaults'): copy-threshold=256,4096")
    List<String> tries = new ArrayList<>();

    @Option(names = "--base", paramLabel = "SPEC", description =
            "the settings to improve on, as --pairing of matrix takes them"
            + " (default: the library's defaults)")
    String base = "sysframe";

    /** Candidate values at most (beside the defaults), so that a run stays within minutes. */
    static final int MAX_CANDIDATES = 8;

    @Override
    public Integer call() throws Exception {
        roundsOption.check();
        if (payloads != null && histogram != null) {
            throw new IllegalArgumentException("--payloads and --histogram: choose one (the histogram's sizes are the "
                    + "workload's)");
        }
        Pairing held = OptionValues.parse("--base", base, PairingSpec::parse).renamed(DEFAULTS,
                "the settings to improve on");
        List<SweepSpec> specs = specs(tries, held);
        Workload w = histogram != null ? Workload.histogram(histogram)
                : Workload.of(OptionValues.parse("--payloads", payloads == null ? DEFAULT_PAYLOADS : payloads,
                        Payloads::parse));
        // a value the held settings cannot take fails here, before anything runs
        List<Pairing> rows = candidates(held, specs);
        long started = System.nanoTime();
        // Twice the matrix's calls a cell: within the ~5 minutes with every candidate.
        BenchTable t = Progress.during(Progress.toStderr(NAME, 1, List.of()), () ->
                PairingTable.run(NAME, "tune: candidates beside the defaults",
                "setting", rows, DEFAULTS, w.sizes(), roundsOption.rounds, quickOption.quick, 1, 2));
        List<TuneDecision> decisions = decide(t, w, held, specs);
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.print(json ? TuneReport.json(w, t, decisions, held, seconds, quickOption.quick)
                : TuneReport.text(w, t, decisions, held, seconds, quickOption.quick));
        return 0;
    }

    /** The --try values as sweeps (the built-in candidates when there are none): each parameter once, bounded. */
    static List<SweepSpec> specs(List<String> tries, Pairing defaults) {
        if (tries.isEmpty()) return CANDIDATES.stream().filter(s -> applies(s, defaults)).toList();
        List<SweepSpec> out = new ArrayList<>();
        int values = 0;
        for (String t : tries) {
            SweepSpec s = OptionValues.parse("--try", t, x -> candidateSpec(x, defaults));
            if (out.stream().anyMatch(o -> o.parameter() == s.parameter())) {
                throw new IllegalArgumentException("--try: " + s.parameter().id
                        + " given twice; list its values in one --try");
            }
            out.add(s);
            values += s.values().size() - (s.values().contains(s.parameter().held(defaults)) ? 1 : 0);
        }
        if (values > MAX_CANDIDATES) throw new IllegalArgumentException("--try: " + values
                + " candidate values; at most " + MAX_CANDIDATES);
        return List.copyOf(out);
    }

    /**
     * Whether every value of s can be set on held (a copy threshold needs a copying send, a high-water mark a deferred
     * flush).
     */
    private static boolean applies(SweepSpec s, Pairing held) {
        try {
            s.pairings(held);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** PARAM=V1,... with the defaults' own value added when missing (a single candidate is fine here). */
    private static SweepSpec candidateSpec(String text, Pairing defaults) {
        int eq = text.indexOf('=');
        if (eq < 0) return SweepSpec.parse(text); // fails naming the forms
        SweepParameter p = SweepParameter.named(text.substring(0, eq).trim());
        String held = p.held(defaults);
        List<String> given = new ArrayList<>();
        for (String v : text.substring(eq + 1).split(",", -1)) given.add(v.isBlank() ? v : p.check(v.trim()));
        if (given.stream().allMatch(held::equals)) {
            throw new IllegalArgumentException(text + ": nothing but the defaults' own value (" + held
                    + "); name another");
        }
        return SweepSpec.parse(given.contains(held) ? text : text + "," + held);
    }

    /** The defaults first, then every candidate that differs from them. */
    static List<Pairing> candidates(Pairing held, List<SweepSpec> specs) {
        List<Pairing> out = new ArrayList<>(List.of(held));
        for (SweepSpec s : specs) {
            for (Pairing p : s.pairings(held)) {
                if (!p.name().equals(s.parameter().given(s.parameter().held(held)))) out.add(p);
            }
        }
        return out;
    }

    /** One decision per tuned parameter from the table's rounds. */
    static List<TuneDecision> decide(BenchTable t, Workload w, Pairing held, List<SweepSpec> specs) {
        List<TuneDecision> out = new ArrayList<>();
        for (SweepSpec s : specs) {
            SweepParameter p = s.parameter();
            Map<String, Spread> gains = new LinkedHashMap<>();
            for (String v : s.values()) {
                if (v.equals(p.held(held))) continue;
                gains.put(v, gain(t, w, p.given(v)));
            }
            out.add(TuneDecision.decide(p.id, p.held(held), gains));
        }
        return out;
    }

    /** The defaults' seconds per workload call over the row's, round by round. */
    public static Spread gain(BenchTable t, Workload w, String row) {
        double[] g = new double[t.rounds()];
        for (int r = 0; r < g.length; r++) g[r] =
                w.secondsPerCall(callsPerSecond(t, w, DEFAULTS, r)) / w.secondsPerCall(callsPerSecond(t, w, row, r));
        return Spread.of(g);
    }

    private static double[] callsPerSecond(BenchTable t, Workload w, String row, int round) {
        double[] c = new double[w.sizes().length];
        for (int i = 0; i < c.length; i++) c[i] = t.runs(row, w.sizes()[i]).get(round).callsPerSecond();
        return c;
    }

    /** The held pairing with every recommended value, or null when nothing is recommended. */
    static Pairing tuned(Pairing held, List<TuneDecision> decisions) {
        Pairing p = held;
        for (TuneDecision d : decisions) {
            if (d.recommended() != null) p = SweepParameter.named(d.parameter()).apply(p, d.recommended());
        }
        return p == held ? null : p.renamed("tuned", "recommended by tune");
    }
}
