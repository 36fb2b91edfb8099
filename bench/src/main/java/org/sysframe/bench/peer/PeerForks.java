package org.sysframe.bench.peer;

import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.ServerSample;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * F child JVMs ({@link PeerFork}) holding the same peers, with the rounds spread over them: round r
 * runs in fork {@code (r - 1) mod F}, every cell of a round in the same fork, so that a round's
 * ratios compare peers of one JVM while the rounds of a table come from every fork alike (a JVM that
 * is slower for its whole life weighs 1/F of the rounds, not all of them). Every fork runs the
 * warm-up run of every cell (each JVM compiles its own code), and a warm-up of at least
 * {@link #MIN_WARM_UP_CALLS} calls: a fresh JVM has not run the other tables' clients first.
 */
public final class PeerForks implements AutoCloseable {
    /** The fewest warm-up calls a fork's peer makes per payload, whatever the round length. */
    public static final long MIN_WARM_UP_CALLS = 5_000;

    private final List<PeerFork> forks;

    private PeerForks(List<PeerFork> forks) { this.forks = forks; }

    /** Starts count forks of peers against socket, their peer threads pinned to cpu (-1: not pinned). */
    public static PeerForks start(int count, PeerFork.Peers peers, String socket, int cpu) throws IOException {
        if (count < 1) throw new IllegalArgumentException("forks " + count + ": at least 1");
        List<PeerFork> started = new ArrayList<>(count);
        try {
            for (int i = 1; i <= count; i++) started.add(PeerFork.start(peers, socket, cpu, i));
        } catch (IOException | RuntimeException e) {
            for (PeerFork f : started) f.close();
            throw e;
        }
        return new PeerForks(List.copyOf(started));
    }

    /** How many forks. */
    public int count() { return forks.size(); }

    /** The fork that runs round (1, 2, ...): {@code (round - 1) mod count}, 0-based. */
    public static int forkOf(int round, int count) { return Math.floorMod(round - 1, count); }

    /** A probe of peer: a warm-up in every fork (at least {@link #MIN_WARM_UP_CALLS}), a round in its fork. */
    public Cell.Probe probe(String peer, ServerSample.Source server) {
        List<Cell.Probe> probes = forks.stream().map(f -> f.probe(peer, server)).toList();
        return (cell, calls, round) -> {
            if (round == Measurement.WARM_UP) {
                Measurement last = null;
                for (Cell.Probe p : probes) last = p.measure(cell, Math.max(calls, MIN_WARM_UP_CALLS), round);
                return last;
            }
            return probes.get(forkOf(round, probes.size())).measure(cell, calls, round);
        };
    }

    /**
     * One line of how far apart the forks came out: per payload, reference's calls/s over versus's,
     * the median of each fork's rounds, e.g. {@code forks: sysframe/c-lean calls/s, median per fork:
     * 32 B 1.031 1.047 0.998; 1024 B 1.012 0.967 1.020}.
     */
    public static String spread(List<Measurement> runs, int count, String reference, String versus, int[] payloads) {
        StringBuilder sb = new StringBuilder("forks: " + reference + "/" + versus + " calls/s, median per fork:");
        for (int payload : payloads) {
            sb.append(payload == payloads[0] ? " " : "; ").append(payload).append(" B");
            Map<Integer, Measurement> ref = new HashMap<>(), vs = new HashMap<>();
            for (Measurement m : runs) {
                if (m.payload() != payload) continue;
                if (m.cell().equals(reference)) ref.put(m.round(), m);
                if (m.cell().equals(versus)) vs.put(m.round(), m);
            }
            for (int k = 0; k < count; k++) {
                List<Double> ratios = new ArrayList<>();
                for (var e : ref.entrySet()) {
                    Measurement v = vs.get(e.getKey());
                    if (v != null && forkOf(e.getKey(), count) == k) ratios.add(e.getValue().callsPerSecond()
                            / v.callsPerSecond());
                }
                sb.append(' ').append(ratios.isEmpty() ? "-" : String.format(Locale.ROOT, "%.3f", median(ratios)));
            }
        }
        return sb.toString();
    }

    static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    @Override
    public void close() {
        for (PeerFork f : forks) f.close();
    }
}
