package org.sysframe.transport;

import org.sysframe.transport.wire.EventHeader;

import java.util.Locale;

/**
 * How a message (header + payload) leaves: {@link Kind#SPLIT} header then payload, two sends;
 * {@link Kind#COPY} both copied into one buffer and sent once when they fit under the threshold, else
 * split (threshold 1024 by default); {@link Kind#GATHER} one {@code sendmsg} with a two-entry
 * iovec, no copy; {@link Kind#COPY_GATHER} copies and sends once under the
 * threshold, and gathers above it: one syscall at every size, and no large copy.
 */
public record SendFraming(Kind kind, int copyThreshold) {
    /** How header and payload are handed to the kernel. */
    public enum Kind {
        /** Sends the header, then the payload: two sends for a message with a payload. */
        SPLIT,
        /** Copies header and payload into one buffer, sent once, when they fit the copy threshold; else splits. */
        COPY,
        /** Sends header and payload with one {@code sendmsg} of a two-entry iovec, without copying. */
        GATHER,
        /** Copies and sends once when the message fits the copy threshold, else gathers: one syscall at any size. */
        COPY_GATHER
    }

    /** The default copy threshold: 1024 bytes. */
    public static final int DEFAULT_COPY_THRESHOLD = 1024;

    /** {@link Kind#SPLIT}: header, then payload, two sends. */
    public static final SendFraming SPLIT = new SendFraming(Kind.SPLIT, 0);
    /** {@link Kind#COPY} with the default copy threshold. */
    public static final SendFraming COPY = new SendFraming(Kind.COPY, DEFAULT_COPY_THRESHOLD);
    /** {@link Kind#GATHER}: one {@code sendmsg} of header and payload, no copy. */
    public static final SendFraming GATHER = new SendFraming(Kind.GATHER, 0);

    /** Checks the copy threshold of {@link Kind#COPY} and {@link Kind#COPY_GATHER}: 16 bytes to 16 MiB. */
    public SendFraming {
        if ((kind == Kind.COPY || kind == Kind.COPY_GATHER)
                && (copyThreshold < EventHeader.SIZE || copyThreshold > 16 << 20)) {
            throw new IllegalArgumentException("copy threshold " + copyThreshold + " out of [16, 16 MiB]");
        }
    }

    /** {@link Kind#COPY_GATHER} with the default copy threshold: the client's and the server's default. */
    public static final SendFraming COPY_GATHER = new SendFraming(Kind.COPY_GATHER, DEFAULT_COPY_THRESHOLD);

    /** {@link Kind#COPY} with a copy threshold of threshold bytes (16 bytes to 16 MiB). */
    public static SendFraming copy(int threshold) { return new SendFraming(Kind.COPY, threshold); }

    /** {@link Kind#COPY_GATHER} with a copy threshold of threshold bytes (16 bytes to 16 MiB). */
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
