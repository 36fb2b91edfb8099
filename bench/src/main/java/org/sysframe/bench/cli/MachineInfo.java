package org.sysframe.bench.cli;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** One line naming the machine a benchmark ran on: CPU model, cores, kernel, JDK. */
final class MachineInfo {
    private MachineInfo() {}

    /** The command line, the JVM's flags and the git commit of the working directory, for a report's reader. */
    static String reproduction(String command) {
        String commit;
        try {
            Process p = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            commit = p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 ? out : "unknown (not a git checkout)";
        } catch (IOException | InterruptedException e) {
            commit = "unknown (" + e.getMessage() + ")";
        }
        return "command: " + command + "; JVM flags: "
                + String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments())
                + "; git commit: " + commit;
    }

    static String describe() {
        String cpu = null;
        boolean guest = false;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (cpu == null && line.startsWith("model name")) cpu = line.substring(line.indexOf(':') + 1).trim();
                if (line.startsWith("flags") && (" " + line + " ").contains(" hypervisor ")) guest = true;
            }
        } catch (IOException e) {
            // an unknown CPU
        }
        return (cpu != null ? cpu : "unknown CPU") + ", " + Runtime.getRuntime().availableProcessors()
                + " cores, Linux "
                + System.getProperty("os.version") + ", JDK " + Runtime.version() + wakeUps(guest);
    }

    /**
     * What decides the cost of a wake-up here, where the kernel says: whether this is a virtual
     * machine, its idle driver and governor, the guest's halt polling, the clocksource. On a guest that
     * does not poll before it halts, every sleep of a CPU is an exit to the hypervisor, and a blocking
     * round trip pays for two of them: the figures of two machines compare only alike.
     */
    private static String wakeUps(boolean guest) {
        StringBuilder b = new StringBuilder();
        if (guest) b.append("; virtual machine");
        String driver = sys("/sys/devices/system/cpu/cpuidle/current_driver");
        String governor = sys("/sys/devices/system/cpu/cpuidle/current_governor");
        if (driver != null) b.append("; cpuidle ").append(driver).append(governor == null || governor.equals(driver)
                ? "" : "/" + governor);
        String poll = sys("/sys/module/haltpoll/parameters/guest_halt_poll_ns");
        if (poll != null) b.append(", guest halt polling ").append(poll).append(" ns");
        String clock = sys("/sys/devices/system/clocksource/clocksource0/current_clocksource");
        if (clock != null) b.append("; clocksource ").append(clock);
        return b.toString();
    }

    /** A one-line kernel file's content, or null when it cannot be read. */
    private static String sys(String file) {
        try {
            String s = Files.readString(Path.of(file)).trim();
            return s.isEmpty() ? null : s;
        } catch (IOException | SecurityException e) {
            return null;
        }
    }
}
