package org.sysframe.bench.cli;

import org.sysframe.bench.measure.GoalVerdict;
import org.sysframe.bench.report.Json;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code sysframe results --from bench/results/RUN/run.json}: the README's "results at a glance"
 * written from one run's {@code run.json}, so that every figure in it comes from that run, which it
 * names. It prints the block; with {@code --readme [FILE]} (FILE default README.md) it replaces what lies
 * between the {@link #BEGIN} and {@link #END} lines of that file instead and changes nothing else.
 */
@Command(name = "results", mixinStandardHelpOptions = true,
        description = "Print the README's results block from one run's run.json (written by matrix); --readme writes it into the README.")
final class ResultsCommand implements Callable<Integer> {
    static final String BEGIN = "<!-- results:begin (written by ./sysframe results --from RUN/run.json --readme; do not edit by hand) -->";
    static final String END = "<!-- results:end -->";

    /** The keys every run.json has (a table's JSON, also written by matrix, has goals but not these). */
    static final List<String> RUN_KEYS = List.of("run", "machine", "rounds", "seconds", "tally", "goals", "tables");

    @Option(names = "--from", required = true, paramLabel = "RUN.json", description = "the run.json of one matrix run")
    Path from;

    @Option(names = "--readme", arity = "0..1", fallbackValue = "README.md", paramLabel = "FILE",
            description = "rewrite the results block of FILE (default when given alone: ${FALLBACK-VALUE}) instead of printing it")
    Path readme;


    @Override
    public Integer call() throws IOException {
        String json;
        try {
            json = Files.readString(from);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("--from " + from + ": no such file (matrix writes run.json into its output directory)");
        }
        String block;
        try {
            block = block(Json.parse(json), from);
        } catch (IllegalArgumentException | ClassCastException | NullPointerException e) {
            throw new IllegalArgumentException("--from " + from + ": not a matrix run.json (" + e.getMessage() + ")");
        }
        if (readme == null) {
            System.out.print(block);
            return 0;
        }
        String text = Files.readString(readme);
        Files.writeString(readme, replace(text, block, readme.toString()));
        System.out.println("wrote the results block of " + readme + " from " + from);
        return 0;
    }

    /** text with the lines from BEGIN to END replaced by block; one line naming the fault when the markers are not there once each. */
    static String replace(String text, String block, String name) {
        int b = text.indexOf(BEGIN), e = text.indexOf(END);
        if (b < 0 || e < b || text.indexOf(BEGIN, b + 1) >= 0 || text.indexOf(END, e + 1) >= 0) {
            throw new IllegalArgumentException(name + ": expected one line '" + BEGIN + "' and, after it, one line '" + END + "'");
        }
        return text.substring(0, b) + block + text.substring(e + END.length() + (text.startsWith("\n", e + END.length()) ? 1 : 0));
    }

    /** The block, markers included, from a parsed run.json. */
    @SuppressWarnings("unchecked")
    static String block(Object parsed, Path from) {
        Map<String, Object> run = parsed instanceof Map<?, ?> ? (Map<String, Object>) parsed : Map.of();
        if (run.containsKey("table")) throw new IllegalArgumentException("it is the JSON of the table " + run.get("table") + "; run.json lies beside it");
        if (!run.keySet().containsAll(RUN_KEYS)) throw new IllegalArgumentException("it lacks the keys " + String.join(", ", RUN_KEYS));
        List<Map<String, Object>> goals = (List<Map<String, Object>>) run.get("goals");
        if (goals == null || goals.isEmpty()) throw new IllegalArgumentException("it holds no goals");
        String reproduce = String.valueOf(run.get("reproduce"));
        Matcher commit = Pattern.compile("git commit: ([0-9a-f]{7,40})").matcher(reproduce);
        long seconds = Math.round(((Number) run.get("seconds")).doubleValue());
        StringBuilder sb = new StringBuilder(BEGIN).append('\n');
        sb.append(String.format(Locale.ROOT, "From one run, `%s` (%s; %s%s; %d min %02d s; %d interleaved rounds per cell, more for the"
                        + " cells of goals not yet settled; file `%s`). Each goal: the estimate and 95 %% interval of its per-round"
                        + " figure, the rounds, the threshold, the verdict. %s.%n",
                run.get("run"), run.get("machine"), commit.find() ? "git commit " + commit.group(1) : "commit not known",
                Boolean.TRUE.equals(run.get("quick")) ? ", --quick" : "", seconds / 60, seconds % 60,
                ((Number) run.get("rounds")).intValue(), from.getFileName(), capitalised(String.valueOf(run.get("tally")))));
        List<Object> tables = goals.stream().map(g -> g.get("table")).distinct().toList();
        for (Object table : tables) {
            sb.append("- **").append(table).append("**\n");
            for (Map<String, Object> g : goals) {
                if (!g.get("table").equals(table)) continue;
                String against = g.get("subject").equals(g.get("versus")) ? (String) g.get("subject") : g.get("subject") + " vs " + g.get("versus");
                String unit = String.valueOf(g.get("want")).contains("x") ? "x" : "";
                sb.append(String.format(Locale.ROOT, "  - %s (%s, %d B): %s%s [%s-%s], %d rounds, want %s: **%s**%s%n",
                        g.get("name"), against, ((Number) g.get("payload")).intValue(), number(g.get("estimate")), unit,
                        number(g.get("ci_lo")), number(g.get("ci_hi")), ((Number) g.get("rounds")).intValue(), g.get("want"), g.get("status"),
                        g.get("rounds_needed") == null ? "" : " (about " + ((Number) g.get("rounds_needed")).longValue() + " rounds would settle it)"));
            }
        }
        return sb.append(END).append('\n').toString();
    }

    private static String capitalised(String s) { return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1); }

    private static String number(Object v) {
        return v instanceof Number n ? GoalVerdict.number(n.doubleValue()) : "n/a";
    }
}
