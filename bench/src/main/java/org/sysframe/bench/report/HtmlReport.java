package org.sysframe.bench.report;

import org.sysframe.bench.explore.BenchRun;
import org.sysframe.bench.explore.Crossover;
import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.CellSummary;
import org.sysframe.bench.measure.Goal;
import org.sysframe.bench.measure.GoalVerdict;
import org.sysframe.bench.measure.Interval;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.Spread;
import org.sysframe.unix.SyscallCounts;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

import static org.sysframe.bench.report.ChartImages.esc;

/**
 * {@code report.html}: the goals with their verdicts and computed explanations, then every table of
 * the run with its charts ({@link TableCharts}: PNGs embedded inline) and its cells' settings.
 */
final class HtmlReport {
    private HtmlReport() {}

    static String of(BenchRun r) throws IOException {
        StringBuilder sb = new StringBuilder();
        sb.append("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>sysframe matrix</title>\n")
          .append("<style>body{font-family:sans-serif;margin:2em;max-width:1300px}")
          .append(" table{border-collapse:collapse;font-size:13px}")
          .append("td,th{border:1px solid #ccc;padding:3px 6px;text-align:right} td.l,th.l{text-align:left}")
          .append("img,svg{display:block;margin:1.5em 0;max-width:100%} svg.goals{height:auto}")
          .append(" .miss{color:#cf222e;font-weight:bold} .open{color:#b35900;font-weight:bold}")
          .append(" .ok{color:#1a7f37;font-weight:bold} .why{font-weight:normal;color:#333} details.goal{margin:2px 0}")
          .append(" details.goal p{margin:4px 1.5em} .fig{color:#444}")
          .append(" .vm{background:#f6f8fa;border-left:4px solid #b35900;padding:.3em 1em;max-width:60em}")
          .append("</style></head><body>\n")
          .append("<h1>sysframe benchmark").append(r.quick()
                  ? " (quick run: fewer calls per cell; make bench runs the full one)" : "")
          .append("</h1>\n<p>").append(esc(r.machine())).append("<br>")
          .append(r.rounds()).append(" interleaved rounds").append(r.quick() ? " (quick)" : "")
          .append(r.serverLoops() == 1 ? "" : ", " + r.serverLoops() + " server loops")
          .append(String.format(Locale.ROOT,
                  ", %.0f s. Medians over rounds; ratios taken per round. A goal is judged on the"
                  + " 95 %% interval of its per-round figure (Hodges-Lehmann estimate, Wilcoxon signed-rank interval, "
                          + "ratios on"
                  + " their logarithm): met when all of it clears the threshold, missed when none of it does, level "
                          + "when a"
                  + " \"level with\" goal's interval lies inside 1 ± its margin; rounds are added to the cells of a "
                          + "goal"
                  + " not settled until it settles or its table's share of the run's time for them is spent.</p>%n",
                  r.seconds()));
        if (r.reproduce() != null) sb.append("<p class=reproduce>To reproduce: ").append(esc(r.reproduce()))
                .append("</p>\n");
        if (!r.goals().isEmpty()) {
            sb.append("<h2>Verdict</h2>\n<p class=overall><b>").append(esc(TerminalReport.tally(r)))
                    .append("</b></p>\n");
            sb.append(ON_A_VM);
            goals(sb, r, null);
            sb.append(GoalChart.svg(GoalChart.rows(r.goals()),
                    "Every goal of this run: estimate (dot) and 95 % interval (bar) against its threshold"));
        }
        for (BenchTable t : r.tables()) table(sb, r, t);
        if (r.kernelUnavailable() != null) sb.append("<p>kernel counts unavailable: ")
                .append(esc(r.kernelUnavailable())).append("</p>\n");
        sb.append("</body></html>\n");
        return sb.toString();
    }

    /**
     * What a newcomer needs to read the verdicts of a run on a virtual machine: what "not settled" means,
     * and what makes the counts differ between machines and runs.
     */
    static final String ON_A_VM = "<div class=vm><h3>How to read this on a VM</h3>\n"
            + "<p><b>NOT SETTLED</b> is not a failure: the goal's 95 % interval still straddles its threshold when"
            + " the table's share of the added rounds' time ran out, so this run cannot tell which side it is on (the"
            + " line says about how"
            + " many rounds would settle it). A goal within a few per cent of its threshold often ends there.</p>\n"
            + "<p>How many goals come out missed or not settled varies between machine kinds and between runs of the"
            + " same machine. On a virtual machine the price of a sleep and a wake-up is the host's: it depends on the"
            + " CPU kind, on whether the guest polls before it halts (halt polling: the machine line above says), and"
            + " on where the virtual CPUs run at the moment (core placement, other guests); it can change for a"
            + " stretch of rounds or a whole run, which no interval over one run's rounds shows. Goals against a C"
            + " client or the C server measured in the same rounds see the same machine on both sides; goals against"
            + " a blocking row do not. The spread between runs and machines: docs/results.md of the repository.</p>"
            + "</div>\n";

    /** The kernel's count per call (median over the rounds), or "n/a" when it was not read. */
    private static String kernel(List<Measurement> runs, Function<Measurement, SyscallCounts> side) {
        if (runs.isEmpty() || runs.stream().anyMatch(m -> side.apply(m) == null)) return "n/a";
        return CellSummary.describe(Spread.medianPerCall(runs, side, Measurement::calls));
    }

    /**
     * One sentence: how the table's goals came out (and the first of them), or where there are none,
     * the row that did best against the reference with its spread.
     */
    static String headline(BenchRun run, BenchTable t) {
        List<GoalVerdict> goals = run.goals(t.name());
        if (!goals.isEmpty()) {
            long met = goals.stream().filter(g -> g.status() == Goal.Status.MET).count();
            long level = goals.stream().filter(g -> g.status() == Goal.Status.LEVEL).count();
            long missed = goals.stream().filter(g -> g.status() == Goal.Status.MISSED).count();
            return "Verdict: " + met + " of " + goals.size() + " goals met, " + level + " level, " + missed
                    + " missed, "
                    + (goals.size() - met - level - missed) + " not settled. " + goals.get(0).line();
        }
        CellSummary best = null;
        for (CellSummary c : t.rows()) {
            if (c.name().equals(t.reference())) continue;
            Spread x = t.shownRatio(c);
            if (best == null || x.median() > t.shownRatio(best).median()) best = c;
        }
        if (best == null) return "One row: nothing to compare.";
        Interval x = t.referenceOverRow() ? best.referenceRatioCi() : best.ratioCi();
        return String.format(Locale.ROOT, "Best against %s: %s at %d B, %.3fx [%.3f-%.3f] (95 %% interval).",
                t.reference(), best.name(), best.payload(), x.estimate(), x.lo(), x.hi());
    }

    /**
     * The goals of one table (or all when table is null), one compact line each (verdict, name,
     * figure with its interval, threshold), the explanation folded under it.
     */
    private static void goals(StringBuilder sb, BenchRun r, String table) {
        sb.append("<div class=goals>");
        for (GoalVerdict g : table == null ? r.goals() : r.goals(table)) {
            String cls = switch (g.status()) {
                case MET, LEVEL -> "ok";
                case NOT_SETTLED -> "open";
                case MISSED -> "miss";
            };
            String against = g.goal().subject().equals(g.goal().versus()) ? g.goal().subject() : g.goal().subject()
                    + " vs " + g.goal().versus();
            sb.append("<details class=goal><summary><span class=").append(cls).append('>')
                    .append(esc(g.status().label()))
              .append("</span> ").append(esc(GoalChart.label(g.goal().name(), g.goal().payload())))
              .append(" <span class=fig>").append(esc(g.goal().metric().label()))
              .append(' ').append(esc(g.figure())).append(", want ").append(esc(g.goal().want()))
                      .append("</span></summary>")
              .append("<p>").append(esc(g.line())).append("</p>");
            if (g.explanation() != null) sb.append("<p class=why>").append(esc(g.explanation())).append("</p>");
            else sb.append(String.format(Locale.ROOT,
                    "<p class=why>%s at %d B; per round: min %s, median %s, max %s.</p>", esc(against),
                    g.goal().payload(), GoalVerdict.number(g.value().min()), GoalVerdict.number(g.value().median()),
                    GoalVerdict.number(g.value().max())));
            sb.append("</details>\n");
        }
        sb.append("</div>\n");
    }

    private static void table(StringBuilder sb, BenchRun run, BenchTable t) throws IOException {
        sb.append("<h2>").append(esc(t.title())).append("</h2>\n<p>").append(t.rounds()).append(" interleaved rounds. ")
          .append(t.referenceOverRow() ? "Ratios are " + esc(t.reference())
                  + "'s client over the peer, per round. Peer syscalls come"
                  + " from the kernel's counters of the peer's thread (or process)." : "Ratios vs "
                          + esc(t.reference()) + ", per round.")
          .append("</p>\n");
        sb.append("<p class=headline><b>").append(esc(headline(run, t))).append("</b></p>\n");
        for (String note : t.notes()) sb.append("<p>note: ").append(esc(note)).append("</p>\n");
        for (Crossover c : run.crossovers(t.name())) sb.append("<p class=crossover><b>crossover:</b> ")
                .append(esc(c.text())).append("</p>\n");
        TableCharts.append(sb, run, t);
        sb.append("<table><tr><th class=l>").append(esc(t.rowKind())).append("</th><th>bytes</th><th>calls/s</th><th>")
          .append(t.referenceOverRow() ? esc(t.reference()) + "/" + esc(t.rowKind()) : "ratio")
                  .append(" [95 % interval]</th><th>rounds</th>")
          .append("<th>CPU ratio</th><th>p50 us</th><th>p99 us</th><th>client us/call</th><th>server us/call</th>")
          .append("<th class=l>client syscalls/call</th><th class=l>client, kernel's count</th><th class=l>server "
                  + "syscalls/call</th>")
          .append("<th class=l>server, kernel's count</th><th>library = kernel</th><th class=l>cpus</th></tr>\n");
        for (int payload : t.payloads()) {
            for (String name : t.names()) {
                CellSummary x = t.row(name, payload);
                if (x == null) continue;
                Interval ratio = t.referenceOverRow() ? x.referenceRatioCi() : x.ratioCi();
                double cpuRatio = t.referenceOverRow() ? x.clientCpuReferenceRatio().median() : x.cpuRatio().median();
                List<Measurement> runs = t.runs(name, payload);
                sb.append(String.format(Locale.ROOT,
                        "<tr><td class=l>%s</td><td>%d</td><td>%.0f</td><td>%.3f "
                        + "[%.3f-%.3f]</td><td>%d</td><td>%.3f</td><td>%.1f</td><td>%.1f</td><td>%.2f</td><td>%.2f</td>"
                        + "<td class=l>%s</td><td class=l>%s</td><td class=l>%s</td><td class=l>%s</td><td>%s</td>"
                        + "<td class=l>%s</td></tr>%n",
                        esc(name), payload, x.callsPerSec().median(), ratio.estimate(), ratio.lo(), ratio.hi(),
                                x.rounds(),
                        cpuRatio, x.p50Micros().median(), x.p99Micros().median(), x.clientCpuMicros().median(),
                        x.serverCpuMicros().median(), esc(CellSummary.describe(x.clientSyscalls())),
                        esc(kernel(runs, Measurement::clientKernel)), esc(CellSummary.describe(x.serverSyscalls())),
                        esc(kernel(runs, Measurement::serverKernel)), x.kernelColumn(), esc(x.cpus())));
            }
        }
        sb.append("</table>\n<ul>");
        for (String n : t.names()) {
            StringBuilder calls = new StringBuilder();
            for (Cell c : t.cells()) {
                if (c.name().equals(n)) calls.append(calls.isEmpty() ? "" : ", ")
                        .append(String.format(Locale.ROOT, "%,d at %d B", c.calls(), c.payload()));
            }
            sb.append("<li><b>").append(esc(n)).append("</b>: ").append(esc(t.settings(n))).append("; calls per run: ")
                    .append(calls).append("</li>");
        }
        sb.append("</ul>\n");
        if (!run.goals(t.name()).isEmpty()) {
            sb.append("<h3>Goals on this table</h3>");
            goals(sb, run, t.name());
        }
    }
}
