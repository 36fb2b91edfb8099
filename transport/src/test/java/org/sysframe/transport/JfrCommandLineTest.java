package org.sysframe.transport;

import org.sysframe.transport.support.JfrChild;
import org.sysframe.transport.support.TestServers;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.transport.wire.GroutApi;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The command line docs/observability.md gives to record every call works as written: a child JVM
 * started with its {@code -XX:StartFlightRecording} option (the file name changed to a temporary one)
 * makes 5 calls, 3 futures and 4 pipelined requests, and its recording holds exactly one
 * {@code org.sysframe.RoundTrip} per request, each naming how it was made, the backend and the transport.
 */
class JfrCommandLineTest {
    @TempDir
    Path dir;

    @Test
    void theDocumentedCommandLineRecordsEveryRequest() throws Exception {
        String doc = Files.readString(Path.of("../docs/observability.md"));
        Matcher m = Pattern.compile("(?m)^java (-XX:StartFlightRecording:\\S+) \\.\\.\\.$").matcher(doc);
        assertTrue(m.find(), "docs/observability.md gives a java -XX:StartFlightRecording:... line");
        Path rec = dir.resolve("rec.jfr");
        String option = m.group(1).replace("filename=rec.jfr", "filename=" + rec);
        assertTrue(option.contains("filename=" + rec), "the documented option names the file: " + m.group(1));
        String socket = dir.resolve("jfr.sock").toString();
        try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath(socket))) {
            List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), option,
                    "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                    JfrChild.class.getName(), socket);
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the child ended");
            assertEquals(0, p.exitValue(), "the child's output: " + out);
        }
        Map<String, Integer> byCall = new TreeMap<>();
        List<String> others = new ArrayList<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(rec)) {
            if (!e.getEventType().getName().equals("org.sysframe.RoundTrip")) continue;
            byCall.merge(e.getString("call"), 1, Integer::sum);
            String where = e.getString("type") + " " + e.getString("backend") + " " + e.getString("transport");
            if (!where.equals(String.format("0x%08x", GroutApi.PING) + " epoll socket")) others.add(where);
        }
        assertEquals(Map.of("async", 3, "call", 5, "pipeline", 4), byCall,
                "one RoundTrip per request, by how it was made");
        assertEquals(List.of(), others, "every event names GR_PING in hex, the backend and the transport");
    }
}
