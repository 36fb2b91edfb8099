package org.sysframe.bench.cli;

import org.sysframe.bench.explore.PairingSpec;
import org.sysframe.bench.explore.TuneDecision;
import org.sysframe.bench.explore.Workload;
import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.CellSummary;
import org.sysframe.bench.measure.Spread;
import org.sysframe.bench.peer.Pairing;
import org.sysframe.bench.report.Json;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** What {@code tune} prints: a few lines of text, or one JSON object for scripts. */
final class TuneReport {
    private TuneReport() {}

    static String text(Workload w, BenchTable t, List<TuneDecision> decisions, Pairing held, double seconds,
            boolean quick) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT,
                "tune on %s: %s; %d candidates beside the held settings (%s), %d interleaved rounds%s, %.0f s%n",
                MachineInfo.describe(), w.description(), t.names().size() - 1, held.framing(), t.rounds(), quick
                        ? " (quick)" : "", seconds));
        sb.append("gain = the held settings' time per call of the workload over the candidate's, per round: median "
                + "[min to max]\n");
        for (TuneDecision d : decisions) {
            sb.append(d.text()).append('\n');
            for (Map.Entry<String, Spread> c : d.candidates().entrySet()) {
                sb.append(String.format(Locale.ROOT, "  %s=%-10s %s%n", d.parameter(), c.getKey(),
                        TuneDecision.percent(c.getValue())));
            }
        }
        Pairing tuned = TuneCommand.tuned(held, decisions);
        sb.append(tuned == null ? "recommendation: keep the held settings (nothing beats them clearly here)\n"
                : "recommendation: --pairing " + PairingSpec.format(tuned) + "\n");
        return sb.toString();
    }

    static String json(Workload w, BenchTable t, List<TuneDecision> decisions, Pairing held, double seconds,
            boolean quick) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("machine", MachineInfo.describe());
        m.put("sizes", Arrays.stream(w.sizes()).boxed().toList());
        m.put("weights", Arrays.stream(w.weights()).boxed().toList());
        m.put("rounds", t.rounds());
        m.put("quick", quick);
        m.put("seconds", seconds);
        m.put("defaults", PairingSpec.format(held));
        List<Object> out = new ArrayList<>();
        for (TuneDecision d : decisions) {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("parameter", d.parameter());
            x.put("default", d.held());
            x.put("verdict", d.verdict().name().toLowerCase(Locale.ROOT));
            x.put("recommended", d.recommended());
            x.put("best", d.best());
            CellSummary.spread(x, "gain", d.gain());
            x.put("contenders", d.contenders());
            List<Object> cs = new ArrayList<>();
            for (Map.Entry<String, Spread> c : d.candidates().entrySet()) {
                Map<String, Object> y = new LinkedHashMap<>();
                y.put("value", c.getKey());
                CellSummary.spread(y, "gain", c.getValue());
                cs.add(y);
            }
            x.put("candidates", cs);
            x.put("text", d.text());
            out.add(x);
        }
        m.put("decisions", out);
        Pairing tuned = TuneCommand.tuned(held, decisions);
        m.put("pairing", tuned == null ? null : PairingSpec.format(tuned));
        return Json.write(m) + "\n";
    }
}
