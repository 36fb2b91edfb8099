package org.sysframe.transport;

/**
 * When the server writes responses: {@code IMMEDIATE}, each as it is produced, with the server's
 * {@link SendFraming}; {@code DEFERRED}, every response produced while handling one read is queued and
 * the batch leaves in one {@code writev}, flushed early once the high-water mark is queued.
 */
public enum FlushMode {
    IMMEDIATE,
    DEFERRED;

    /** Grout's merged change flushes early at 64 KiB to bound memory during long streams. */
    public static final int DEFAULT_HIGH_WATER = 64 * 1024;

    public static FlushMode parse(String s) {
        return switch (s.toLowerCase(java.util.Locale.ROOT)) {
            case "immediate" -> IMMEDIATE;
            case "deferred" -> DEFERRED;
            default -> throw new IllegalArgumentException("flush mode '" + s + "': expected immediate or deferred");
        };
    }
}
