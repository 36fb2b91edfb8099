package org.sysframe.bench.cli;

import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code ping --jfr FILE}: a flight recording of the run with every {@code org.sysframe.*} event at
 * threshold 0 (every call recorded) and the periodic {@code org.sysframe.ConnectionSyscalls} every
 * second, written to FILE when the run ends, however it ends (a JVM exit under way too: SIGINT).
 */
final class PingRecording {
    /** The transport's events (docs/observability.md); enabled by name, so also before their classes load. */
    static final List<String> EVENTS = List.of("org.sysframe.RoundTrip", "org.sysframe.PipelineBatch",
            "org.sysframe.ServerRequest",
            "org.sysframe.ConnectionOpened", "org.sysframe.ConnectionClosed", "org.sysframe.ClientClosed",
                    "org.sysframe.ConnectionSyscalls");
    static final String PERIODIC = "org.sysframe.ConnectionSyscalls";

    private final Recording recording;
    private final Path file;

    private PingRecording(Recording recording, Path file) {
        this.recording = recording;
        this.file = file;
    }

    /**
     * Starts the recording; a FILE that cannot be written is refused (IllegalArgumentException) before anything runs.
     */
    static PingRecording start(Path file) {
        Path dir = file.toAbsolutePath().getParent();
        if (Files.isDirectory(file)) throw new IllegalArgumentException("--jfr " + file
                + ": is a directory; give a file name");
        if (dir == null || !Files.isDirectory(dir)) throw new IllegalArgumentException("--jfr " + file
                + ": the directory " + dir + " does not exist");
        Recording r = new Recording();
        r.setName("sysframe ping");
        r.setToDisk(true);
        try {
            r.setDestination(file);
        } catch (IOException e) {
            r.close();
            throw new IllegalArgumentException("--jfr " + file + ": cannot be written (" + e.getMessage() + ")");
        }
        r.setDumpOnExit(true);
        for (String name : names()) {
            var s = r.enable(name).withThreshold(Duration.ZERO).withoutStackTrace();
            if (name.equals(PERIODIC)) s.withPeriod(Duration.ofSeconds(1));
        }
        r.start();
        return new PingRecording(r, file);
    }

    /** The events enabled: the documented ones and any other {@code org.sysframe.*} type registered by now. */
    static Set<String> names() {
        Set<String> names = new TreeSet<>(EVENTS);
        for (EventType t : FlightRecorder.getFlightRecorder().getEventTypes()) {
            if (t.getName().startsWith("org.sysframe.")) names.add(t.getName());
        }
        return names;
    }

    /** Stops the recording and writes FILE: the line saying where (or why it could not). */
    String finish() {
        try {
            recording.stop(); // writes the destination
            return "flight recording written to " + file + " (read it with: jfr print --events 'org.sysframe.*' "
                    + file + ")";
        } catch (RuntimeException e) {
            return "flight recording NOT written to " + file + ": " + e.getMessage();
        } finally {
            recording.close();
        }
    }
}
