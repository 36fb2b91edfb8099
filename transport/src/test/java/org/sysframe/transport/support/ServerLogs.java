package org.sysframe.transport.support;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The server's log lines (logger {@code org.sysframe.server}, or another, WARNING and above) while open, captured
 * instead of printed: a test that provokes warnings asserts on them and keeps the run quiet.
 */
public final class ServerLogs implements AutoCloseable {
    private final Logger logger;
    private final boolean parents;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Handler handler = new Handler() {
        @Override public void publish(LogRecord r) {
            if (r.getLevel().intValue() >= Level.WARNING.intValue()) lines.add(r.getMessage());
        }
        @Override public void flush() {}
        @Override public void close() {}
    };

    public ServerLogs() {
        this("org.sysframe.server");
    }

    /** The lines of another of the project's loggers, e.g. {@code org.sysframe.client}. */
    public ServerLogs(String name) {
        logger = Logger.getLogger(name);
        parents = logger.getUseParentHandlers();
        logger.setUseParentHandlers(false);
        logger.addHandler(handler);
    }

    /** Every line captured so far, in order. */
    public List<String> lines() { return List.copyOf(lines); }

    /** The lines captured so far that match. */
    public List<String> lines(Predicate<String> which) { return lines.stream().filter(which).toList(); }

    @Override
    public void close() {
        logger.removeHandler(handler);
        logger.setUseParentHandlers(parents);
    }
}
