package org.sysframe.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What this process may do that some tests need (root, the kernel's syscall tracepoints, strace), and one line on why
 * not.
 */
public final class Privileges {
    private static final Path[] TRACEFS = {Path.of("/sys/kernel/tracing"), Path.of("/sys/kernel/debug/tracing")};
    private static final int CAP_SYS_ADMIN = 21;
    private static final int CAP_PERFMON = 38;

    private Privileges() {}

    /** Root or CI=true: gated tests must run, and what they need missing is a failure, not a skip. */
    public static boolean mustRun() {
        return effectiveUid() == 0 || "true".equalsIgnoreCase(System.getenv("CI"));
    }

    /** Who runs the tests, e.g. {@code uid 1001 (CI unset)}. */
    public static String who() {
        String ci = System.getenv("CI");
        return "uid " + effectiveUid() + (ci == null ? " (CI unset)" : " (CI=" + ci + ")");
    }

    /** Null when this process runs as root, else why not. */
    public static String rootMissing() {
        int uid = effectiveUid();
        return uid == 0 ? null : "not root (uid " + uid + ")";
    }

    /**
     * Null when perf_event_open can count syscall tracepoints here (tracefs readable, and root,
     * CAP_PERFMON or perf_event_paranoid -1), else every reason it cannot, on one line.
     */
    public static String kernelCounterMissing() {
        List<String> why = new ArrayList<>();
        boolean capable = effectiveUid() == 0 || hasCapability(CAP_PERFMON) || hasCapability(CAP_SYS_ADMIN);
        if (!capable) {
            String paranoid = read(Path.of("/proc/sys/kernel/perf_event_paranoid"));
            if (paranoid == null || !paranoid.equals("-1")) {
                why.add("not root (uid " + effectiveUid() + ") and perf_event_paranoid is "
                        + (paranoid == null ? "unreadable" : paranoid)
                        + " (tracepoint counters need root, CAP_PERFMON or perf_event_paranoid -1)");
            }
        }
        String tracefs = tracefsMissing();
        if (tracefs != null) why.add(tracefs);
        return why.isEmpty() ? null : String.join("; ", why);
    }

    /** Null when a syscall tracepoint id can be read from tracefs, else whether tracefs is missing or unreadable. */
    public static String tracefsMissing() {
        for (Path root : TRACEFS) {
            if (Files.isReadable(root.resolve("events/syscalls/sys_enter_sendto/id"))) return null;
        }
        boolean mounted = false;
        String mounts = read(Path.of("/proc/self/mounts"));
        if (mounts != null) {
            for (String line : mounts.split("\n")) {
                String[] f = line.split(" ");
                if (f.length > 2 && f[2].equals("tracefs")) mounted = true;
            }
        }
        return mounted
                ? "tracefs unreadable (" + TRACEFS[0] + "/events/syscalls/*/id cannot be read by uid " + effectiveUid()
                        + ")"
                : "tracefs missing (not mounted; as root: mount -t tracefs nodev /sys/kernel/tracing)";
    }

    /** Null when strace is on the PATH, else that it is missing. */
    public static String straceMissing() { return toolMissing("strace"); }

    /** Null when perf is on the PATH and this process is root (it records whole CPUs), else why not. */
    public static String perfMissing() {
        String tool = toolMissing("perf");
        return tool != null ? tool : rootMissing();
    }

    private static String toolMissing(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) return null;
        }
        return name + " missing (not on PATH)";
    }

    /** The effective uid ({@code /proc/self/status}), -1 if it cannot be read. */
    public static int effectiveUid() {
        String uid = statusField("Uid:");
        return uid == null ? -1 : Integer.parseInt(uid.trim().split("\\s+")[1]);
    }

    private static boolean hasCapability(int cap) {
        String eff = statusField("CapEff:");
        return eff != null && ((Long.parseUnsignedLong(eff.trim(), 16) >>> cap) & 1) != 0;
    }

    private static String statusField(String name) {
        String status = read(Path.of("/proc/self/status"));
        if (status == null) return null;
        for (String line : status.split("\n")) if (line.startsWith(name)) return line.substring(name.length());
        return null;
    }

    private static String read(Path p) {
        try {
            return Files.readString(p).trim();
        } catch (IOException | SecurityException e) {
            return null;
        }
    }
}
