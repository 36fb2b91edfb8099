package org.sysframe.transport.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Running a child process under a low descriptor limit, and reading its epoll registrations. */
public final class DescriptorLimits {
    private DescriptorLimits() {}

    /** command run with RLIMIT_NOFILE at limit (prlimit, or bash's ulimit where prlimit is missing). */
    public static List<String> withDescriptorLimit(int limit, List<String> command) {
        List<String> cmd = new ArrayList<>();
        boolean prlimit = Stream.of(System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":"))
                .anyMatch(d -> Files.isExecutable(Path.of(d, "prlimit")));
        if (prlimit) {
            cmd.add("prlimit");
            cmd.add("--nofile=" + limit + ":" + limit);
        } else {
            cmd.addAll(List.of("bash", "-c", "ulimit -n " + limit + " && exec \"$@\"", "bash"));
        }
        cmd.addAll(command);
        return cmd;
    }

    /** The child's epoll registrations ({@code /proc/PID/fdinfo} of its epoll descriptors), for messages. */
    public static String epollRegistrations(long pid) throws IOException {
        StringBuilder sb = new StringBuilder();
        try (Stream<Path> s = Files.list(Path.of("/proc/" + pid + "/fdinfo"))) {
            for (Path p : s.toList()) {
                try {
                    for (String line : Files.readAllLines(p)) if (line.startsWith("tfd:")) sb.append("\n  ")
                            .append(line);
                } catch (IOException gone) {
                    // closed meanwhile
                }
            }
        }
        return sb.toString();
    }

    /** What each descriptor of process pid is ({@code /proc/PID/fd}'s link targets), read at once. */
    public static List<String> targetList(long pid) throws IOException {
        List<String> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            for (Path p : s.toList()) {
                try {
                    out.add(Files.readSymbolicLink(p).toString());
                } catch (IOException gone) {
                    // closed meanwhile
                }
            }
        }
        return out;
    }

    /** targets, counted by target ("/dev/null x44, pipe:[...]"), for messages. */
    public static String summary(List<String> targets) {
        Map<String, Integer> byTarget = new TreeMap<>();
        for (String t : targets) byTarget.merge(t, 1, Integer::sum);
        StringBuilder sb = new StringBuilder();
        byTarget.forEach((t, n) -> sb.append(sb.isEmpty() ? "" : ", ").append(t).append(n > 1 ? " x" + n : ""));
        return sb.toString();
    }
}
