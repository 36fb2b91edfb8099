package org.sysframe.bench.table;

import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Goal;
import org.sysframe.bench.measure.GoalVerdict;

import java.util.ArrayList;
import java.util.List;

/**
 * The goals judged on a run's tables: each table declares its own ({@link Table#goals()}), and
 * {@link Tables#goals()} gathers them.
 */
public final class Goals {
    private Goals() {}

    /** The verdict of every goal whose cells the tables hold, in the table's order. */
    public static List<GoalVerdict> evaluate(List<Goal> goals, List<BenchTable> tables) {
        List<GoalVerdict> out = new ArrayList<>();
        for (Goal g : goals) {
            for (BenchTable t : tables) {
                if (!t.name().equals(g.table())) continue;
                GoalVerdict v = GoalVerdict.of(g, t);
                if (v != null) out.add(v);
            }
        }
        return out;
    }

    /** The verdicts of one table. */
    public static List<GoalVerdict> of(List<GoalVerdict> all, String table) {
        return all.stream().filter(v -> v.goal().table().equals(table)).toList();
    }
}
