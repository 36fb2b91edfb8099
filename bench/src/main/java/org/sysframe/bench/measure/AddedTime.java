package org.sysframe.bench.measure;

/**
 * The time a run may spend on rounds added to the cells of unsettled goals, shared by its tables in
 * turn: a table may use what is left of it divided by the tables still to come that have goals (itself
 * included), and what a table leaves goes to the tables after it. A table that measures its cells in two
 * sets ({@link RoundRunner#runApart}) gives the first set half of its share. The run's measuring then
 * lasts its initial rounds and at most about this time more (see below), on a machine of any pace:
 * {@code make bench} keeps to its minutes by construction, not by a per-table budget times the tables.
 *
 * <p>A share is a deadline, not a count: a set of added rounds stops before a batch whose slowest round
 * so far would pass it, so a run ends within that round of its time. One runner thread; the time is
 * spent as the runner reads its clock.
 */
public final class AddedTime {
    private long runLeft;   // nanoseconds the run's tables may still spend on added rounds
    private long tableLeft; // ... of which the current table may spend this much

    private AddedTime(long nanos) {
        this.runLeft = nanos;
        this.tableLeft = nanos;
    }

    /**
     * seconds of added rounds for a whole run (0: none are added); until {@link #table} says otherwise, one table may
     * use all of it.
     */
    public static AddedTime of(double seconds) {
        if (!(seconds >= 0)) throw new IllegalArgumentException("added rounds' time " + seconds + " s: expected >= 0");
        return new AddedTime((long) Math.min(Long.MAX_VALUE, seconds * 1e9));
    }

    /** A table with goals begins, tablesToCome such tables of the run still to run, itself included: its share. */
    public void table(int tablesToCome) {
        if (tablesToCome < 1) throw new IllegalArgumentException("tables to come " + tablesToCome + ": at least 1");
        tableLeft = runLeft / tablesToCome;
    }

    /** What a set of the current table may spend, setsToCome of its sets still to run (itself included). */
    long share(int setsToCome) { return tableLeft / Math.max(1, setsToCome); }

    /** A set of added rounds spent nanos (of the table's share and the run's time). */
    void spent(long nanos) {
        long n = Math.max(0, nanos);
        tableLeft = Math.max(0, tableLeft - n);
        runLeft = Math.max(0, runLeft - n);
    }

    /** The run's added-round time not spent yet, in seconds. */
    public double secondsLeft() { return runLeft / 1e9; }
}
