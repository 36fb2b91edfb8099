package org.sysframe.transport.internal.io;

import java.io.PrintStream;
import java.lang.System.Logger;
import java.text.MessageFormat;
import java.util.ResourceBundle;

/**
 * A {@link Logger} that never throws into its caller: an event loop's log line must not end the loop.
 * Logging can fail exactly when a loop has most to say: out of descriptors, the first line a JVM
 * formats opens files (java.util.logging's formatter loads the time-zone rules from the JDK's
 * {@code tzdb.dat} then), and the failure propagated out of the loop's accept path and ended its thread.
 * A line the logger cannot take goes to standard error (a descriptor open from the start) with why.
 *
 * <p>The logger behind it is got on first use, not as the class holding it loads: {@code System.getLogger}
 * starts java.util.logging (its LogManager, its configuration file), tens of milliseconds of a client's
 * first connect in a fresh JVM that logs nothing.
 */
public final class SafeLogger implements Logger {
    private final String name;
    /** The logger of that name once asked for (a race gets the same logger twice: harmless). */
    private volatile Logger delegate;

    private SafeLogger(String name) { this.name = name; }

    /** The logger of that name, made safe; the platform's logger is got when a line is first asked about. */
    public static SafeLogger of(String name) { return new SafeLogger(name); }

    private Logger delegate() {
        Logger d = delegate;
        if (d == null) delegate = d = System.getLogger(name);
        return d;
    }

    @Override
    public String getName() { return name; }

    @Override
    public boolean isLoggable(Level level) {
        try {
            return delegate().isLoggable(level);
        } catch (RuntimeException | Error e) {
            return true; // the fallback below takes the line
        }
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
        try {
            delegate().log(level, bundle, msg, thrown);
        } catch (RuntimeException | Error e) {
            fallback(level, msg, thrown, e);
        }
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        try {
            delegate().log(level, bundle, format, params);
        } catch (RuntimeException | Error e) {
            String msg = format;
            try {
                msg = params == null || params.length == 0 ? format : MessageFormat.format(format, params);
            } catch (RuntimeException | Error ignored) {
                // keep the pattern as it is
            }
            fallback(level, msg, null, e);
        }
    }

    private void fallback(Level level, String msg, Throwable thrown, Throwable why) {
        try {
            PrintStream err = System.err;
            err.println(getName() + " " + level + ": " + msg + " (the logger failed: " + why + ")");
            if (thrown != null) thrown.printStackTrace(err);
        } catch (RuntimeException | Error ignored) {
            // Nowhere left to say it: the caller goes on.
        }
    }
}
