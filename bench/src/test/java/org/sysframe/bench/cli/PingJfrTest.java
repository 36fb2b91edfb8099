package org.sysframe.bench.cli;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ping --jfr FILE} against an embedded server: the file holds one {@code org.sysframe.RoundTrip}
 * per call (warm-up included: every call at threshold 0), the server's events too (it runs in this
 * JVM), one line says where it was written, also when the run fails; and the line of the CPUs says why
 * the server's are unknown.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PingJfrTest {
    @TempDir Path dir;

    private static PingRuns.Outcome ping(String path, String... args) throws Exception {
        return PingRuns.run(path, List.of(args));
    }

    private static List<RecordedEvent> events(Path file, String name) throws IOException {
        return RecordingFile.readAllEvents(file).stream().filter(e -> e.getEventType().getName().equals(name)).toList();
    }

    @Test
    void theRecordingHoldsOneRoundTripPerCall() throws Exception {
        String path = dir.resolve("jfr.sock").toString();
        Path file = dir.resolve("ping.jfr");
        try (GroutServer s = GroutServer.start(ServerOptions.defaults().socketPath(path))) {
            PingRuns.Outcome o = ping(path, "-n", "300", "-l", "32", "--warmup", "20", "--jfr", file.toString());
            assertEquals(null, o.error());
            assertEquals("flight recording written to " + file + " (read it with: jfr print --events 'org.sysframe.*' "
                    + file + ")",
                    o.out().get(o.out().size() - 1));
            assertEquals(1, o.out().stream().filter(l -> l.startsWith("flight recording")).count(), o.out().toString());
            String ranOn = o.out().stream().filter(l -> l.startsWith("ran on: ")).findFirst().orElseThrow();
            assertTrue(
                    ranOn.matches("ran on: client cpu [0-9,]+; server cpu unknown \\(the server runs in this process "
                    + "\\(pid "
                    + ProcessHandle.current().pid()
                            + "\\), where its threads are not told apart from the client's\\)"), ranOn);
        }
        List<RecordedEvent> trips = events(file, "org.sysframe.RoundTrip");
        assertEquals(300 + 20, trips.size(), "one per call, the warm-up's included");
        for (RecordedEvent e : trips) {
            assertEquals("GR_PING", e.getString("typeName"));
            assertEquals(32, e.getLong("requestBytes"));
            assertEquals(0, e.getInt("status"));
        }
        assertEquals(300 + 20 + 1, events(file, "org.sysframe.ServerRequest").size(),
                "the embedded server's: every ping and GR_HELLO");
        assertEquals(1, events(file, "org.sysframe.ConnectionOpened").size());
        assertEquals(1, events(file, "org.sysframe.ClientClosed").size());
    }

    @Test
    void aFailedRunIsRecordedToo() throws Exception {
        String path = dir.resolve("silent.sock").toString();
        Path file = dir.resolve("failed.jfr");
        try (ScriptedServer s = new ScriptedServer(path, ScriptedServer.Mode.SILENT)) {
            PingRuns.Outcome o = ping(path, "-n", "10", "-l", "32", "--warmup", "0", "--timeout", "200", "--jfr",
                    file.toString());
            assertTrue(o.error() != null && o.error()
                    .endsWith("no answer to request 2 within the receive timeout of 200 ms (the client stays usable; a "
                            + "late answer is dropped)"), o.error());
            assertEquals("flight recording written to " + file + " (read it with: jfr print --events 'org.sysframe.*' "
                    + file + ")",
                    o.out().get(o.out().size() - 1));
        }
        List<RecordedEvent> trips = events(file, "org.sysframe.RoundTrip");
        assertEquals(1, trips.size(), "the call that failed");
        assertEquals(-1, trips.get(0).getInt("status"), "failed without an answer");
    }

    @Test
    void aFileThatCannotBeWrittenIsRefusedBeforeAnythingRuns() throws Exception {
        Path missing = dir.resolve("no-such-dir");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ping(dir.resolve("none.sock").toString(), "--jfr", missing.resolve("x.jfr").toString()));
        assertEquals("--jfr " + missing.resolve("x.jfr") + ": the directory " + missing + " does not exist",
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () ->
                ping(dir.resolve("none.sock").toString(), "--jfr", dir.toString()));
        assertEquals("--jfr " + dir + ": is a directory; give a file name", e.getMessage());
        assertFalse(Files.exists(missing));
    }
}
