package org.sysframe.transport.internal.io;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Locale;

/**
 * Rate limit of one kind of WARNING line: within each interval the first {@code perInterval} lines
 * are logged, the rest only counted; once the interval is over, the count is logged as one line
 * ({@code "<kind>: ... and K more like it in the last S s"}), when the next line of the kind comes, at
 * the next timer check of a loop, or when the server stops. So a flood of one kind costs at most
 * {@code perInterval + 1} lines per interval, and every suppressed line is accounted for. Any thread
 * (the loops share one limiter per kind); warnings only, never the hot path.
 */
public final class LogLimiter {
    private static final Logger LOG = SafeLogger.of("org.sysframe.server");

    private final String kind;
    private final int perInterval;
    private final long intervalNanos;
    private long windowStart;
    private boolean windowOpen;
    private int logged;
    private long suppressed;
    private volatile boolean pending; // suppressed lines wait for their summary

    public LogLimiter(String kind, int perInterval, long intervalNanos) {
        this.kind = kind;
        this.perInterval = perInterval;
        this.intervalNanos = intervalNanos;
    }

    /** Logs message at WARNING, unless this interval's lines of the kind are used up (then it is counted). */
    public void warn(String message) {
        warn(message, null);
    }

    /** As {@link #warn(String)}, the line carrying thrown's stack trace (when not null). */
    public void warn(String message, Throwable thrown) {
        if (!LOG.isLoggable(Level.WARNING)) return;
        long now = System.nanoTime();
        String summary;
        boolean log;
        synchronized (this) {
            summary = closeWindowIfOver(now);
            if (!windowOpen) {
                windowOpen = true;
                windowStart = now;
                logged = 0;
            }
            log = logged < perInterval;
            if (log) logged++;
            else {
                suppressed++;
                pending = true;
            }
        }
        if (summary != null) LOG.log(Level.WARNING, summary);
        if (log && thrown == null) LOG.log(Level.WARNING, message);
        else if (log) LOG.log(Level.WARNING, message, thrown);
    }

    /** Whether suppressed lines wait for their summary line (a loop's timer should run). */
    public boolean pending() { return pending; }

    /** Logs the summary of an interval that is over (all: of the current one too, at stop). */
    public void flush(boolean all) {
        if (!pending) return;
        String summary;
        synchronized (this) {
            summary = all ? summary(System.nanoTime()) : closeWindowIfOver(System.nanoTime());
        }
        if (summary != null) LOG.log(Level.WARNING, summary);
    }

    private String closeWindowIfOver(long now) {
        if (!windowOpen || now - windowStart < intervalNanos) return null;
        return summary(now);
    }

    private String summary(long now) {
        String s = suppressed == 0 ? null
                : String.format(Locale.ROOT, "%s: ... and %d more like it in the last %.1f s", kind, suppressed,
                        (now - windowStart) / 1e9);
        windowOpen = false;
        suppressed = 0;
        pending = false;
        return s;
    }
}
