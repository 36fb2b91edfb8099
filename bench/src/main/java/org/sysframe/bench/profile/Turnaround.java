package org.sysframe.bench.profile;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A client's turnaround, read from a recording of its syscalls ({@link PerfRecording#syscalls}): the time from the
 * return of the last receive that brought bytes to the entry of the send after it. That is the client's own time
 * between an answer coming and the next request leaving, all of it spent while the server has nothing to do (one
 * call at a time, or a pipeline refilled a window at a time): how much of a client's CPU lies on a round trip's path,
 * which a CPU profile does not say.
 *
 * <p>Sends are {@code writev}, {@code sendto}, {@code sendmsg}; receives {@code readv}, {@code recvfrom},
 * {@code recvmsg} (x86-64's numbers; a socket client's, not {@code read} and {@code write}, which perf's own writes of
 * its file would flood). A receive that returned nothing (EAGAIN, 0) does not count: a spinning client's empty looks
 * are waiting, not turning around. Where perf lost events, no turnaround spans them.
 *
 * @param turnarounds sends that followed a receive that brought bytes
 * @param sends       sends seen
 * @param lost        perf's lost-event records in the recording
 * @param medianNanos the median turnaround, ns (0 without one)
 * @param meanNanos   the mean turnaround, ns (0 without one)
 */
public record Turnaround(long turnarounds, long sends, long lost, long medianNanos, double meanNanos) {
    /** x86-64's numbers of the sends ({@code writev}, {@code sendto}, {@code sendmsg}). */
    static final List<Integer> SENDS = List.of(20, 44, 46);
    /** x86-64's numbers of the receives ({@code readv}, {@code recvfrom}, {@code recvmsg}). */
    static final List<Integer> RECEIVES = List.of(19, 45, 47);
    // e.g. "16013 38606.161237535: raw_syscalls:sys_enter: NR 44 (3, ...)" and " ...sys_exit: NR 45 = 2816"
    private static final Pattern EVENT = Pattern.compile(
            "^\\s*(\\d+)\\s+(\\d+)\\.(\\d{9}):\\s+raw_syscalls:sys_(enter|exit):\\s+NR (\\d+)(?: = (-?\\d+))?");

    /** Whether the syscall numbers above are this machine's (x86-64). */
    public static boolean supported() { return "amd64".equals(System.getProperty("os.arch")); }

    /** The turnaround of the threads filter keeps ({@code --tid=T[,T]} or {@code --pid=P[,P]}) in file. */
    public static Turnaround read(Path file, String filter) throws IOException {
        return parse(PerfRecording.script(file, filter));
    }

    /** The turnaround in perf script's lines ({@code -F tid,time,event,trace --ns --show-lost-events}). */
    static Turnaround parse(List<String> lines) {
        Map<Long, Long> lastReceive = new HashMap<>(); // a thread's last receive that brought bytes, ns; absent: none
        long[] gaps = new long[64];
        int n = 0;
        long sends = 0, lost = 0;
        for (String line : lines) {
            if (line.contains("LOST")) {
                lost++;
                lastReceive.clear();
                continue;
            }
            Matcher m = EVENT.matcher(line);
            if (!m.find()) continue;
            long tid = Long.parseLong(m.group(1));
            long t = Long.parseLong(m.group(2)) * 1_000_000_000L + Long.parseLong(m.group(3));
            int nr = Integer.parseInt(m.group(5));
            boolean enter = m.group(4).equals("enter");
            if (!enter && m.group(6) != null && isReceive(nr)) {
                if (Long.parseLong(m.group(6)) > 0) lastReceive.put(tid, t);
            } else if (enter && isSend(nr)) {
                sends++;
                Long from = lastReceive.remove(tid);
                if (from == null || t < from) continue;
                if (n == gaps.length) gaps = Arrays.copyOf(gaps, n * 2);
                gaps[n++] = t - from;
            }
        }
        if (n == 0) return new Turnaround(0, sends, lost, 0, 0);
        Arrays.sort(gaps, 0, n);
        double sum = 0;
        for (int i = 0; i < n; i++) sum += gaps[i];
        long median = n % 2 == 1 ? gaps[n / 2] : (gaps[n / 2 - 1] + gaps[n / 2]) / 2;
        return new Turnaround(n, sends, lost, median, sum / n);
    }

    private static boolean isSend(int nr) { return SENDS.contains(nr); }

    private static boolean isReceive(int nr) { return RECEIVES.contains(nr); }

    /** A tracepoint filter that keeps the syscalls nrs, e.g. {@code id == 20 || id == 44}. */
    static String idIn(List<Integer> nrs) {
        return String.join(" || ", nrs.stream().map(nr -> "id == " + nr).toList());
    }
}
