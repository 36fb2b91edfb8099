package org.sysframe.transport;

import java.time.Duration;
import java.util.Locale;

/**
 * How a thread waits for its socket (a client for its answer, a server loop for events):
 * {@link Kind#BLOCK} sleeps in the kernel until there is something (the least CPU, a wake-up per
 * call); {@link Kind#SPIN} tries without blocking again and again and never sleeps (the lowest
 * latency, a whole core busy); {@link Kind#SPIN_THEN_BLOCK} spins up to {@link #spinNanos()}, then
 * blocks; {@link Kind#YIELD} tries without blocking and gives the CPU away (sched_yield) between
 * tries, for threads that share a core. The empty tries are counted as empty calls of their kind.
 */
public record WaitMode(Kind kind, long spinNanos) {
    /** What the waiting thread does until there is something. */
    public enum Kind {
        /** Sleeps in the kernel until there is something. */
        BLOCK,
        /** Tries without blocking again and again, and never sleeps. */
        SPIN,
        /** Spins up to {@link WaitMode#spinNanos()}, then blocks. */
        SPIN_THEN_BLOCK,
        /** Tries without blocking and gives the CPU away (sched_yield) between tries. */
        YIELD
    }

    /** Longest spin budget accepted: past it, blocking is what anyone wants. */
    public static final Duration MAX_SPIN = Duration.ofSeconds(10);

    /** {@link Kind#BLOCK}: sleeps in the kernel until there is something. */
    public static final WaitMode BLOCK = new WaitMode(Kind.BLOCK, 0);
    /** {@link Kind#SPIN}: tries again and again without blocking. */
    public static final WaitMode SPIN = new WaitMode(Kind.SPIN, 0);
    /** {@link Kind#YIELD}: tries without blocking, yielding the CPU between tries. */
    public static final WaitMode YIELD = new WaitMode(Kind.YIELD, 0);

    /** Checks the spin budget: more than 0 and at most {@link #MAX_SPIN} with SPIN_THEN_BLOCK, else 0. */
    public WaitMode {
        if (kind == Kind.SPIN_THEN_BLOCK && (spinNanos <= 0 || spinNanos > MAX_SPIN.toNanos())) {
            throw new IllegalArgumentException("spin budget " + spinNanos + " ns: expected more than 0 and at most "
                    + MAX_SPIN.toSeconds() + " s");
        }
        if (kind != Kind.SPIN_THEN_BLOCK && spinNanos != 0) throw new IllegalArgumentException(kind
                + " takes no spin budget");
    }

    /** Spins up to budget, then blocks. */
    public static WaitMode spinThenBlock(Duration budget) {
        return new WaitMode(Kind.SPIN_THEN_BLOCK, budget.toNanos());
    }

    /** Whether the waiting thread ever sleeps in the kernel. */
    public boolean blocks() { return kind == Kind.BLOCK || kind == Kind.SPIN_THEN_BLOCK; }

    /**
     * Parses {@code block}, {@code spin}, {@code spin:DURATION} (a whole number with ns, us, ms or s,
     * e.g. {@code spin:50us}) or {@code yield}; anything else fails naming the value and the forms.
     */
    public static WaitMode parse(String s) {
        String v = s.trim().toLowerCase(Locale.ROOT);
        if (v.equals("block")) return BLOCK;
        if (v.equals("spin")) return SPIN;
        if (v.equals("yield")) return YIELD;
        if (v.startsWith("spin:")) return spinThenBlock(parseDuration(v.substring(5), s));
        throw new IllegalArgumentException("wait mode '" + s
                + "': expected block, spin, spin:DURATION (e.g. spin:50us) or yield");
    }

    private static Duration parseDuration(String d, String whole) {
        int unitAt = 0;
        while (unitAt < d.length() && Character.isDigit(d.charAt(unitAt))) unitAt++;
        String unit = d.substring(unitAt);
        long n;
        try {
            n = Long.parseLong(d.substring(0, unitAt));
        } catch (NumberFormatException e) {
            n = -1;
        }
        Duration out = switch (unit) {
            case "ns" -> n < 0 ? null : Duration.ofNanos(n);
            case "us" -> n < 0 ? null : Duration.ofNanos(n * 1000);
            case "ms" -> n < 0 ? null : Duration.ofMillis(n);
            case "s" -> n < 0 ? null : Duration.ofSeconds(n);
            default -> null;
        };
        if (out == null || out.isZero() || out.compareTo(MAX_SPIN) > 0) {
            throw new IllegalArgumentException("wait mode '" + whole
                    + "': the spin budget must be a whole number of ns, us, ms or s,"
                    + " more than 0 and at most " + MAX_SPIN.toSeconds() + " s (e.g. spin:50us)");
        }
        return out;
    }

    @Override
    public String toString() {
        if (kind != Kind.SPIN_THEN_BLOCK) return kind.name().toLowerCase(Locale.ROOT);
        long ns = spinNanos;
        if (ns % 1_000_000_000L == 0) return "spin:" + ns / 1_000_000_000L + "s";
        if (ns % 1_000_000L == 0) return "spin:" + ns / 1_000_000L + "ms";
        if (ns % 1_000L == 0) return "spin:" + ns / 1_000L + "us";
        return "spin:" + ns + "ns";
    }
}
