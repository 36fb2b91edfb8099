package org.sysframe.transport;

import java.util.Locale;

/**
 * How a client reads messages: {@code EXACT} reads the header, then the payload (two recv per
 * message with a payload); {@code READAHEAD} reads as much as is there into a buffer of
 * {@code bufferSize} bytes and cuts messages out of it (one recv for a small response, and several
 * pipelined responses per recv).
 */
public record RecvFraming(boolean readAhead, int bufferSize) {
    /** The default read-ahead buffer size: 8192 bytes (BUFSIZ). */
    public static final int DEFAULT_BUFFER = 8192;

    /** Reads the header, then the payload. */
    public static final RecvFraming EXACT = new RecvFraming(false, 0);
    /** Reads ahead into a buffer of {@link #DEFAULT_BUFFER} bytes. */
    public static final RecvFraming READAHEAD = new RecvFraming(true, DEFAULT_BUFFER);

    /** Checks the buffer size of a read-ahead framing: 64 bytes to 16 MiB. */
    public RecvFraming {
        if (readAhead && (bufferSize < 64 || bufferSize > 16 << 20)) {
            throw new IllegalArgumentException("read-ahead size " + bufferSize + " out of [64, 16 MiB]");
        }
    }

    /** Reads ahead into a buffer of size bytes (64 bytes to 16 MiB). */
    public static RecvFraming readAhead(int size) { return new RecvFraming(true, size); }

    /** Parses {@code exact}, {@code readahead} or {@code readahead:SIZE}. */
    public static RecvFraming parse(String s) {
        String[] p = s.toLowerCase(Locale.ROOT).split(":", 2);
        return switch (p[0]) {
            case "exact" -> EXACT;
            case "readahead" -> p.length == 1 ? READAHEAD
                    : readAhead(SendFraming.size(p[1], s, "exact or readahead[:SIZE]"));
            default -> throw new IllegalArgumentException("recv framing '" + s
                    + "': expected exact or readahead[:SIZE]");
        };
    }

    @Override
    public String toString() {
        return readAhead ? "readahead:" + bufferSize : "exact";
    }
}
