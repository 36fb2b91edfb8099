package org.sysframe.transport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Opening and closing many connections leaks nothing: the process's descriptors return exactly to
 * their count before, and native memory (NMT's "Other" category, where FFM arenas allocate) stays
 * flat. The surefire JVM runs with -XX:NativeMemoryTracking=summary.
 */
class ConnectionChurnTest {
    private static final int WARM_UP = 500;
    private static final int CONNECTIONS = 10_000;
    private static final long MAX_OTHER_GROWTH = 1L << 20;

    @TempDir
    Path dir;

    private GroutServer server;

    @AfterEach
    void tearDown() {
        if (server != null) server.close();
    }

    /** Committed bytes of NMT's total and of its "Other" category. */
    record Nmt(long totalCommitted, long otherCommitted) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "total committed %,d KiB, Other committed %,d bytes", totalCommitted / 1024, otherCommitted);
        }
    }

    private static final Pattern TOTAL = Pattern.compile("^Total: reserved=\\d+(B|KB|MB|GB)?, committed=(\\d+)(B|KB|MB|GB)?", Pattern.MULTILINE);
    private static final Pattern OTHER = Pattern.compile("^-\\s+Other \\(reserved=\\d+(B|KB|MB|GB)?, committed=(\\d+)(B|KB|MB|GB)?\\)", Pattern.MULTILINE);

    private static long scaled(String number, String unit) {
        long n = Long.parseLong(number);
        return switch (unit == null ? "B" : unit) {
            case "KB" -> n << 10;
            case "MB" -> n << 20;
            case "GB" -> n << 30;
            default -> n;
        };
    }

    static Nmt nativeMemory() throws Exception {
        MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
        String out = (String) mbs.invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
        Matcher total = TOTAL.matcher(out);
        assertTrue(total.find(), "no NMT total (is -XX:NativeMemoryTracking=summary set?):\n" + out);
        Matcher other = OTHER.matcher(out);
        // NMT omits categories under 1 KB: then "Other" is (nearly) empty.
        long otherBytes = other.find() ? scaled(other.group(2), other.group(3)) : 0;
        return new Nmt(scaled(total.group(2), total.group(3)), otherBytes);
    }

    static long openFds() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }

    private void awaitNoConnections() throws InterruptedException {
        for (int i = 0; i < 2_000 && server.connectionCount() != 0; i++) Thread.sleep(5);
        assertEquals(0, server.connectionCount(), "server.connectionCount()");
    }

    /** Lets the GC free what automatic arenas hold (the 4-byte errno capture segment of each socket). */
    private static void settleGarbage() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
    }

    private static void churn(String path, int count, MemorySegment payload) throws IOException {
        ClientOptions options = ClientOptions.defaults().socketPath(path).receiveTimeoutMillis(20_000);
        for (int i = 0; i < count; i++) {
            try (GroutClient c = GroutClient.connect(options)) {
                payload.set(JAVA_INT_UNALIGNED, 0, i);
                Response r = c.sendRecv(GroutApi.PING, payload, 0, payload.byteSize());
                if (r.status() != 0 || r.length() != payload.byteSize()
                        || MemorySegment.mismatch(r.buffer(), r.offset(), r.offset() + r.length(), payload, 0, payload.byteSize()) != -1) {
                    throw new AssertionError("connection " + i + ": bad echo " + r);
                }
            }
        }
    }

    @Test
    void tenThousandConnectionsOpenedAndClosedLeaveDescriptorsAndNativeMemoryAsTheyWere() throws Exception {
        String path = dir.resolve("churn.sock").toString();
        server = GroutServer.start(ServerOptions.defaults().socketPath(path));

        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment payload = a.allocate(32, 8);
                for (int i = 4; i < 32; i++) payload.set(JAVA_BYTE, i, (byte) (i * 5 + 1));

                // Warm-up: classes loaded, code compiled, the MBean server and NMT reporting set up.
                churn(path, WARM_UP, payload);
                awaitNoConnections();
                settleGarbage();
                nativeMemory();
                openFds();

                Nmt before = nativeMemory();
                long fdsBefore = openFds();
                System.out.printf(Locale.ROOT, "churn: before %,d connections: %d open fds, NMT %s%n", CONNECTIONS, fdsBefore, before);

                churn(path, CONNECTIONS, payload);
                awaitNoConnections();
                settleGarbage();

                Nmt after = nativeMemory();
                long fdsAfter = openFds();
                System.out.printf(Locale.ROOT, "churn: after  %,d connections: %d open fds, NMT %s%n", CONNECTIONS, fdsAfter, after);
                System.out.printf(Locale.ROOT, "churn: growth: fds %+d, Other committed %+,d bytes, total committed %+,d KiB%n",
                        fdsAfter - fdsBefore, after.otherCommitted() - before.otherCommitted(),
                        (after.totalCommitted() - before.totalCommitted()) / 1024);

                assertEquals(fdsBefore, fdsAfter, "open file descriptors after " + CONNECTIONS + " connections");
                long growth = after.otherCommitted() - before.otherCommitted();
                assertTrue(growth < MAX_OTHER_GROWTH, "NMT Other committed grew by " + growth + " bytes over "
                        + CONNECTIONS + " connections (" + before + " -> " + after + ")");
            }
        });

        // Every connection was recorded (the server keeps the latest 10,000), each with hello + one ping.
        var closed = server.closedConnections();
        assertEquals(CONNECTIONS, closed.size());
        for (ConnectionStats s : closed) assertEquals(2, s.requests(), s.toString());
    }
}
