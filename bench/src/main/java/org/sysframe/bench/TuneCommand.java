package org.sysframe.bench;

import picocli.CommandLine.Command;
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
        description = "Recommend settings for this machine and a workload (payload sizes or a size histogram), with gains and spreads.")
final class TuneCommand implements Callable<Integer> {
    static final String NAME = "tune";
    static final String DEFAULTS = "default";

    /** The candidates: a few values of each parameter around the default, bounded so a run takes minutes. */
    static final List<SweepSpec> CANDIDATES = List.of(
            SweepSpec.parse("copy-threshold=256,4096,16384"),
            SweepSpec.parse("readahead=1024,65536"),
            SweepSpec.parse("flush=immediate,deferred"));

    @Option(names = "--payloads", description = "the workload's sizes, equally often; A,...,B doubles A up to B (default: ${DEFAULT-VALUE})")
    String payloads = "32,1024,8192";

    @Option(names = "--histogram", description = "the workload as a file of SIZE COUNT lines (instead of --payloads)")
    Path histogram;

    @Option(names = "--quick", description = "a fifth of the calls per cell")
    boolean quick;

    @Option(names = "--rounds", description = "interleaved rounds, at least 5 (default: ${DEFAULT-VALUE})")
    int rounds = 7;

    @Option(names = "--json", description = "print the decisions as JSON (for scripts) instead of text")
    boolean json;

    @Override
    public Integer call() throws Exception {
        if (rounds < 5) throw new IllegalArgumentException("--rounds " + rounds + ": at least 5 (medians need them)");
        Workload w = histogram != null ? Workload.histogram(histogram)
                : Workload.of(OptionValues.parse("--payloads", payloads, Payloads::parse));
        long started = System.nanoTime();
        Pairing held = Pairing.defaults(DEFAULTS, "the library's defaults");
        BenchTable t = PairingTable.run(NAME, "tune: candidates beside the defaults", "setting", candidates(held), DEFAULTS,
                w.sizes(), rounds, quick, 1);
        List<TuneDecision> decisions = decide(t, w, held);
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.print(json ? TuneReport.json(w, t, decisions, held, seconds, quick) : TuneReport.text(w, t, decisions, held, seconds, quick));
        return 0;
    }

    /** The defaults first, then every candidate that differs from them. */
    static List<Pairing> candidates(Pairing held) {
        List<Pairing> out = new ArrayList<>(List.of(held));
        for (SweepSpec s : CANDIDATES) {
            for (Pairing p : s.pairings(held)) {
                if (!p.name().equals(s.parameter().given(s.parameter().held(held)))) out.add(p);
            }
        }
        return out;
    }

    /** One decision per tuned parameter from the table's rounds. */
    static List<TuneDecision> decide(BenchTable t, Workload w, Pairing held) {
        List<TuneDecision> out = new ArrayList<>();
        for (SweepSpec s : CANDIDATES) {
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
    static Spread gain(BenchTable t, Workload w, String row) {
        double[] g = new double[t.rounds()];
        for (int r = 0; r < g.length; r++) g[r] = w.secondsPerCall(callsPerSecond(t, w, DEFAULTS, r)) / w.secondsPerCall(callsPerSecond(t, w, row, r));
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
