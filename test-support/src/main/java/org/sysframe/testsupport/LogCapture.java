package org.sysframe.testsupport;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Keeps a green run quiet: every record of the {@code org.sysframe} loggers (java.util.logging, which
 * {@code System.Logger} goes to) is captured instead of printed, and shown only with a failure, attached
 * to it as a suppressed exception listing the records logged since the failing test (or
 * its class) started, which surefire prints with the failure. Each test class's records also go to
 * {@code target/test-logs/CLASS.log} (what a test logged, and that nothing else did, can be read there).
 *
 * <p>Registered for every test by JUnit's extension autodetection (this jar's
 * {@code META-INF/services/org.junit.jupiter.api.extension.Extension}, enabled in the root pom's surefire
 * configuration). Tests that assert on log records still add their own handlers ({@code ServerLogs});
 * the levels are not changed (what is not logged now is not built now: the allocation tests hold).
 * {@code -Dsysframe.test.logs=print} prints every record as it comes instead, as before.
 */
public final class LogCapture implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback,
        TestExecutionExceptionHandler, LifecycleMethodExecutionExceptionHandler {
    /** The records kept per test (and per class set-up) at most; the rest are counted. */
    static final int MAX_RECORDS = 500;

    /** The records written to a class's file at most. */
    static final int MAX_CLASS_RECORDS = 20_000;

    private static final Logger ROOT = Logger.getLogger("org.sysframe"); // strong: the LogManager keeps loggers weakly
    private static final Object LOCK = new Object();
    private static final Capture CAPTURE = new Capture();
    private static boolean installed;

    /** Every captured record formatted, since the current test or class started. */
    private static final List<String> CURRENT = new ArrayList<>();
    private static long dropped;
    /** The class's records, written to its file after it. */
    private static final List<String> OF_CLASS = new ArrayList<>();

    private static final class Capture extends Handler {
        @Override
        public void publish(LogRecord r) {
            String line = format(r);
            synchronized (LOCK) {
                if (CURRENT.size() < MAX_RECORDS) CURRENT.add(line);
                else dropped++;
                if (OF_CLASS.size() < MAX_CLASS_RECORDS) OF_CLASS.add(line);
            }
        }

        @Override public void flush() {}
        @Override public void close() {}
    }

    /** e.g. {@code SEVERE org.sysframe.server: accept failed: ...}, with the stack trace of a thrown exception. */
    static String format(LogRecord r) {
        StringBuilder sb = new StringBuilder().append(r.getLevel()).append(' ').append(r.getLoggerName()).append(": ")
                .append(message(r));
        if (r.getThrown() != null) {
            StringWriter w = new StringWriter();
            r.getThrown().printStackTrace(new PrintWriter(w));
            sb.append('\n').append(w.toString().stripTrailing());
        }
        return sb.toString();
    }

    private static String message(LogRecord r) {
        String m = r.getMessage();
        Object[] p = r.getParameters();
        if (m == null || p == null || p.length == 0) return m;
        try {
            return MessageFormat.format(m, p);
        } catch (IllegalArgumentException e) {
            return m;
        }
    }

    /** Captures from now on (once per JVM), unless {@code -Dsysframe.test.logs=print}. */
    static void install() {
        synchronized (LOCK) {
            if (installed || "print".equals(System.getProperty("sysframe.test.logs"))) return;
            ROOT.setUseParentHandlers(false);
            ROOT.addHandler(CAPTURE);
            installed = true;
        }
    }

    /** The records captured since the current test (or class) started, and how many past the limit were dropped. */
    public static List<String> records() {
        synchronized (LOCK) {
            List<String> out = new ArrayList<>(CURRENT);
            if (dropped > 0) out.add("(and " + dropped + " more records)");
            return out;
        }
    }

    private static void restart() {
        synchronized (LOCK) {
            CURRENT.clear();
            dropped = 0;
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        install();
        restart();
        synchronized (LOCK) {
            OF_CLASS.clear();
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        restart();
        synchronized (LOCK) {
            OF_CLASS.add("--- " + context.getParent().map(p -> p.getDisplayName() + " > ").orElse("")
                    + context.getDisplayName());
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        List<String> lines;
        synchronized (LOCK) {
            lines = OF_CLASS.stream().anyMatch(l -> !l.startsWith("--- ")) ? new ArrayList<>(OF_CLASS) : List.of();
            OF_CLASS.clear();
        }
        if (lines.isEmpty()) return;
        Path dir = Path.of("target", "test-logs");
        if (!Files.isDirectory(Path.of("target"))) return; // not run from a module's directory: nowhere to put it
        Files.createDirectories(dir);
        Files.write(dir.resolve(context.getRequiredTestClass().getName() + ".log"), lines, StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        throw withRecords(failure);
    }

    @Override
    public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        throw withRecords(failure);
    }

    @Override
    public void handleBeforeEachMethodExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        throw withRecords(failure);
    }

    @Override
    public void handleAfterEachMethodExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        throw withRecords(failure);
    }

    @Override
    public void handleAfterAllMethodExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        throw withRecords(failure);
    }

    /** The records a failure carries: a message only (its stack trace would say nothing). */
    static final class Logged extends RuntimeException {
        Logged(String message) {
            super(message, null, false, false);
        }
    }

    /** The failure, with the records captured so far attached (a skip, an aborted assumption, is left as it is). */
    static Throwable withRecords(Throwable failure) {
        if (failure instanceof TestAbortedException) return failure;
        List<String> records = records();
        if (!records.isEmpty()) {
            failure.addSuppressed(new Logged("logged during the test (" + records.size() + " records):\n  "
                    + String.join("\n  ", records)));
        }
        return failure;
    }
}
