package org.sysframe.bench.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.bench.report.Json;
import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ping --no-kernel-counts}: the run is timed without the kernel's counters, says so where the kernel column
 * would be, keeps the library's exact counts, and leaves the counters to the next run of the same JVM.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PingKernelCountsOffTest {
    @TempDir Path dir;

    private static final List<String> ONE_AT_A_TIME = List.of("-l", "32", "-n", "2000", "--warmup", "200");

    private static List<String> with(String... more) {
        List<String> all = new ArrayList<>(ONE_AT_A_TIME);
        all.addAll(List.of(more));
        return all;
    }

    @Test
    void theKernelColumnIsLeftOffAndTheLibrarysCountsStay() throws Exception {
        String sock = dir.resolve("off.sock").toString();
        try (GroutServer server = GroutServer.start(ServerOptions.defaults().socketPath(sock))) {
            PingRuns.Outcome run = PingRuns.run(sock, with("--no-kernel-counts"));
            assertNull(run.error(), run.out().toString());
            // A blocking call is exactly one sendto and one recvfrom; the kernel's column is n/a, and says why.
            assertTrue(run.out().stream().anyMatch(l -> l.matches(" +sendto +1\\.000 +n/a *")), run.out().toString());
            assertTrue(run.out().stream().anyMatch(l -> l.matches(" +recvfrom +1\\.000 +n/a *")),
                    run.out().toString());
            assertTrue(run.out().contains("kernel counts unavailable: " + PingCommand.KERNEL_COUNTS_OFF),
                    run.out().toString());

            PingRuns.Outcome json = PingRuns.run(sock, with("--no-kernel-counts", "--json"));
            @SuppressWarnings("unchecked")
            Map<String, Object> m = (Map<String, Object>) Json.parse(String.join("\n", json.out()).trim());
            assertEquals(1.0, ((Number) m.get("client_lib_sendto_per_call")).doubleValue());
            assertEquals(1.0, ((Number) m.get("client_lib_recvfrom_per_call")).doubleValue());
            assertFalse(m.containsKey("client_kernel_sendto_per_call"), m.toString());
            assertEquals(PingCommand.KERNEL_COUNTS_OFF, m.get("kernel_counts_unavailable"));
        }
    }

    @Test
    @NeedsKernelCounter
    void theNextRunOfTheJvmCountsAgain() throws Exception {
        String sock = dir.resolve("again.sock").toString();
        try (GroutServer server = GroutServer.start(ServerOptions.defaults().socketPath(sock))) {
            assertNull(PingRuns.run(sock, with("--no-kernel-counts")).error());
            PingRuns.Outcome json = PingRuns.run(sock, with("--json"));
            @SuppressWarnings("unchecked")
            Map<String, Object> m = (Map<String, Object>) Json.parse(String.join("\n", json.out()).trim());
            assertTrue(m.containsKey("client_kernel_sendto_per_call"), m.toString());
            assertEquals(1.0, ((Number) m.get("client_kernel_sendto_per_call")).doubleValue(), m.toString());
            assertEquals(1.0, ((Number) m.get("client_kernel_recvfrom_per_call")).doubleValue(), m.toString());
            assertFalse(m.containsKey("kernel_counts_unavailable"), m.toString());
        }
    }
}
