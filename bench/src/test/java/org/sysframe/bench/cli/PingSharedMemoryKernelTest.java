package org.sysframe.bench.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.bench.report.Json;
import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;
import org.sysframe.transport.WaitMode;
import org.sysframe.unix.SyscallKind;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ping --transport shm}: the kernel column counts the client thread's futex calls too (its shared
 * ones: the JVM's own on that thread are private), and every kind, futex too, is exactly the library's.
 */
@NeedsKernelCounter
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PingSharedMemoryKernelTest {
    @TempDir Path dir;

    private static String ping(String... args) throws Exception {
        PingCommand cmd = new PingCommand();
        new picocli.CommandLine(cmd).parseArgs(args);
        PrintStream was = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            cmd.call();
        } finally {
            System.setOut(was);
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    static final Pattern FUTEX_ROW = Pattern.compile("(?m)^  futex +([0-9.]+) +([0-9.]+)");

    @Test
    void aBlockingSharedMemoryClientsFutexCallsAreInTheKernelColumn() throws Exception {
        String sock = dir.resolve("ping-shm.sock").toString();
        try (GroutServer server = GroutServer.start(ServerOptions.defaults().socketPath(sock).sharedMemory(true)
                .waitMode(WaitMode.BLOCK))) {
            String out = ping("-s", sock, "-l", "32", "-n", "2000", "--warmup", "200", "--transport", "shm", "--wait",
                    "block");
            assertTrue(out.contains(", shared memory"), out);
            Matcher row = FUTEX_ROW.matcher(out);
            assertTrue(row.find(), out);
            assertTrue(Double.parseDouble(row.group(1)) > 0, out);
            assertEquals(row.group(1), row.group(2), out);

            @SuppressWarnings("unchecked")
            Map<String, Object> m = (Map<String, Object>) Json.parse(ping("-s", sock, "-l", "32", "-n", "2000",
                    "--warmup", "200", "--transport", "shm", "--wait", "block", "--json").trim());
            assertEquals("shm", m.get("transport"));
            long calls = ((Number) m.get("calls")).longValue();
            for (SyscallKind k : SyscallKind.values()) {
                long lib = Math.round(((Number) m.get("client_lib_" + k.kernelName() + "_per_call")).doubleValue()
                        * calls);
                long ker = Math.round(((Number) m.get("client_kernel_" + k.kernelName() + "_per_call")).doubleValue()
                        * calls);
                if (k == SyscallKind.FUTEX) assertTrue(lib > 0, "futex: library " + lib);
                assertEquals(lib, ker, k.kernelName());
            }
        }
    }
}
