package org.sysframe.bench.measure;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * What a long command is doing, on stderr: the table and cell that run, the round, the goals settled so
 * far and an estimate of the time left. {@link RoundRunner} reports to it; a command installs one for
 * its run with {@link #during}. On a terminal it is one line redrawn in place (a carriage return, the
 * text, ESC[K clearing what is left of the last one); elsewhere (a file, a pipe: a CI log) one line when
 * a table begins. Without one installed (ping), the runner reports to a reporter of its own that shows
 * the line on a terminal only.
 *
 * <p>Terminal means {@code isatty(2)}, asked of the C library, and TERM not {@code dumb}:
 * {@code System.console()} answers for stdin and stdout, so {@code matrix > out.txt} on a terminal read as no
 * terminal and {@code matrix 2> log} as one.
 *
 * <p>The estimate: the time the current set of rounds still needs at the pace of its runs so far (once in
 * added rounds, what is left of the table's share of the added rounds' time), plus the tables still to
 * come, each as long as the finished ones were on average (with none finished, as the current one is
 * projected to be).
 */
public final class Progress {
    /** The widest redrawn line: a line longer than the terminal would wrap, and a carriage return not undo it. */
    static final int TERMINAL_COLUMNS = 79;

    private final String command;
    private int tables;
    private final List<Goal> goals;
    private final boolean terminal;
    private final Consumer<String> out;
    private final LongSupplier clock;
    private final long start;

    private final List<String> begun = new ArrayList<>();
    private long tableStart, setStart;
    private int setRuns, setDone;
    private double budgetLeft = -1;
    private final Map<Goal, Goal.Status> verdicts = new LinkedHashMap<>();
    private boolean drawn;

    /**
     * @param command  the command's name, e.g. {@code matrix}
     * @param tables   the tables it runs (0: not known, and no estimate)
     * @param goals    the goals whose verdicts to count (the runner judges those of the table that runs)
     * @param terminal a line redrawn in place, else a line per table
     * @param out      where the text goes, printed as given
     * @param clock    nanoseconds
     */
    Progress(String command, int tables, List<Goal> goals, boolean terminal, Consumer<String> out, LongSupplier clock) {
        this.command = command;
        this.tables = tables;
        this.goals = List.copyOf(goals);
        this.terminal = terminal;
        this.out = out;
        this.clock = clock;
        this.start = clock.getAsLong();
    }

    /** A command's reporter on stderr, redrawn in place when stderr is a terminal. */
    public static Progress toStderr(String command, int tables, List<Goal> goals) {
        return new Progress(command, tables, goals, stderrIsTerminal(), s -> {
            System.err.print(s);
            System.err.flush();
        }, System::nanoTime);
    }

    private static final ThreadLocal<Progress> CURRENT = new ThreadLocal<>();

    /**
     * Runs body with progress reported to p from every {@link RoundRunner} run of this thread; then clears its line.
     */
    public static <T> T during(Progress p, Callable<T> body) throws Exception {
        Progress before = CURRENT.get();
        CURRENT.set(p);
        try {
            return body.call();
        } finally {
            p.finish();
            if (before == null) CURRENT.remove();
            else CURRENT.set(before);
        }
    }

    /** The installed reporter, or null. */
    static Progress current() { return CURRENT.get(); }

    /** A run's own reporter when none is installed (ping): the line on a terminal, nothing elsewhere. */
    static Progress unplanned(String command) {
        Progress p = toStderr(command, 0, List.of());
        return p.terminal ? p : new Progress(command, 0, List.of(), false, s -> { }, System::nanoTime);
    }

    /** The goals of table among those counted. */
    List<Goal> goals(String table) { return goals.stream().filter(g -> g.table().equals(table)).toList(); }

    /**
     * A set of rounds of table begins: cells in rounds, warmUps of them warmed up first; a new table name is the next
     * table.
     */
    void set(String table, int cells, int rounds, int warmUps) {
        long now = clock.getAsLong();
        setStart = now;
        setRuns = Math.max(1, warmUps + cells * rounds);
        setDone = 0;
        budgetLeft = -1;
        if (begun.isEmpty() || !begun.getLast().equals(table)) {
            begun.add(table);
            tableStart = now;
            if (tables > 0 && begun.size() > tables) tables = begun.size();
            if (!terminal && tables > 0) out.accept(tableLine(table, cells, rounds) + "\n");
        }
    }

    /** A cell's warm-up begins. */
    void warmUp(Cell c) { show("warm-up: " + c.name() + ", " + c.payload() + " B"); }

    /** A cell's run in round r of rounds begins. */
    void round(Cell c, int r, int rounds) {
        show("round " + r + "/" + rounds + ": " + c.name() + ", " + c.payload() + " B");
    }

    /**
     * A cell's run in added round r begins, for cells cells of unsettled goals, secondsLeft of the table's share left.
     */
    void added(Cell c, int r, int cells, double secondsLeft) {
        budgetLeft = Math.max(0, secondsLeft);
        show("added round " + r + " (" + cells + " cells): " + c.name() + ", " + c.payload() + " B");
    }

    /** A run (or a cell's warm-up) ended. */
    void ran() { setDone = Math.min(setRuns, setDone + 1); }

    /** The verdicts of a look at a table's goals (null: a goal whose cells have not run yet). */
    void judged(List<GoalVerdict> looked) {
        for (GoalVerdict v : looked) if (v != null) verdicts.put(v.goal(), v.status());
    }

    /** Clears the line on a terminal. */
    void finish() {
        if (terminal && drawn) out.accept("\r\033[K");
        drawn = false;
    }

    private void show(String what) {
        if (!terminal) return;
        String line = "[" + (tables > 0 ? begun.size() + "/" + tables + " " : "") + begun.getLast() + "] ";
        String left = left();
        if (!left.isEmpty()) line += "about " + left + " left; ";
        if (!goals(begun).isEmpty()) line += "goals " + settled() + "/" + goals(begun).size() + " settled; ";
        line += what;
        if (line.length() > TERMINAL_COLUMNS) line = line.substring(0, TERMINAL_COLUMNS);
        out.accept("\r" + line + "\033[K");
        drawn = true;
    }

    /** The line of a table that begins, off a terminal. */
    String tableLine(String table, int cells, int rounds) {
        StringBuilder sb = new StringBuilder("sysframe ").append(command).append(": table ").append(begun.size())
                .append('/').append(tables)
                .append(", ").append(table).append(" (").append(cells).append(cells == 1 ? " cell x " : " cells x ")
                        .append(rounds)
                .append(rounds == 1 ? " round); " : " rounds); ")
                .append(duration(seconds(clock.getAsLong() - start))).append(" so far");
        String left = left();
        if (!left.isEmpty()) sb.append(", about ").append(left).append(" left");
        List<Goal> counted = goals(begun.subList(0, begun.size() - 1));
        if (!counted.isEmpty()) {
            Map<Goal.Status, Integer> n = new EnumMap<>(Goal.Status.class);
            for (Goal.Status s : Goal.Status.values()) n.put(s, 0);
            for (Goal g : counted) n.merge(verdicts.getOrDefault(g, Goal.Status.NOT_SETTLED), 1, Integer::sum);
            sb.append(String.format(Locale.ROOT, "; goals so far: %d met, %d missed, %d level, %d not settled (of %d)",
                    n.get(Goal.Status.MET),
                    n.get(Goal.Status.MISSED), n.get(Goal.Status.LEVEL), n.get(Goal.Status.NOT_SETTLED),
                            counted.size()));
        }
        return sb.toString();
    }

    private List<Goal> goals(List<String> tableNames) {
        return goals.stream().filter(g -> tableNames.contains(g.table())).toList();
    }

    private long settled() {
        return goals(begun).stream().filter(g ->
                verdicts.getOrDefault(g, Goal.Status.NOT_SETTLED) != Goal.Status.NOT_SETTLED).count();
    }

    /** The estimate of the time left, e.g. {@code 3 min 10 s}; empty when there is none yet. */
    String left() {
        if (tables == 0) return "";
        long now = clock.getAsLong();
        int index = begun.size();
        double inTable = seconds(now - tableStart);
        double perTable = index > 1 ? seconds(tableStart - start) / (index - 1) : Double.NaN;
        double here;
        if (budgetLeft >= 0) here = budgetLeft;
        else if (setDone > 0) here = seconds(now - setStart) * (setRuns - setDone) / setDone;
        else if (index > 1) here = Math.max(0, perTable - inTable);
        else return "";
        if (index == 1) perTable = inTable + here;
        return duration(here + perTable * (tables - index));
    }

    private static double seconds(long nanos) { return nanos / 1e9; }

    /** e.g. {@code 45 s}, {@code 3 min 10 s}. */
    static String duration(double seconds) {
        long s = Math.round(Math.max(0, seconds));
        return s < 60 ? s + " s" : String.format(Locale.ROOT, "%d min %02d s", s / 60, s % 60);
    }

    /** Whether stderr is a terminal: isatty(2) of the C library, and TERM not dumb (no ESC[K there). */
    static boolean stderrIsTerminal() {
        if ("dumb".equals(System.getenv("TERM"))) return false;
        try {
            MethodHandle isatty = Linker.nativeLinker()
                    .downcallHandle(Linker.nativeLinker().defaultLookup().find("isatty").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT));
            return (int) isatty.invokeExact(2) == 1;
        } catch (Throwable e) {
            return false; // no native access: the plain lines
        }
    }
}
