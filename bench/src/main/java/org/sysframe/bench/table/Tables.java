package org.sysframe.bench.table;

import org.sysframe.bench.measure.Goal;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The tables of {@code sysframe matrix}, in the order they run, checked when registered: each name
 * once, and every goal of a table names that table and cells it declares ({@link Table#cells()}), so a
 * goal with a misspelt cell fails here, when the registry is built, not in a run that quietly leaves
 * it out.
 */
public final class Tables {
    /** The matrix's tables: one line each. */
    public static final Tables MATRIX = new Tables(List.of(
            new PairingTable(),
            new PeerTable(),
            new LoopsTable(),
            new DepthTable(),
            new BackendTable(),
            new ConnectionsTable(),
            new ConcurrencyTable(),
            new ScaleTable(),
            new WaitTable()));

    private final List<Table> tables;

    /** The registry of tables, checked (see the class comment). */
    public Tables(List<Table> tables) {
        Set<String> names = new HashSet<>();
        for (Table t : tables) {
            if (!t.name().matches("[a-z][a-z0-9-]*")) throw new IllegalArgumentException("table name '" + t.name()
                    + "': expected [a-z][a-z0-9-]*");
            if (!names.add(t.name())) throw new IllegalArgumentException("table " + t.name() + " registered twice");
            Set<String> cells = t.cells();
            for (Goal g : t.goals()) {
                if (!g.table().equals(t.name())) {
                    throw new IllegalArgumentException("goal '" + g.name() + "' of table " + t.name() + " names table "
                            + g.table());
                }
                for (String cell : List.of(g.subject(), g.versus())) {
                    if (!cells.contains(cell)) {
                        throw new IllegalArgumentException("goal '" + g.name() + "' of table " + t.name()
                                + " names cell '" + cell
                                + "', which the table does not declare");
                    }
                }
            }
        }
        this.tables = List.copyOf(tables);
    }

    /** Every table, in the order they run. */
    public List<Table> all() { return tables; }

    /** Every table's name, in the order they run. */
    public List<String> names() { return tables.stream().map(Table::name).toList(); }

    /** Every table's goals, table after table. */
    public List<Goal> goals() {
        List<Goal> out = new ArrayList<>();
        for (Table t : tables) out.addAll(t.goals());
        return List.copyOf(out);
    }

    /**
     * The tables a command runs: those named by only (all when empty), less those named by skip, in the
     * registry's order; an unknown name, or both lists given, is refused naming the option.
     */
    public List<Table> select(List<String> only, List<String> skip) {
        if (!only.isEmpty() && !skip.isEmpty()) throw new IllegalArgumentException("--tables and --skip: choose one");
        check("--tables", only);
        check("--skip", skip);
        List<Table> out = tables.stream().filter(t -> (only.isEmpty() || only.contains(t.name()))
                && !skip.contains(t.name())).toList();
        if (out.isEmpty()) throw new IllegalArgumentException("--skip " + String.join(",", skip)
                + ": no table left to run");
        return out;
    }

    private void check(String option, List<String> given) {
        for (String n : given) {
            if (!names().contains(n)) throw new IllegalArgumentException(option + " " + n + ": no such table ("
                    + String.join(", ", names()) + ")");
        }
    }
}
