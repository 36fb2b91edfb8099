package org.sysframe.unix;

import org.sysframe.testsupport.NeedsStrace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The third witness: {@code strace -f -c} of a child JVM running {@link StraceWorkload} counts the same
 * sendto and recvfrom calls as the library does. Runs wherever strace is installed (it is on this
 * machine kind; @NeedsStrace skips it, saying so, only for a non-root user outside CI).
 */
@NeedsStrace
class StraceCrossCheckTest {
    @Test
    void straceCountsWhatTheLibraryCounts(@TempDir Path dir) throws Exception {
        Path summary = dir.resolve("strace.txt");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder("strace", "-f", "-c", "-o", summary.toString(),
                "-e", "trace=sendto,recvfrom,sendmsg,recvmsg,writev,readv",
                java, "--enable-native-access=ALL-UNNAMED", "-Xshare:auto", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), StraceWorkload.class.getName())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "child did not finish");
        assertEquals(0, p.exitValue(), out);

        Map<String, Long> library = new HashMap<>();
        Matcher m = Pattern.compile("(sendto|recvfrom|sendmsg|recvmsg|writev|readv)=(\\d+)").matcher(out);
        while (m.find()) library.merge(m.group(1), Long.parseLong(m.group(2)), Long::sum);
        Map<String, Long> strace = parseStraceSummary(Files.readString(summary));

        assertEquals(2000L, library.get("sendto"), out);
        assertEquals(library, strace, "library (both threads) vs strace -f -c\n" + out + Files.readString(summary));
        System.out.println("strace cross-check: library " + library + ", strace " + strace);
    }

    /** The calls column of strace -c's table, by syscall name. */
    static Map<String, Long> parseStraceSummary(String text) {
        Map<String, Long> calls = new HashMap<>();
        for (String line : text.split("\n")) {
            String[] f = line.trim().split("\\s+");
            // % time, seconds, usecs/call, calls, [errors,] syscall
            if (f.length >= 5 && f[0].matches("[0-9.]+") && !f[f.length - 1].equals("total")) {
                calls.put(f[f.length - 1], Long.parseLong(f[3]));
            }
        }
        return calls;
    }
}
