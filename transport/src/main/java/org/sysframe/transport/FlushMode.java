package org.sysframe.transport;

import java.util.Locale;

/**
 * When the server writes responses: {@code IMMEDIATE}, each as it is produced, with the server's
 * {@link SendFraming}; {@code DEFERRED}, every response produced while handling one read is queued and
 * the batch leaves in one {@code writev}, flushed early once the high-water mark is queued.
 */
public enum FlushMode {
    /** Each response is written as it is produced, with the server's {@link SendFraming}. */
    IMMEDIATE,
    /** The responses produced while handling one read are queued and leave in one {@code writev}. */
    DEFERRED;

    /** The default high-water mark: 64 KiB, where a deferred batch is flushed early to bound memory. */
    public static final int DEFAULT_HIGH_WATER = 64 * 1024;

    /** Parses {@code immediate} or {@code deferred}; anything else fails naming the value and the forms. */
    public static FlushMode parse(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "immediate" -> IMMEDIATE;
            case "deferred" -> DEFERRED;
            default -> throw new IllegalArgumentException("flush mode '" + s + "': expected immediate or deferred");
        };
    }
}
