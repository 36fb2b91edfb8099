package org.sysframe.bench.table;

import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.Goal;

import java.io.IOException;
import java.util.List;
import java.util.Set;

/**
 * One table of {@code sysframe matrix}: what it is called, the cells it can run, the goals judged on
 * them, and how it runs. {@link Tables#MATRIX} lists them in the order they run; adding a table is
 * writing its class and adding it there.
 */
public interface Table {
    /**
     * The short id: the {@link BenchTable#name()} of its result, what {@code --tables} and {@code --skip} take and
     * goals name.
     */
    String name();

    /** One line for {@code --help}: what the table measures. */
    String about();

    /**
     * Every cell name the table can run, with any options ({@code --full} included): its goals may name
     * these only ({@link Tables} refuses the others when the table is registered), and a run that made
     * a cell of another name fails.
     */
    Set<String> cells();

    /** The goals judged on the table's cells, each naming this table; none is a valid answer. */
    List<Goal> goals();

    /** Runs the table under the run's settings and plan. */
    BenchTable run(TableRun run) throws IOException;
}
