package org.sysframe.bench.explore;

import java.util.Locale;

/**
 * The accepted range of each size the explorer takes from the command line ({@code --pairing} keys and
 * sweep values), so that every refusal names the same range in the same words.
 */
public final class Limits {
    private Limits() {}

    /** An inclusive range of whole numbers in a unit, e.g. {@code 64..16777216 bytes}. */
    record Range(String what, long min, long max, String unit) {
        /** e.g. {@code 64..16777216 bytes}. */
        String accepted() { return min + ".." + max + (unit.isEmpty() ? "" : " " + unit); }

        /**
         * The number in text, which is given as {@code given} (e.g. {@code readahead=32}); anything else
         * fails with one line naming given and the accepted range.
         */
        int parse(String given, String text) {
            long v;
            try {
                v = Long.parseLong(text.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(given + ": not a whole number; accepted " + accepted());
            }
            if (v < min || v > max) throw new IllegalArgumentException(given + ": " + what + " out of range; accepted "
                    + accepted());
            return (int) v;
        }
    }

    /** Bytes a copying send copies at most (above it: split or gather); at least a header. */
    static final Range COPY_THRESHOLD = new Range("copy threshold", 16, 128 * 1024, "bytes");
    /** The client's read-ahead buffer. */
    static final Range READAHEAD = new Range("read-ahead", 64, 16 << 20, "bytes");
    /** Bytes a deferred server queues before flushing early (the server refuses less than 1024). */
    static final Range HIGH_WATER = new Range("high-water", 1024, 16 << 20, "bytes");
    /** Requests a client keeps in flight. */
    static final Range DEPTH = new Range("depth", 1, 1024, "");
    /** A CPU to pin the client to (-1: none); the connect fails naming it when the machine has no such CPU. */
    static final Range CPU = new Range("cpu", -1, 4095, "");

    /** e.g. {@code 1 KiB}, {@code 1.5 KiB}, {@code 32 B}: a payload size for a sentence. */
    public static String size(double bytes) {
        if (bytes < 1024) return String.format(Locale.ROOT, "%.0f B", bytes);
        double k = bytes / 1024;
        if (k < 1024) return (k == Math.rint(k) ? String.format(Locale.ROOT, "%.0f", k)
                : String.format(Locale.ROOT, "%.1f", k)) + " KiB";
        double m = k / 1024;
        return (m == Math.rint(m) ? String.format(Locale.ROOT, "%.0f", m) : String.format(Locale.ROOT, "%.1f", m))
                + " MiB";
    }
}
