package org.sysframe.bench.jmh;

import org.sysframe.unix.ErrnoException;

import java.io.IOException;
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
 * 20,000 by default; the ratios are to the first that runs of sequence, records, zeroAhead, rings, channel). The
 * fifth, {@code channel}, is a whole call of the library over the channel's rings
 * ({@link SharedMemoryBenchmark#channelCall}): beside {@code rings}, the library's own part of a round trip.
 */
public final class PairedPingPong {
    private static final PingPongBenchmark BENCH = new PingPongBenchmark(); // its methods keep no state of their own

    private PairedPingPong() {}

    /** One design's state: made afresh for each slice (its echo thread or server started), used, torn down. */
    private interface Slice {
        void setUp(int payload) throws Exception;

        long roundTrip() throws Exception;

        void tearDown() throws Exception;
    }

    /** One design: a name, and how to make its state for a slice. */
    private record Design(String name, Supplier<Slice> make) {}

    /** A round trip of a {@link PingPongBenchmark} design, on its state. */
    private interface Trip<S> {
        long on(S state) throws ErrnoException;
    }

    /** A {@link PingPongBenchmark} design: its state's setup starts its echo thread. */
    private static <S extends PingPongBenchmark.Echo> Design echo(String name, Supplier<S> make, Trip<S> trip) {
        return new Design(name, () -> new Slice() {
            private final S state = make.get();

            @Override
            public void setUp(int payload) throws ErrnoException {
                state.payload = payload;
                state.setup();
            }

            @Override
            public long roundTrip() throws ErrnoException { return trip.on(state); }

            @Override
            public void tearDown() throws InterruptedException { state.tearDown(); }
        });
    }

    /**
     * {@link SharedMemoryBenchmark#channelCall}: a whole GR_PING over a channel to a server of this process, both
     * spinning, answered by the built-in echo.
     */
    private static Design channel() {
        return new Design("channel", () -> new Slice() {
            private final SharedMemoryBenchmark.Channel state = new SharedMemoryBenchmark.Channel();

            @Override
            public void setUp(int payload) throws IOException {
                state.payload = payload;
                state.answer = "echo";
                state.setup();
            }

            @Override
            public long roundTrip() throws IOException {
                return state.pair.client.call(state.type, state.body, 0, state.payload).length();
            }

            @Override
            public void tearDown() throws IOException { state.tearDown(); }
        });
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        int calls = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        int payload = 32;
        List<Design> designs = designs();
        if (rounds < 1 || calls < 1) throw new IllegalArgumentException("rounds and calls per slice: at least 1");
        if (args.length > 2) {
            List<String> wanted = List.of(args).subList(2, args.length);
            List<String> names = designs.stream().map(Design::name).toList();
            for (String w : wanted) {
                if (!names.contains(w)) {
                    throw new IllegalArgumentException("no design " + w + " (" + String.join(", ", names) + ")");
                }
            }
            designs.removeIf(d -> !wanted.contains(d.name()));
        }
        double[][] ns = new double[designs.size()][rounds];
        long sink = 0;
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < designs.size(); k++) {
                int d = (r + k) % designs.size(); // each design first in its turn: no order favoured
                Slice slice = designs.get(d).make().get();
                slice.setUp(payload);
                try {
                    for (int i = 0; i < calls / 4; i++) sink += slice.roundTrip(); // the new segment's pages, the JIT
                    long t0 = System.nanoTime();
                    for (int i = 0; i < calls; i++) sink += slice.roundTrip();
                    ns[d][r] = (System.nanoTime() - t0) / (double) calls;
                } finally {
                    slice.tearDown();
                }
            }
        }
        System.out.printf("%d rounds of %,d calls per design, %d-byte payload (checksum %d)%n", rounds, calls, payload,
                sink & 0xff);
        System.out.printf("%-10s %10s %10s %10s   %-22s%n", "design", "p10 ns", "median ns", "p90 ns",
                "/ " + designs.getFirst().name() + " (p10 median p90)");
        for (int d = 0; d < designs.size(); d++) {
            double[] ratio = new double[rounds];
            for (int r = 0; r < rounds; r++) ratio[r] = ns[d][r] / ns[0][r];
            double[] sorted = ns[d].clone();
            Arrays.sort(sorted);
            Arrays.sort(ratio);
            System.out.printf("%-10s %10.0f %10.0f %10.0f   %.3f %.3f %.3f%n", designs.get(d).name(), pct(sorted, 10),
                    pct(sorted, 50), pct(sorted, 90), pct(ratio, 10), pct(ratio, 50), pct(ratio, 90));
        }
    }

    private static double pct(double[] sorted, int p) {
        return sorted[Math.min(sorted.length - 1, sorted.length * p / 100)];
    }

    private static List<Design> designs() {
        return new ArrayList<>(List.of(echo("sequence", PingPongBenchmark.Sequence::new, BENCH::sequence),
                echo("records", PingPongBenchmark.Records::new, BENCH::records),
                echo("zeroAhead", PingPongBenchmark.ZeroAhead::new, BENCH::zeroAhead),
                echo("rings", PingPongBenchmark.Rings::new, BENCH::rings), channel()));
    }
}
