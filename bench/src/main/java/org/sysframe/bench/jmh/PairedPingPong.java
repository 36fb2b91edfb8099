package org.sysframe.bench.jmh;

import org.sysframe.unix.ErrnoException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/**
 * {@link PingPongBenchmark}'s round trips measured in pairs: in one process, the designs take turns in
 * slices of calls, each slice with its own echo thread, so that every slice of one design has
 * neighbours of the others milliseconds away, where JMH runs each design in a fork of its own. On a
 * guest whose two vCPUs move between fast and slow placements on the host minutes apart, a ratio of two
 * designs is only meaningful between neighbouring slices: the ratios printed are of each round's
 * slices, their median and spread over the rounds.
 *
 * <p>{@code make pingpong} (PINGPONG_ARGS: rounds, calls per slice, then the designs to run if not all: 40 and
 * 20,000 by default; the ratios are to the first that runs of sequence, records, zeroAhead, rings).
 */
public final class PairedPingPong {
    private static final PingPongBenchmark BENCH = new PingPongBenchmark(); // its methods keep no state of their own

    private PairedPingPong() {}

    /** A round trip of one design, on its state. */
    private interface Trip<S> {
        long on(S state) throws ErrnoException;
    }

    /** One design: its state made and set up (its echo thread started), its round trip, its state torn down. */
    private static final class Design<S extends PingPongBenchmark.Echo> {
        final String name;
        private final Supplier<S> make;
        private final Trip<S> trip;
        private S state;

        Design(String name, Supplier<S> make, Trip<S> trip) {
            this.name = name;
            this.make = make;
            this.trip = trip;
        }

        void setUp(int payload) throws ErrnoException {
            state = make.get();
            state.payload = payload;
            state.setup();
        }

        long roundTrip() throws ErrnoException { return trip.on(state); }

        void tearDown() throws InterruptedException { state.tearDown(); }
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        int calls = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        int payload = 32;
        List<Design<?>> designs = designs();
        if (rounds < 1 || calls < 1) throw new IllegalArgumentException("rounds and calls per slice: at least 1");
        if (args.length > 2) {
            List<String> wanted = List.of(args).subList(2, args.length);
            List<String> names = designs.stream().map(d -> d.name).toList();
            for (String w : wanted) {
                if (!names.contains(w)) {
                    throw new IllegalArgumentException("no design " + w + " (" + String.join(", ", names) + ")");
                }
            }
            designs.removeIf(d -> !wanted.contains(d.name));
        }
        double[][] ns = new double[designs.size()][rounds];
        long sink = 0;
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < designs.size(); k++) {
                int d = (r + k) % designs.size(); // each design first in its turn: no order favoured
                Design<?> design = designs.get(d);
                design.setUp(payload);
                try {
                    for (int i = 0; i < calls / 4; i++) sink += design.roundTrip(); // the new segment's pages, the JIT
                    long t0 = System.nanoTime();
                    for (int i = 0; i < calls; i++) sink += design.roundTrip();
                    ns[d][r] = (System.nanoTime() - t0) / (double) calls;
                } finally {
                    design.tearDown();
                }
            }
        }
        System.out.printf("%d rounds of %,d calls per design, %d-byte payload (checksum %d)%n", rounds, calls, payload,
                sink & 0xff);
        System.out.printf("%-10s %10s %10s %10s   %-22s%n", "design", "p10 ns", "median ns", "p90 ns",
                "/ " + designs.getFirst().name + " (p10 median p90)");
        for (int d = 0; d < designs.size(); d++) {
            double[] ratio = new double[rounds];
            for (int r = 0; r < rounds; r++) ratio[r] = ns[d][r] / ns[0][r];
            double[] sorted = ns[d].clone();
            Arrays.sort(sorted);
            Arrays.sort(ratio);
            System.out.printf("%-10s %10.0f %10.0f %10.0f   %.3f %.3f %.3f%n", designs.get(d).name, pct(sorted, 10),
                    pct(sorted, 50), pct(sorted, 90), pct(ratio, 10), pct(ratio, 50), pct(ratio, 90));
        }
    }

    private static double pct(double[] sorted, int p) {
        return sorted[Math.min(sorted.length - 1, sorted.length * p / 100)];
    }

    private static List<Design<?>> designs() {
        return new ArrayList<>(List.of(new Design<>("sequence", PingPongBenchmark.Sequence::new, BENCH::sequence),
                new Design<>("records", PingPongBenchmark.Records::new, BENCH::records),
                new Design<>("zeroAhead", PingPongBenchmark.ZeroAhead::new, BENCH::zeroAhead),
                new Design<>("rings", PingPongBenchmark.Rings::new, BENCH::rings)));
    }
}
