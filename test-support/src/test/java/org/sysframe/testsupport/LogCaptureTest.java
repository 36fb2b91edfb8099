package org.sysframe.testsupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherFactory;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder.request;

/**
 * {@link LogCapture} on a test class of its own, run through the JUnit launcher: a passing test's
 * records reach no handler of the root logger (the console), a failing test carries its own records,
 * exactly, and the class's records are in its file.
 */
class LogCaptureTest {
    static volatile boolean launched;

    /** Run only by the launcher below (surefire leaves nested classes alone; the assumption guards it anyway). */
    @ExtendWith(LogCapture.class)
    static class Sample {
        private static final System.Logger LOG = System.getLogger("org.sysframe.server");

        @Test
        void aLoggingTestThatPasses() {
            assumeTrue(launched);
            LOG.log(System.Logger.Level.WARNING, "a warning of a green test");
        }

        @Test
        void aLoggingTestThatFails() {
            assumeTrue(launched);
            LOG.log(System.Logger.Level.ERROR, "accept failed: EBADF");
            LOG.log(System.Logger.Level.WARNING, "slow reader pid={0}", 42);
            fail("the failure");
        }
    }

    @Test
    void aGreenTestPrintsNothingAndAFailureCarriesItsOwnRecords() throws Exception {
        List<String> console = new CopyOnWriteArrayList<>();
        Logger root = Logger.getLogger("");
        Handler spy = new Handler() {
            @Override public void publish(LogRecord r) { console.add(r.getMessage()); }
            @Override public void flush() {}
            @Override public void close() {}
        };
        Path file = Path.of("target", "test-logs", Sample.class.getName() + ".log");
        Files.deleteIfExists(file);
        Map<String, TestExecutionResult> results = new ConcurrentHashMap<>();
        root.addHandler(spy);
        launched = true;
        try {
            Launcher launcher = LauncherFactory.create();
            launcher.execute(request().selectors(selectClass(Sample.class)).build(), new TestExecutionListener() {
                @Override
                public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                    if (id.isTest()) results.put(id.getDisplayName(), result);
                }
            });
        } finally {
            launched = false;
            root.removeHandler(spy);
        }
        assertEquals(List.of(), console, "no record reached the root logger's handlers");
        assertEquals(TestExecutionResult.Status.SUCCESSFUL, results.get("aLoggingTestThatPasses()").getStatus());
        TestExecutionResult failed = results.get("aLoggingTestThatFails()");
        assertEquals(TestExecutionResult.Status.FAILED, failed.getStatus());
        Throwable t = failed.getThrowable().orElseThrow();
        assertEquals("the failure", t.getMessage());
        assertEquals(1, t.getSuppressed().length);
        assertEquals("logged during the test (2 records):\n  SEVERE org.sysframe.server: accept failed: EBADF\n"
                + "  WARNING org.sysframe.server: slow reader pid=42", t.getSuppressed()[0].getMessage());
        List<String> logged = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertTrue(logged.contains("WARNING org.sysframe.server: a warning of a green test"), logged.toString());
        assertTrue(logged.contains("SEVERE org.sysframe.server: accept failed: EBADF"), logged.toString());
        assertEquals(2, logged.stream().filter(l -> l.startsWith("--- ")).count(), "one marker per test: " + logged);
    }
}
