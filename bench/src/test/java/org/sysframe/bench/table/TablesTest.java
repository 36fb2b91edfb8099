package org.sysframe.bench.table;

import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Goal;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The registry of the matrix's tables: what it refuses when a table is registered (a goal naming a cell
 * its table does not declare, or another table; a name twice), and what {@code --tables} and
 * {@code --skip} select.
 */
class TablesTest {
    /** A table of two cells, a and b, with the goals given; it is never run here. */
    record Dummy(String name, List<Goal> goals) implements Table {
        @Override
        public String about() { return "two cells"; }

        @Override
        public Set<String> cells() { return new LinkedHashSet<>(List.of("a", "b")); }

        @Override
        public BenchTable run(TableRun run) { throw new AssertionError("not run"); }
    }

    static Goal goal(String table, String subject, String versus) {
        return new Goal("g", table, subject, versus, 32, Goal.Metric.CALLS_RATIO, true, 1.0);
    }

    @Test
    void aGoalNamingACellItsTableDoesNotDeclareIsRefusedWhenTheTableIsRegistered() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Tables(List.of(new Dummy("dummy", List.of(goal("dummy", "a", "c"))))));
        assertEquals("goal 'g' of table dummy names cell 'c', which the table does not declare", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () ->
                new Tables(List.of(new Dummy("dummy", List.of(goal("other", "a", "b"))))));
        assertEquals("goal 'g' of table dummy names table other", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () ->
                new Tables(List.of(new Dummy("d", List.of()), new Dummy("d", List.of()))));
        assertEquals("table d registered twice", e.getMessage());
        assertEquals(List.of(goal("dummy", "a", "b")),
                new Tables(List.of(new Dummy("dummy", List.of(goal("dummy", "a", "b"))))).goals());
    }

    @Test
    void theMatrixRegistersEveryTableOnceWithGoalsOnItsOwnCells() {
        Tables m = Tables.MATRIX;
        assertEquals(List.of("matrix", "peers", "server-loops", "depth", "backends", "connections", "concurrency",
                "scale", "wait"), m.names());
        int goals = 0;
        for (Table t : m.all()) {
            for (Goal g : t.goals()) {
                assertEquals(t.name(), g.table());
                assertTrue(t.cells().contains(g.subject()) && t.cells().contains(g.versus()), g.toString());
                goals++;
            }
        }
        assertEquals(goals, m.goals().size());
        assertEquals(m.goals().size(), new HashSet<>(m.goals()).size(), "no goal twice");
    }

    @Test
    void tablesAndSkipSelectInTheRegistrysOrderAndRefuseUnknownNames() {
        Tables m = Tables.MATRIX;
        assertEquals(List.of("peers", "wait"), m.select(List.of("wait", "peers"), List.of()).stream().map(Table::name)
                .toList());
        assertEquals(m.names().subList(0, m.names().size() - 1),
                m.select(List.of(), List.of("wait")).stream().map(Table::name).toList());
        assertEquals(m.names(), m.select(List.of(), List.of()).stream().map(Table::name).toList());
        assertEquals("--tables waits: no such table (" + String.join(", ", m.names()) + ")",
                assertThrows(IllegalArgumentException.class, () -> m.select(List.of("waits"), List.of())).getMessage());
        assertEquals("--skip x: no such table (" + String.join(", ", m.names()) + ")",
                assertThrows(IllegalArgumentException.class, () -> m.select(List.of(), List.of("x"))).getMessage());
        assertEquals("--tables and --skip: choose one",
                assertThrows(IllegalArgumentException.class, () -> m.select(List.of("wait"), List.of("peers")))
                .getMessage());
        assertEquals("--skip " + String.join(",", m.names()) + ": no table left to run",
                assertThrows(IllegalArgumentException.class, () -> m.select(List.of(), m.names())).getMessage());
    }
}
