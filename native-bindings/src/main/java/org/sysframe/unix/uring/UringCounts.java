package org.sysframe.unix.uring;

import java.util.Arrays;
import java.util.Locale;

/**
 * An immutable reading of {@link UringCounters}: SQEs by opcode and CQEs. Subtract two readings for
 * what a stretch of work cost; {@link #describe(long)} says it per call, e.g. {@code 1 SEND + 1 RECV}.
 */
public final class UringCounts {
    /** No SQE, no CQE. */
    public static final UringCounts ZERO = new UringCounts(new long[UringOp.LIMIT], 0);

    private final long[] sqes;
    private final long cqes;

    UringCounts(long[] sqes, long cqes) {
        this.sqes = sqes;
        this.cqes = cqes;
    }

    /** SQEs of op prepared. */
    public long sqes(UringOp op) { return sqes[op.code()]; }

    /** SQEs of every opcode. */
    public long totalSqes() { return Arrays.stream(sqes).sum(); }

    /** CQEs consumed. */
    public long cqes() { return cqes; }

    /** this - earlier. */
    public UringCounts minus(UringCounts earlier) {
        long[] d = new long[sqes.length];
        for (int i = 0; i < d.length; i++) d[i] = sqes[i] - earlier.sqes[i];
        return new UringCounts(d, cqes - earlier.cqes);
    }

    /** this + other. */
    public UringCounts plus(UringCounts other) {
        long[] d = new long[sqes.length];
        for (int i = 0; i < d.length; i++) d[i] = sqes[i] + other.sqes[i];
        return new UringCounts(d, cqes + other.cqes);
    }

    /** SQEs per call by opcode, e.g. {@code 1 SEND + 1 RECV} (calls 1 gives totals); {@code no SQE} when none. */
    public String describe(long calls) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < sqes.length; i++) {
            if (sqes[i] == 0) continue;
            if (b.length() > 0) b.append(" + ");
            UringOp op = UringOp.of(i);
            b.append(number((double) sqes[i] / calls)).append(' ').append(op == null ? "op" + i : op.name());
        }
        return b.length() == 0 ? "no SQE" : b.toString();
    }

    private static String number(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.3f", v);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof UringCounts u && cqes == u.cqes && Arrays.equals(sqes, u.sqes);
    }

    @Override
    public int hashCode() { return Arrays.hashCode(sqes) * 31 + Long.hashCode(cqes); }

    @Override
    public String toString() { return describe(1) + ", " + cqes + " CQE"; }
}
