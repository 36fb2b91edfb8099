package org.sysframe.bench.profile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.testsupport.NeedsPerf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A perf that fails at its start (a CPU this machine does not have) is one clear error at the first command, with
 * perf's own words, as soon as perf ended (not after the acknowledgement's whole wait), and nothing of the recording's
 * control is left: its FIFOs are gone.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PerfRecordingTest {
    @TempDir Path dir;

    @Test
    @NeedsPerf
    void perfThatFailsAtItsStartIsOneErrorWithItsWords() throws Exception {
        Path file = dir.resolve("x.data");
        IOException e;
        try (PerfRecording r = PerfRecording.start("2047", file)) {
            e = assertThrows(IOException.class, r::enable);
        }
        // Told by perf's end ("ended"), not by the acknowledgement's wait running out ("within 10000 ms").
        assertTrue(e.getMessage().startsWith("perf record did not acknowledge 'enable': perf record ended (exit "),
                e.getMessage());
        String log = Files.readString(dir.resolve("x.data.log")).strip();
        assertTrue(!log.isEmpty() && e.getMessage().endsWith(log), "perf's words in the error: " + e.getMessage());
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(List.of("x.data.log"), s.map(p -> p.getFileName().toString()).sorted().toList());
        }
    }
}
