package org.sysframe.bench.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** One line naming the machine a benchmark ran on: CPU model, cores, kernel, JDK. */
final class MachineInfo {
    private MachineInfo() {}

    /** The command line, the JVM's flags and the git commit of the working directory, for a report's reader. */
    static String reproduction(String command) {
        String commit;
        try {
            Process p = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            commit = p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS) && p.exitValue() == 0 ? out : "unknown (not a git checkout)";
        } catch (IOException | InterruptedException e) {
            commit = "unknown (" + e.getMessage() + ")";
        }
        return "command: " + command + "; JVM flags: "
                + String.join(" ", java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments())
                + "; git commit: " + commit;
    }

    static String describe() {
        String cpu = "unknown CPU";
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    cpu = line.substring(line.indexOf(':') + 1).trim();
                    break;
                }
            }
        } catch (IOException e) {
            // keep "unknown CPU"
        }
        return cpu + ", " + Runtime.getRuntime().availableProcessors() + " cores, Linux "
                + System.getProperty("os.version") + ", JDK " + Runtime.version();
    }
}
