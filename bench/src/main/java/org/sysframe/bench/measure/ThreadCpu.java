package org.sysframe.bench.measure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * CPU use of one thread of this process (or of every thread of another process), read from
 * /proc/.../task/TID: on-CPU time in ns
 * (schedstat, exact), user and system time (stat, in clock ticks of 10 ms: meaningful over long runs
 * only), and voluntary and involuntary context switches (status).
 */
public record ThreadCpu(long cpuNanos, long userMicros, long systemMicros, long voluntarySwitches,
        long involuntarySwitches) {
    static final long MICROS_PER_TICK = 10_000; // USER_HZ is 100 on Linux

    public static ThreadCpu of(int tid) {
        return read(Path.of("/proc/self/task/" + tid));
    }

    /** The sum over every thread of process pid (another process: a server that is not in this JVM). */
    public static ThreadCpu ofProcess(long pid) {
        ThreadCpu sum = new ThreadCpu(0, 0, 0, 0, 0);
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    sum = sum.plus(read(task));
                } catch (IllegalStateException gone) {
                    // a thread that ended between the listing and the read
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc/" + pid + "/task: " + e.getMessage(), e);
        }
        return sum;
    }

    private static ThreadCpu read(Path task) {
        try {
            long cpu = Long.parseLong(Files.readString(task.resolve("schedstat")).trim().split(" ")[0]);
            String stat = Files.readString(task.resolve("stat"));
            // Fields after the ")" that closes the thread name: state is field 3, utime 14, stime 15.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long utime = Long.parseLong(f[11]) * MICROS_PER_TICK;
            long stime = Long.parseLong(f[12]) * MICROS_PER_TICK;
            long vol = 0, invol = 0;
            for (String line : Files.readAllLines(task.resolve("status"))) {
                if (line.startsWith("voluntary_ctxt_switches:")) vol = Long.parseLong(line.substring(24).trim());
                if (line.startsWith("nonvoluntary_ctxt_switches:")) invol = Long.parseLong(line.substring(27).trim());
            }
            return new ThreadCpu(cpu, utime, stime, vol, invol);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + task + ": " + e.getMessage(), e);
        }
    }

    /** The CPU thread tid of this process last ran on (field 39 of its stat), or -1 when unreadable. */
    public static int lastCpu(int tid) {
        try {
            String stat = Files.readString(Path.of("/proc/self/task/" + tid + "/stat"));
            return Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[36]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * The names (as /proc shows them: 15 characters at most) that the serving threads of a server in another
     * process begin with: sysframe's event loops ({@code sysframe-server-N ...}), its shared-memory channels'
     * threads ({@code sysframe-shm-...}), the C server's one thread ({@code sysframe_serve}).
     */
    static final List<String> LOOP_NAMES = List.of("sysframe-server", "sysframe-shm", "sysframe_serve");

    /** The CPUs the serving threads ({@link #LOOP_NAMES}) of process pid last ran on; empty when none is found. */
    public static SortedSet<Integer> loopCpus(long pid) {
        SortedSet<Integer> cpus = new TreeSet<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String name = Files.readString(task.resolve("comm")).strip();
                    if (LOOP_NAMES.stream().noneMatch(name::startsWith)) continue;
                    String stat = Files.readString(task.resolve("stat"));
                    cpus.add(Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[36]));
                } catch (IOException | RuntimeException gone) {
                    // a thread that ended between the listing and the read
                }
            }
        } catch (IOException e) {
            // the process is gone: no CPU known
        }
        return cpus;
    }

    /** The sum of two threads' figures. */
    public ThreadCpu plus(ThreadCpu other) {
        return new ThreadCpu(cpuNanos + other.cpuNanos, userMicros + other.userMicros, systemMicros
                + other.systemMicros,
                voluntarySwitches + other.voluntarySwitches, involuntarySwitches + other.involuntarySwitches);
    }

    public ThreadCpu minus(ThreadCpu earlier) {
        return new ThreadCpu(cpuNanos - earlier.cpuNanos, userMicros - earlier.userMicros, systemMicros
                - earlier.systemMicros,
                voluntarySwitches - earlier.voluntarySwitches, involuntarySwitches - earlier.involuntarySwitches);
    }
}
