package org.sysframe.bench.explore;

import org.sysframe.bench.peer.Pairing;

import java.util.List;

/**
 * A sweep, as {@code sysframe sweep} runs it: one parameter of a held pairing at each value, every value
 * over every payload size, measured in one table named {@link #NAME}. What the sweep command, its
 * {@link Bisection} and the reports share.
 */
public final class Sweep {
    private Sweep() {}

    /** The sweep's table, and the name of its result files. */
    public static final String NAME = "sweep";

    /**
     * A sweep cell makes this many times the matrix's calls: neighbouring settings differ by a few
     * per cent, and cells of a few tens of milliseconds on a shared 2-core machine are swamped by
     * scheduling (docs/results.md).
     */
    public static final int CALLS_SCALE = 5;

    /** Everything a sweep run needs, checked before anything runs. */
    public record Plan(SweepSpec spec, Pairing held, int[] payloads, List<String> crossover, int rounds,
            boolean quick) {
        public List<Pairing> pairings() { return spec.pairings(held); }
    }
}
