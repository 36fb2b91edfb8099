package org.sysframe.transport;

import org.sysframe.transport.wire.EventHeader;

import java.util.Locale;

/**
 * How a message (header + payload) leaves: {@link Kind#SPLIT} header then payload, two sends;
 * {@link Kind#COPY} both copied into one buffer and sent once when they fit under the threshold, else
 * split (the seed patch, threshold 1024); {@link Kind#GATHER} one {@code sendmsg} with a two-entry
 * iovec, no copy (Grout's merged change); {@link Kind#COPY_GATHER} copies and sends once under the
 * threshold, and gathers above it: one syscall at every size, and no large copy.
 */
public record SendFraming(Kind kind, int copyThreshold) {
    public enum Kind { SPLIT, COPY, GATHER, COPY_GATHER }

    /** The seed patch's buffer size. */
    public static final int DEFAULT_COPY_THRESHOLD = 1024;

    public static final SendFraming SPLIT = new SendFraming(Kind.SPLIT, 0);
    public static final SendFraming COPY = new SendFraming(Kind.COPY, DEFAULT_COPY_THRESHOLD);
    public static final SendFraming GATHER = new SendFraming(Kind.GATHER, 0);

    public SendFraming {
        if ((kind == Kind.COPY || kind == Kind.COPY_GATHER) && (copyThreshold < EventHeader.SIZE || copyThreshold > 16 << 20)) {
            throw new IllegalArgumentException("copy threshold " + copyThreshold + " out of [16, 16 MiB]");
        }
    }

    public static final SendFraming COPY_GATHER = new SendFraming(Kind.COPY_GATHER, DEFAULT_COPY_THRESHOLD);

    public static SendFraming copy(int threshold) { return new SendFraming(Kind.COPY, threshold); }

    public static SendFraming copyGather(int threshold) { return new SendFraming(Kind.COPY_GATHER, threshold); }

    private static final String FORMS = "split, copy[:SIZE], gather or copygather[:SIZE] (SIZE in bytes)";

    /** A size in a framing's text form; anything but a whole number fails naming the text and the forms. */
    static int size(String n, String whole, String forms) {
        try {
            return Integer.parseInt(n);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + whole + "': " + n + " is not a size in bytes; expected " + forms);
        }
    }

    /** Parses {@code split}, {@code copy}, {@code copy:SIZE}, {@code gather} or {@code copygather[:SIZE]}. */
    public static SendFraming parse(String s) {
        String[] p = s.toLowerCase(Locale.ROOT).split(":", 2);
        return switch (p[0]) {
            case "split" -> SPLIT;
            case "gather" -> GATHER;
            case "copy" -> p.length == 1 ? COPY : copy(size(p[1], s, FORMS));
            case "copygather" -> p.length == 1 ? COPY_GATHER : copyGather(size(p[1], s, FORMS));
            default -> throw new IllegalArgumentException("send framing '" + s + "': expected " + FORMS);
        };
    }

    @Override
    public String toString() {
        return switch (kind) {
            case COPY -> "copy:" + copyThreshold;
            case COPY_GATHER -> "copygather:" + copyThreshold;
            default -> kind.name().toLowerCase(Locale.ROOT);
        };
    }
}
