package org.sysframe.bench.cli;

import org.junit.jupiter.api.Test;
import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Goal;
import org.sysframe.bench.table.Table;
import org.sysframe.bench.table.TableRun;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** How matrix shares its added rounds' time out: among the tables with goals, each counting itself and those after. */
class MatrixSharesTest {
    /** A table that is never run, with the goals given. */
    record Fake(String name, List<Goal> goals) implements Table {
        @Override
        public String about() { return "never run"; }

        @Override
        public Set<String> cells() { return Set.of("a", "b"); }

        @Override
        public BenchTable run(TableRun run) { throw new AssertionError("not run"); }
    }

    private static Table table(String name, boolean withGoal) {
        return new Fake(name, withGoal ? List.of(new Goal("g", name, "a", "b", 32, Goal.Metric.CALLS_RATIO, true,
                1.0)) : List.of());
    }

    @Test
    void aTableWithGoalsSharesWithItselfAndTheTablesWithGoalsAfterIt() {
        List<Table> tables = List.of(table("one", true), table("two", false), table("three", true),
                table("four", false));
        assertEquals(2, MatrixCommand.withGoalsFrom(tables, 0), "one: itself and three");
        assertEquals(1, MatrixCommand.withGoalsFrom(tables, 1), "two has none: three alone from there");
        assertEquals(1, MatrixCommand.withGoalsFrom(tables, 2), "three: itself");
        assertEquals(0, MatrixCommand.withGoalsFrom(tables, 3), "four: none is left to share with");
    }
}
