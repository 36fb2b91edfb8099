package org.sysframe.unix;

import java.util.Arrays;
import java.util.Map;

/**
 * An immutable set of per-kind syscall counts: a snapshot of {@link SyscallCounters}, a reading of a
 * {@link KernelSyscallCounter}, or the difference of two of those (the cost of what ran in between).
 */
public final class SyscallCounts {
    /** No calls at all. */
    public static final SyscallCounts ZERO = new SyscallCounts(new long[SyscallKind.count()]);

    private final long[] counts;

    SyscallCounts(long[] counts) {
        this.counts = counts;
    }

    /** Counts by kind, e.g. {@code of(Map.of(SyscallKind.SENDTO, 1000L))}; kinds not in the map are 0. */
    public static SyscallCounts of(Map<SyscallKind, Long> byKind) {
        Builder b = builder();
        byKind.forEach(b::count);
        return b.build();
    }

    /**
     * A builder naming each kind, e.g.
     * {@code SyscallCounts.builder().sendto(1000).recvfrom(1000).epollWait(1000).build()}.
     */
    public static Builder builder() { return new Builder(); }

    /** Sets counts kind by kind; kinds never set are 0. */
    public static final class Builder {
        private final long[] counts = new long[SyscallKind.count()];

        private Builder() {}

        /** Sets the count of kind (the last value set for a kind wins). */
        public Builder count(SyscallKind kind, long n) {
            counts[kind.ordinal()] = n;
            return this;
        }

        /** Sets the count of {@link SyscallKind#SENDTO}. */
        public Builder sendto(long n) { return count(SyscallKind.SENDTO, n); }
        /** Sets the count of {@link SyscallKind#RECVFROM}. */
        public Builder recvfrom(long n) { return count(SyscallKind.RECVFROM, n); }
        /** Sets the count of {@link SyscallKind#SENDMSG}. */
        public Builder sendmsg(long n) { return count(SyscallKind.SENDMSG, n); }
        /** Sets the count of {@link SyscallKind#RECVMSG}. */
        public Builder recvmsg(long n) { return count(SyscallKind.RECVMSG, n); }
        /** Sets the count of {@link SyscallKind#WRITEV}. */
        public Builder writev(long n) { return count(SyscallKind.WRITEV, n); }
        /** Sets the count of {@link SyscallKind#READV}. */
        public Builder readv(long n) { return count(SyscallKind.READV, n); }
        /** Sets the count of {@link SyscallKind#EPOLL_WAIT}. */
        public Builder epollWait(long n) { return count(SyscallKind.EPOLL_WAIT, n); }
        /** Sets the count of {@link SyscallKind#IO_URING_ENTER}. */
        public Builder ioUringEnter(long n) { return count(SyscallKind.IO_URING_ENTER, n); }
        /** Sets the count of {@link SyscallKind#SCHED_YIELD}. */
        public Builder schedYield(long n) { return count(SyscallKind.SCHED_YIELD, n); }
        /** Sets the count of {@link SyscallKind#FUTEX}. */
        public Builder futex(long n) { return count(SyscallKind.FUTEX, n); }
        /** Sets the count of {@link SyscallKind#READ}. */
        public Builder read(long n) { return count(SyscallKind.READ, n); }
        /** Sets the count of {@link SyscallKind#WRITE}. */
        public Builder write(long n) { return count(SyscallKind.WRITE, n); }

        /** The counts set so far; the builder can go on being used. */
        public SyscallCounts build() { return new SyscallCounts(counts.clone()); }
    }

    /** The count of kind. */
    public long get(SyscallKind kind) { return counts[kind.ordinal()]; }

    /** The sum over every kind. */
    public long total() {
        long t = 0;
        for (long c : counts) t += c;
        return t;
    }

    /** this - earlier, kind by kind: what was called between the two readings. */
    public SyscallCounts minus(SyscallCounts earlier) {
        long[] d = new long[counts.length];
        for (int i = 0; i < d.length; i++) d[i] = counts[i] - earlier.counts[i];
        return new SyscallCounts(d);
    }

    /** These counts with kind's set to 0 (e.g. the I/O of a window, its sched_yield calls aside). */
    public SyscallCounts without(SyscallKind kind) {
        long[] d = counts.clone();
        d[kind.ordinal()] = 0;
        return new SyscallCounts(d);
    }

    /** this + other, kind by kind. */
    public SyscallCounts plus(SyscallCounts other) {
        long[] d = new long[counts.length];
        for (int i = 0; i < d.length; i++) d[i] = counts[i] + other.counts[i];
        return new SyscallCounts(d);
    }

    /** Count of kind divided by n (calls per transaction when n is the number of transactions). */
    public double perCall(SyscallKind kind, long n) {
        return n == 0 ? 0 : (double) counts[kind.ordinal()] / n;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SyscallCounts other && Arrays.equals(counts, other.counts);
    }

    @Override
    public int hashCode() { return Arrays.hashCode(counts); }

    /** Non-zero kinds only, e.g. {@code sendto=2000 recvfrom=1000}; {@code none} when all are zero. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (SyscallKind k : SyscallKind.values()) {
            long c = counts[k.ordinal()];
            if (c != 0) {
                if (!sb.isEmpty()) sb.append(' ');
                sb.append(k.kernelName()).append('=').append(c);
            }
        }
        return sb.isEmpty() ? "none" : sb.toString();
    }
}
