package org.sysframe.bench.report;

import org.sysframe.bench.explore.BenchRun;
import org.sysframe.bench.explore.Crossover;
import org.sysframe.bench.explore.Sweep;
import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.CellSummary;
import org.sysframe.bench.measure.Goal;
import org.sysframe.bench.measure.GoalVerdict;
import org.sysframe.bench.measure.Interval;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.table.PairingTable;
import org.sysframe.bench.table.PeerTable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes a bench run's files: per table a CSV of its summary rows and a JSON with its rows, every
 * round's raw figures and its goals ({@code results.*} for the matrix, {@code compare.*} for the peers,
 * {@code server-loops.*}), and {@code report.html} when the matrix is there.
 */
public final class ResultFiles {
    private ResultFiles() {}

    /** The base file name of a table's CSV and JSON. */
    static String baseName(BenchTable t) {
        return switch (t.name()) {
            case PairingTable.NAME -> "results";
            case PeerTable.NAME -> "compare";
            default -> t.name();
        };
    }

    /** bench/results/PREFIX-yyyyMMdd-HHmmss. */
    public static Path defaultDir(String prefix) {
        return Path.of("bench", "results", prefix + "-" + LocalDateTime.now().format(
                DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    }

    /**
     * Refuses dir, in one line naming option, when the files could not be written there: a path that
     * is not a directory, or under one that is not, or in a directory this user cannot write (checked at
     * the nearest one that exists; nothing is created), so that a run fails before it measures, not after.
     */
    public static void checkWritable(String option, Path dir) {
        Path at = dir.toAbsolutePath().normalize();
        while (!Files.exists(at) && at.getParent() != null) at = at.getParent();
        String where = at.equals(dir.toAbsolutePath().normalize()) ? "" : " (at " + at + ")";
        if (!Files.isDirectory(at)) throw new IllegalArgumentException(option + " " + dir + ": not a directory"
                + where);
        if (!Files.isWritable(at)) throw new IllegalArgumentException(option + " " + dir
                + ": not writable by this user" + where);
    }

    /**
     * The one line saying where the files went, e.g. {@code wrote bench/results/RUN/: report.html, run.json,
     * and a CSV and a JSON per table (9 tables)}; a run of one table names its two files.
     */
    public static String wroteLine(Path dir, List<String> files) {
        List<String> whole = files.stream().filter(f -> !f.endsWith(".csv") && !f.endsWith(".json")
                || f.equals("run.json")).toList();
        List<String> perTable = files.stream().filter(f -> !whole.contains(f)).toList();
        List<String> named = new ArrayList<>(whole.reversed()); // report.html first
        if (perTable.size() <= 2) named.addAll(perTable);
        else named.add("and a CSV and a JSON per table (" + perTable.size() / 2 + " tables)");
        return "wrote " + dir + "/: " + String.join(", ", named);
    }

    /** Writes every file; returns their names. */
    public static List<String> writeAll(BenchRun run, Path dir) throws IOException {
        Files.createDirectories(dir);
        List<String> names = new ArrayList<>();
        for (BenchTable t : run.tables()) {
            String base = baseName(t);
            Files.writeString(dir.resolve(base + ".csv"), csv(t));
            Files.writeString(dir.resolve(base + ".json"), json(run, t));
            names.add(base + ".csv");
            names.add(base + ".json");
        }
        if (!run.goals().isEmpty()) {
            Files.writeString(dir.resolve("run.json"), runJson(run, dir));
            names.add("run.json");
        }
        if (run.table(PairingTable.NAME) != null || run.table(Sweep.NAME) != null) {
            Files.writeString(dir.resolve("report.html"), HtmlReport.of(run));
            names.add("report.html");
        }
        return names;
    }

    static String csv(BenchTable t) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (CellSummary c : t.rows()) rows.add(c.toMap(t.rowKind(), t.reference()));
        StringBuilder sb = new StringBuilder();
        List<String> header = null;
        for (Map<String, Object> m : rows) {
            if (header == null) {
                header = new ArrayList<>(m.keySet());
                sb.append(String.join(",", header)).append('\n');
            }
            List<String> row = new ArrayList<>();
            for (String k : header) {
                Object v = m.get(k);
                String s = v instanceof Double d ? String.format(Locale.ROOT, "%.6g", d) : String.valueOf(v);
                row.add(s.contains(",") || s.contains(";") ? "\"" + s + "\"" : s);
            }
            sb.append(String.join(",", row)).append('\n');
        }
        return sb.toString();
    }

    /** One table: the run's header, the cells' settings, summary rows, every raw run, and the goals. */
    static String json(BenchRun run, BenchTable t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("machine", run.machine());
        m.put("table", t.name());
        m.put("title", t.title());
        m.put("rounds", t.rounds());
        m.put("quick", run.quick());
        m.put("seconds", run.seconds());
        m.put("server_loops", run.serverLoops());
        m.put("reference", t.reference());
        List<Object> cells = new ArrayList<>();
        for (String n : t.names()) {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("name", n);
            c.put("settings", t.settings(n));
            cells.add(c);
        }
        m.put(t.rowKind() + "s", cells);
        List<Object> rows = new ArrayList<>();
        for (CellSummary c : t.rows()) rows.add(c.toMap(t.rowKind(), t.reference()));
        m.put("cells", rows);
        List<Object> raw = new ArrayList<>();
        for (Measurement r : t.runs()) raw.add(r.toMap());
        m.put("runs", raw);
        List<Object> goals = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        for (GoalVerdict g : run.goals(t.name())) {
            goals.add(goalMap(g));
            lines.add(g.text());
        }
        m.put("goals", goals);
        m.put("targets", lines);
        m.put("notes", t.notes());
        List<Object> crossovers = new ArrayList<>();
        for (Crossover c : run.crossovers(t.name())) crossovers.add(crossoverMap(c));
        m.put("crossovers", crossovers);
        m.put("kernel_unavailable", run.kernelUnavailable());
        return Json.write(m) + "\n";
    }

    /**
     * The whole run in one file, what {@code ./sysframe results} reads: the run's header, every goal
     * with its interval and verdict, the tally, and every table's summary rows.
     */
    static String runJson(BenchRun run, Path dir) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("run", dir.getFileName() == null ? dir.toString() : dir.getFileName().toString());
        m.put("machine", run.machine());
        m.put("rounds", run.rounds());
        m.put("quick", run.quick());
        m.put("seconds", run.seconds());
        m.put("server_loops", run.serverLoops());
        m.put("reproduce", run.reproduce());
        m.put("tally", TerminalReport.tally(run));
        List<Object> goals = new ArrayList<>();
        for (GoalVerdict g : run.goals()) goals.add(goalMap(g));
        m.put("goals", goals);
        Map<String, Object> tables = new LinkedHashMap<>();
        for (BenchTable t : run.tables()) {
            List<Object> rows = new ArrayList<>();
            for (CellSummary c : t.rows()) rows.add(c.toMap(t.rowKind(), t.reference()));
            Map<String, Object> tm = new LinkedHashMap<>();
            tm.put("title", t.title());
            tm.put("reference", t.reference());
            tm.put("row_kind", t.rowKind());
            tm.put("cells", rows);
            tables.put(t.name(), tm);
        }
        m.put("tables", tables);
        return Json.write(m) + "\n";
    }

    private static Map<String, Object> crossoverMap(Crossover c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("a", c.a());
        m.put("b", c.b());
        m.put("outcome", c.outcome().name().toLowerCase(Locale.ROOT));
        m.put("leader", c.leader());
        m.put("follower", c.follower());
        boolean crosses = c.outcome() == Crossover.Outcome.CROSSES;
        m.put("clear_from", crosses ? c.clearFrom() : null);
        m.put("clear_to", crosses ? c.clearTo() : null);
        m.put("sizes_overlapping_between", crosses ? c.ties() : null);
        m.put("medians_between", crosses ? List.of(c.below(), c.above()) : null);
        m.put("estimate", crosses ? Math.round(c.estimate()) : null);
        m.put("recrosses", c.recrosses());
        m.put("median_side_changes", c.medianChanges());
        m.put("text", c.text());
        return m;
    }

    private static Map<String, Object> goalMap(GoalVerdict g) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", g.goal().name());
        m.put("subject", g.goal().subject());
        m.put("versus", g.goal().versus());
        m.put("payload", g.goal().payload());
        m.put("metric", g.goal().metric().label());
        m.put("want", g.goal().want());
        m.put("table", g.goal().table());
        m.put("kind", g.goal().isLevel() ? "level" : g.goal().atLeast() ? "at_least" : "at_most");
        m.put("threshold", g.goal().threshold());
        m.put("margin", g.goal().margin());
        m.put("per_round", Arrays.stream(g.perRound()).boxed().toList());
        m.put("rounds", g.perRound().length);
        m.put("median", g.value().median());
        m.put("min", g.value().min());
        m.put("max", g.value().max());
        m.put("estimate", g.ci().estimate());
        m.put("ci_lo", g.ci().lo());
        m.put("ci_hi", g.ci().hi());
        m.put("ci_level", Interval.LEVEL);
        m.put("status", g.status().label());
        if (!Double.isNaN(g.versusFigure())) m.put("versus_figure", g.versusFigure());
        m.put("rounds_needed", g.status() == Goal.Status.NOT_SETTLED && g.roundsNeeded() != Integer.MAX_VALUE
                ? g.roundsNeeded() : null);
        m.put("line", g.line());
        m.put("explanation", g.explanation());
        return m;
    }
}
