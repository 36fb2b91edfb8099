package org.sysframe.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The one runner of every table: a warm-up run per cell, then rounds in which every cell is measured
 * once, in the same order (A B C, A B C, ...), so that machine drift hits every cell alike.
 */
public final class RoundRunner {
    private RoundRunner() {}

    /** Every measured run (warm-ups left out) in the order it ran: round 1's cells, then round 2's... */
    public static List<Measurement> run(String table, List<Cell> cells, int rounds) throws IOException {
        for (Cell c : cells) {
            if (c.warmUpCalls() <= 0) continue;
            Progress.show(String.format(Locale.ROOT, "%s warm-up %-10s %6d B", table, c.name(), c.payload()));
            c.probe().measure(c, c.warmUpCalls(), Measurement.WARM_UP);
        }
        List<Measurement> out = new ArrayList<>(cells.size() * rounds);
        for (int r = 1; r <= rounds; r++) {
            for (Cell c : cells) {
                Progress.show(String.format(Locale.ROOT, "%s round %d/%d  %-10s %6d B", table, r, rounds, c.name(), c.payload()));
                out.add(c.probe().measure(c, c.calls(), r));
            }
        }
        Progress.done();
        return out;
    }
}
