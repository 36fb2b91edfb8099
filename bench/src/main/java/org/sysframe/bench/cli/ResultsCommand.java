package org.sysframe.bench.cli;

import org.sysframe.bench.measure.Goal;
import org.sysframe.bench.measure.GoalVerdict;
import org.sysframe.bench.report.GoalChart;
import org.sysframe.bench.report.Json;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code sysframe results --from bench/results/RUN/run.json}: the README's results from one run's
 * {@code run.json}, so that every figure in them comes from that run, which they name. Without
 * {@code --readme} it only prints: the README's block and the goals' list. With {@code --readme [FILE]}
 * (FILE default README.md) it writes, beside FILE, the goals' chart {@value #CHART} and the list of
 * every goal into {@value #GOALS_PAGE} (between {@link #GOALS_BEGIN} and {@link #GOALS_END}), and
 * replaces what lies between FILE's {@link #BEGIN} and {@link #END} lines with the chart and a few
 * lines naming the run; it changes nothing else, and nothing at all when a file lacks its markers.
 */
@Command(name = "results", mixinStandardHelpOptions = true,
        description = "Print the README's results (block and goal list) from one run's run.json (written by matrix);"
                + " --readme writes them: the README's block, docs/results.svg (the chart) and the goal list in"
                + " docs/results.md.")
final class ResultsCommand implements Callable<Integer> {
    static final String BEGIN = "<!-- results:begin (written by ./sysframe results --from RUN/run.json --readme;"
            + " do not edit by hand) -->";
    static final String END = "<!-- results:end -->";
    static final String GOALS_BEGIN = "<!-- goals:begin (written by ./sysframe results --from RUN/run.json --readme;"
            + " do not edit by hand) -->";
    static final String GOALS_END = "<!-- goals:end -->";
    /** Where the chart and the goals' list go, relative to the README's directory (and so linked from it). */
    static final String CHART = "docs/results.svg", GOALS_PAGE = "docs/results.md";
    /** The headings of {@value #GOALS_PAGE} the README's block links to. */
    static final String GOALS_ANCHOR = "the-goals-of-the-run-in-the-readme";
    static final String VM_ANCHOR = "how-to-read-the-goals-on-a-vm";

    /** The keys every run.json has (a table's JSON, also written by matrix, has goals but not these). */
    static final List<String> RUN_KEYS = List.of("run", "machine", "rounds", "seconds", "tally", "goals", "tables");

    @Option(names = "--from", required = true, paramLabel = "RUN.json", description = "the run.json of one matrix run")
    Path from;

    @Option(names = "--readme", arity = "0..1", fallbackValue = "README.md", paramLabel = "FILE",
            description = "write the results block of FILE (default when given alone: ${FALLBACK-VALUE}), and beside"
                    + " it " + CHART + " and the goal list of " + GOALS_PAGE + ", instead of printing them")
    Path readme;

    @Override
    public Integer call() throws IOException {
        if (Files.isDirectory(from)) {
            throw new IllegalArgumentException("--from " + from + ": a directory; give the run.json in it ("
                    + from.resolve("run.json") + ")");
        }
        String json;
        try {
            json = Files.readString(from);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("--from " + from
                    + ": no such file (matrix writes run.json into its output directory)");
        }
        Run run;
        String block, goals, chart;
        try {
            run = Run.of(Json.parse(json), from);
            block = block(run, CHART, GOALS_PAGE);
            goals = goals(run);
            chart = chart(run);
        } catch (IllegalArgumentException | ClassCastException | NullPointerException e) {
            throw new IllegalArgumentException("--from " + from + ": not a matrix run.json (" + e.getMessage() + ")");
        }
        if (readme == null) {
            System.out.print(block);
            System.out.println();
            System.out.print(goals);
            return 0;
        }
        Path dir = readme.toAbsolutePath().getParent();
        Path svg = dir.resolve(CHART), page = dir.resolve(GOALS_PAGE);
        // Every file read and checked before any is written: a missing marker changes nothing.
        String newReadme = replace(read(readme), BEGIN, END, block, readme.toString());
        String newPage = replace(read(page), GOALS_BEGIN, GOALS_END, goals, page.toString());
        Files.writeString(svg, chart);
        Files.writeString(readme, newReadme);
        Files.writeString(page, newPage);
        System.out.println("wrote the results block of " + readme + ", the chart " + svg + " and the goal list of "
                + page + " from " + from);
        return 0;
    }

    private static String read(Path file) throws IOException {
        try {
            return Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("--readme: " + file + ": no such file");
        }
    }

    /**
     * text with the lines from begin to end replaced by block; one line naming the fault when the markers
     * are not there once each.
     */
    static String replace(String text, String begin, String end, String block, String name) {
        int b = text.indexOf(begin), e = text.indexOf(end);
        if (b < 0 || e < b || text.indexOf(begin, b + 1) >= 0 || text.indexOf(end, e + 1) >= 0) {
            throw new IllegalArgumentException(name + ": expected one line '" + begin + "' and, after it, one line '"
                    + end + "'");
        }
        int after = e + end.length() + (text.startsWith("\n", e + end.length()) ? 1 : 0);
        return text.substring(0, b) + block + text.substring(after);
    }

    /**
     * One run.json as the results need it.
     *
     * @param goals every goal as written, in the run's order
     * @param rows  the same goals as the chart draws them
     */
    record Run(String id, String machine, String commit, long seconds, int rounds, boolean quick, String file,
               List<Map<String, Object>> goals, List<GoalChart.Row> rows) {
        @SuppressWarnings("unchecked")
        static Run of(Object parsed, Path from) {
            Map<String, Object> run = parsed instanceof Map<?, ?> ? (Map<String, Object>) parsed : Map.of();
            if (run.containsKey("table")) {
                throw new IllegalArgumentException("it is the JSON of the table " + run.get("table")
                        + "; run.json lies beside it");
            }
            if (!run.keySet().containsAll(RUN_KEYS)) {
                throw new IllegalArgumentException("it lacks the keys " + String.join(", ", RUN_KEYS));
            }
            List<Map<String, Object>> goals = (List<Map<String, Object>>) run.get("goals");
            if (goals == null || goals.isEmpty()) throw new IllegalArgumentException("it holds no goals");
            List<GoalChart.Row> rows = new ArrayList<>();
            for (Map<String, Object> g : goals) rows.add(GoalChart.row(g));
            Matcher commit = COMMIT.matcher(String.valueOf(run.get("reproduce")));
            return new Run(String.valueOf(run.get("run")), String.valueOf(run.get("machine")),
                    commit.find() ? commit.group(1) : null, Math.round(((Number) run.get("seconds")).doubleValue()),
                    ((Number) run.get("rounds")).intValue(), Boolean.TRUE.equals(run.get("quick")),
                    String.valueOf(from.getFileName()), goals, List.copyOf(rows));
        }

        private static final Pattern COMMIT = Pattern.compile("git commit: ([0-9a-f]{7,40})");

        /** The goals of one verdict. */
        long count(Goal.Status s) { return rows.stream().filter(r -> r.status() == s).count(); }

        /** e.g. {@code 26 met, 13 missed, 1 level, 7 not settled (of 47)}. */
        String tally() {
            return String.format(Locale.ROOT, "%d met, %d missed, %d level, %d not settled (of %d)",
                    count(Goal.Status.MET), count(Goal.Status.MISSED), count(Goal.Status.LEVEL),
                    count(Goal.Status.NOT_SETTLED), rows.size());
        }

        /** e.g. {@code git commit 6adaf41; 4 min 34 s; 8 interleaved rounds per cell, more for ...}. */
        String how() {
            return String.format(Locale.ROOT, "%s%s; %d min %02d s; %d interleaved rounds per cell, more for the cells"
                    + " of goals not yet settled; file `%s`", commit == null ? "commit not known" : "git commit "
                    + commit, quick ? ", --quick" : "", seconds / 60, seconds % 60, rounds, file);
        }
    }

    /** The chart of the run's goals, as written to {@value #CHART}. */
    static String chart(Run run) {
        return GoalChart.svg(run.rows(), "Run " + run.id()
                + ": every goal's estimate (dot) and 95 % interval (bar) against its threshold");
    }

    /**
     * The README's block, markers included: the chart (at chart, relative to the README) and a few lines
     * naming the run, its machine and its tally, with a link to the goals' list (page).
     */
    static String block(Run run, String chart, String page) {
        return BEGIN + "\n"
                + "![Every goal of run " + run.id() + " against its threshold](" + chart + ")\n\n"
                + wrapped("- ", "**Run** `" + run.id() + "`: " + run.how() + ".")
                + wrapped("- ", "**Machine**: " + run.machine() + ".")
                + wrapped("- ", "**Goals**: " + run.tally() + ".")
                + wrapped("- ", "Every goal with its figure, interval, rounds and verdict: [" + page + "](" + page + "#"
                        + GOALS_ANCHOR + "); why the count of missed and not settled goals differs between machines and"
                        + " runs: [on a VM](" + page + "#" + VM_ANCHOR + ").")
                + END + "\n";
    }

    /** The goals' list, markers included: the run, then per table one line per goal. */
    static String goals(Run run) {
        StringBuilder sb = new StringBuilder(GOALS_BEGIN).append('\n');
        sb.append(wrapped("", "From one run, `" + run.id() + "` (" + run.machine() + "; " + run.how() + "). Each goal:"
                + " the estimate and 95 % interval of its per-round figure, the rounds, the threshold, the verdict."
                + " Goals: " + run.tally() + "."));
        List<Object> tables = run.goals().stream().map(g -> g.get("table")).distinct().toList();
        for (Object table : tables) {
            sb.append("- **").append(table).append("**\n");
            for (Map<String, Object> g : run.goals()) {
                if (!g.get("table").equals(table)) continue;
                Object subject = g.get("subject"), versus = g.get("versus");
                String against = subject.equals(versus) ? (String) subject : subject + " vs " + versus;
                String unit = String.valueOf(g.get("want")).contains("x") ? "x" : "";
                String status = String.valueOf(g.get("status")).replace(" ", "\u00a0"); // NOT SETTLED on one line
                String needed = g.get("rounds_needed") == null ? ""
                        : " (about " + ((Number) g.get("rounds_needed")).longValue() + " rounds would settle it)";
                String line = "%s (%s): %s%s [%s-%s], %d rounds, want %s: **%s**%s";
                sb.append(wrapped("  - ", String.format(Locale.ROOT, line,
                        GoalChart.label((String) g.get("name"), ((Number) g.get("payload")).intValue()), against,
                        number(g.get("estimate")), unit, number(g.get("ci_lo")), number(g.get("ci_hi")),
                        ((Number) g.get("rounds")).intValue(), g.get("want"), status, needed)));
            }
        }
        return sb.append(GOALS_END).append('\n').toString();
    }

    /**
     * Markdown lines of at most {@value #WIDTH} columns: text after lead, its continuation lines indented as
     * deep. No line begins with a word Markdown would read as the start of something (a quote {@code >=}, a
     * list, a heading): such a word stays on the line of the word before it.
     */
    static String wrapped(String lead, String text) {
        StringBuilder sb = new StringBuilder();
        String indent = " ".repeat(lead.length()), glue = "\u00a0";
        String glued = text.replaceAll(" (?=[>#*+=`|<-]|\\d+[.)](?: |$))", glue);
        for (String line : GoalChart.wrap(glued, WIDTH - lead.length())) {
            sb.append(sb.isEmpty() ? lead : indent).append(line.replace(glue, " ")).append('\n');
        }
        return sb.toString();
    }

    /** The widest line the results write into the README and docs/results.md. */
    static final int WIDTH = 120;

    private static String number(Object v) {
        return v instanceof Number n ? GoalVerdict.number(n.doubleValue()) : "n/a";
    }
}
