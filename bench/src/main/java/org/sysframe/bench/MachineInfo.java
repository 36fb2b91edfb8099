package org.sysframe.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** One line naming the machine a benchmark ran on: CPU model, cores, kernel, JDK. */
final class MachineInfo {
    private MachineInfo() {}

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
