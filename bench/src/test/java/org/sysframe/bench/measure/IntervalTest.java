package org.sysframe.bench.measure;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** The Hodges-Lehmann estimate and the Wilcoxon signed-rank interval on known inputs. */
class IntervalTest {
    @Test
    void theCriticalRanksAreThoseOfTheSignedRankTables() {
        // Two-sided 5 % critical values of W from the published tables are 0 (n=6), 2 (7), 8 (10), 52 (20): k = W + 1.
        assertEquals(0, Interval.criticalRank(5));
        assertEquals(1, Interval.criticalRank(6));
        assertEquals(3, Interval.criticalRank(7));
        assertEquals(9, Interval.criticalRank(10));
        assertEquals(53, Interval.criticalRank(20));
    }

    @Test
    void theEstimateIsTheMedianOfTheWalshAveragesAndTheIntervalTheirKthFromEachEnd() {
        // 1..7: the Walsh averages (i + j) / 2 for i <= j; 28 of them, median 4; k = 3: the 3rd smallest
        // is 2 (1, 1.5, 2, 2, ...) and the 3rd largest 6 (7, 6.5, 6, 6, ...).
        Interval i = Interval.ofValues(7, 3, 1, 5, 2, 6, 4);
        assertEquals(4.0, i.estimate(), 1e-9);
        assertEquals(2.0, i.lo(), 1e-9);
        assertEquals(6.0, i.hi(), 1e-9);
        assertEquals(7, i.n());
        // A bad round moves the estimate by ranks, not by its size: 7 -> 700 leaves it at 4 (the mean goes from 4 to
        // 103).
        assertEquals(4.0, Interval.ofValues(700, 3, 1, 5, 2, 6, 4).estimate(), 1e-9);
        // Ratios on their logarithm: 2x and 0.5x are symmetric around 1.
        Interval r = Interval.ofRatios(0.5, 2, 1, 1, 0.5, 2, 1);
        assertEquals(1.0, r.estimate(), 1e-9);
        assertEquals(r.lo(), 1 / r.hi(), 1e-9);
        // Fewer than 6 values: min-max; a missing figure: unknown.
        assertEquals(new Interval(2.0, 1.0, 3.0, 3, false), Interval.ofValues(1, 2, 3));
        assertFalse(Interval.ofRatios(1, Double.NaN, 1).known());
        assertFalse(Interval.ofRatios(1, 0, 1).known());
    }
}
