package org.sysframe.bench.table;

import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.RoundRunner;
import org.sysframe.bench.peer.Pairing;

import java.io.IOException;
import java.util.List;
import java.util.function.Predicate;

/**
 * What one run of the tables shares: the command's settings, and the plan that adds rounds to the cells
 * of unsettled goals. A {@link Table} gets it as its argument and measures its cells through it, so the
 * plan reaches {@link RoundRunner} by value.
 *
 * @param rounds      interleaved rounds every cell runs first
 * @param quick       fewer calls per cell
 * @param full        every table's whole grid
 * @param serverLoops event loops of the pairing and peer tables' servers
 * @param payloads    the pairing table's payload sizes
 * @param pairings    the pairing table's rows, the reference first or named by reference
 * @param reference   the pairing the pairing table's ratios are taken against
 * @param forks       child JVMs of the peer table's Java peers (0: in this JVM)
 * @param plan        rounds added while a goal is not settled and the length of a run; null: none added, each cell's
 * own length
 */
public record TableRun(int rounds, boolean quick, boolean full, int serverLoops, int[] payloads, List<Pairing> pairings,
                       String reference, int forks, RoundRunner.Plan plan) {
    public TableRun {
        if (rounds < 1) throw new IllegalArgumentException("rounds " + rounds + ": at least 1");
        if (serverLoops < 1) throw new IllegalArgumentException("server loops " + serverLoops + ": at least 1");
        if (forks < 0) throw new IllegalArgumentException("forks " + forks + ": 0 or more");
        payloads = payloads.clone();
        pairings = List.copyOf(pairings);
        if (pairings.stream().noneMatch(p -> p.name().equals(reference))) {
            throw new IllegalArgumentException("reference " + reference + ": no such pairing");
        }
    }

    /** The pairing table's payload sizes (a copy: the run's own stay as given). */
    @Override
    public int[] payloads() { return payloads.clone(); }

    /** A run of rounds with the defaults of {@code matrix} and no plan: what a test of one table uses. */
    public static TableRun of(int rounds, boolean quick, boolean full) {
        return of(rounds, quick, full, 1, 0);
    }

    /** As {@link #of(int, boolean, boolean)}, with servers of serverLoops loops and the Java peers in forks JVMs. */
    public static TableRun of(int rounds, boolean quick, boolean full, int serverLoops, int forks) {
        List<Pairing> standard = Pairing.standard();
        return new TableRun(rounds, quick, full, serverLoops, new int[] {0, 32, 1024, 8192, 65536}, standard,
                standard.get(0).name(), forks, null);
    }

    /** The refusal of a server build that cannot run {@link #serverLoops} loops, naming the option. */
    IllegalArgumentException serverLoopsRefused(UnsupportedOperationException e) {
        return new IllegalArgumentException("--server-loops " + serverLoops + ": this server build refuses it ("
                + e.getMessage() + ")", e);
    }

    /** Every measured run of cells, in rounds (see {@link RoundRunner}), under this run's plan. */
    public List<Measurement> measure(String table, List<Cell> cells) throws IOException {
        return RoundRunner.run(table, cells, rounds, plan);
    }

    /** As {@link #measure(String, List)}, with runs of at least lengthAtLeast times each cell's own calls. */
    public List<Measurement> measure(String table, List<Cell> cells, double lengthAtLeast) throws IOException {
        return RoundRunner.run(table, cells, rounds, plan == null ? null : plan.atLeast(lengthAtLeast));
    }

    /**
     * As {@link #measure(String, List)}, the cells that are not apart first, then those that are
     * ({@link RoundRunner#runApart}).
     */
    public List<Measurement> measureApart(String table, List<Cell> cells, Predicate<Cell> apart) throws IOException {
        return RoundRunner.runApart(table, cells, apart, rounds, plan);
    }
}
