package org.sysframe.bench.explore;

import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.GoalVerdict;
import org.sysframe.bench.table.Goals;
import org.sysframe.bench.table.Tables;

import java.util.ArrayList;
import java.util.List;

/**
 * Everything one {@code matrix} or {@code compare} run measured: its tables, the goals evaluated on
 * them, and the machine it ran on.
 *
 * @param kernelUnavailable why the kernel's counts are missing, or null
 * @param reproduce         how to run it again: command, JVM flags, git commit (null: not known)
 * @param crossovers        the crossovers asked for, found in the tables they name
 */
public record BenchRun(String machine, int rounds, boolean quick, double seconds, int serverLoops,
                       List<BenchTable> tables, List<GoalVerdict> goals, String kernelUnavailable, String reproduce,
                       List<Crossover> crossovers) {

    /** A run of tables with the matrix's goals ({@link Tables#goals()}) evaluated on them. */
    public static BenchRun of(String machine, int rounds, boolean quick, double seconds, int serverLoops,
                              List<BenchTable> tables, String kernelUnavailable) {
        return of(machine, rounds, quick, seconds, serverLoops, tables, kernelUnavailable, null);
    }

    public static BenchRun of(String machine, int rounds, boolean quick, double seconds, int serverLoops,
                              List<BenchTable> tables, String kernelUnavailable, String reproduce) {
        return new BenchRun(machine, rounds, quick, seconds, serverLoops, List.copyOf(tables),
                Goals.evaluate(Tables.MATRIX.goals(), tables), kernelUnavailable, reproduce, List.of());
    }

    /** This run with the crossovers of these pairs of rows, each looked for in every table that has both rows. */
    public BenchRun withCrossovers(List<List<String>> pairs) {
        List<Crossover> found = new ArrayList<>(crossovers);
        for (List<String> pair : pairs) {
            for (BenchTable t : tables) {
                if (t.names().contains(pair.get(0)) && t.names().contains(pair.get(1))) found.add(Crossover.in(t,
                        pair.get(0), pair.get(1)));
            }
        }
        return new BenchRun(machine, rounds, quick, seconds, serverLoops, tables, goals, kernelUnavailable, reproduce,
                List.copyOf(found));
    }

    /** The crossovers found in the table of that name. */
    public List<Crossover> crossovers(String table) {
        return crossovers.stream().filter(c -> c.table().equals(table)).toList();
    }

    /** The table of that name, or null. */
    public BenchTable table(String name) {
        for (BenchTable t : tables) if (t.name().equals(name)) return t;
        return null;
    }

    /** The goals evaluated on the table of that name. */
    public List<GoalVerdict> goals(String table) { return Goals.of(goals, table); }
}
