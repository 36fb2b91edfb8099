package org.sysframe.bench;

import java.util.List;

/**
 * Everything one {@code matrix} or {@code compare} run measured: its tables, the goals evaluated on
 * them, and the machine it ran on.
 *
 * @param kernelUnavailable why the kernel's counts are missing, or null
 * @param reproduce         how to run it again: command, JVM flags, git commit (null: not known)
 */
public record BenchRun(String machine, int rounds, boolean quick, double seconds, int serverLoops,
                       List<BenchTable> tables, List<GoalVerdict> goals, String kernelUnavailable, String reproduce) {

    /** A run of tables with {@link Goals#TABLE} evaluated on them. */
    public static BenchRun of(String machine, int rounds, boolean quick, double seconds, int serverLoops,
                              List<BenchTable> tables, String kernelUnavailable) {
        return of(machine, rounds, quick, seconds, serverLoops, tables, kernelUnavailable, null);
    }

    public static BenchRun of(String machine, int rounds, boolean quick, double seconds, int serverLoops,
                              List<BenchTable> tables, String kernelUnavailable, String reproduce) {
        return new BenchRun(machine, rounds, quick, seconds, serverLoops, List.copyOf(tables),
                Goals.evaluate(Goals.TABLE, tables), kernelUnavailable, reproduce);
    }

    /** The table of that name, or null. */
    public BenchTable table(String name) {
        for (BenchTable t : tables) if (t.name().equals(name)) return t;
        return null;
    }

    /** The goals evaluated on the table of that name. */
    public List<GoalVerdict> goals(String table) { return Goals.of(goals, table); }
}
