package org.sysframe.bench.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code serve}'s start-up line claims only the mode the socket file at the path has, and {@code -s ""}
 * is one clear line from both {@code serve} and {@code ping}. Each case runs the CLI in a child JVM.
 */
class ServeStartupLineTest {
    @TempDir Path dir;

    private static final Pattern SERVING = Pattern.compile("^serving socket (\\S+) \\(mode (0[0-7]+)\\)");

    private static List<String> cli(String... args) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m",
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    @Test
    void theStartUpLineClaimsTheModeTheFileAtThePathHas() throws Exception {
        for (String mode : new String[] {"0600", "0640", "0666"}) {
            Path sock = dir.resolve("m" + mode + ".sock");
            Process p = new ProcessBuilder(cli("serve", "-s", sock.toString(), "--mode", mode))
                    .redirectErrorStream(true).start();
            try {
                LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
                Thread reader = new Thread(() -> {
                    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                            StandardCharsets.UTF_8))) {
                        for (String l; (l = r.readLine()) != null; ) lines.add(l);
                    } catch (IOException e) {
                        lines.add("(read failed: " + e + ")");
                    }
                }, "serve-output");
                reader.setDaemon(true);
                reader.start();
                String first = lines.poll(60, TimeUnit.SECONDS); // hang guard: a cold JVM on a busy machine
                if (first == null) fail("serve --mode " + mode + " printed nothing within 60 s");
                Matcher m = SERVING.matcher(first);
                assertTrue(m.find(), first);
                assertEquals(sock.toString(), m.group(1));
                int real = (Integer) Files.getAttribute(sock, "unix:mode", LinkOption.NOFOLLOW_LINKS);
                assertEquals(0140000, real & 0170000, "a socket is at the path");
                assertEquals(m.group(2), "0" + Integer.toOctalString(real & 07777), "the line's mode is the file's: "
                        + first);
                assertEquals(mode, m.group(2));
            } finally {
                p.destroy(); // SIGTERM: serve stops and removes its socket file
                if (!p.waitFor(30, TimeUnit.SECONDS)) p.destroyForcibly().waitFor();
            }
        }
    }

    @Test
    void anEmptySocketPathIsOneClearLineFromServeAndPing() throws Exception {
        assertEquals("sysframe serve: sockaddr_un(\"\"): EINVAL (22) Invalid argument: empty socket path",
                runFailing("serve", "-s", ""));
        assertEquals("sysframe ping: sockaddr_un(\"\"): EINVAL (22) Invalid argument: empty socket path",
                runFailing("ping", "-s", "", "-n", "1"));
    }

    /** Runs the CLI, which must exit 1 having printed exactly one line; returns it. */
    private static String runFailing(String... args) throws Exception {
        Process p = new ProcessBuilder(cli(args)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "exited");
        assertEquals(1, p.exitValue(), out);
        assertEquals(1, out.lines().count(), out);
        return out.strip();
    }
}
