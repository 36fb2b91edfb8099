package org.sysframe.testsupport;

import com.sun.management.ThreadMXBean;

import javax.management.ObjectName;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** This JVM's native memory (NMT summary), resident set size and open descriptors, for leak checks. */
public final class ProcessProbe {
    private static final Pattern TOTAL = Pattern.compile(
            "^Total: reserved=\\d+(B|KB|MB|GB)?, committed=(\\d+)(B|KB|MB|GB)?", Pattern.MULTILINE);
    private static final Pattern OTHER = Pattern.compile(
            "^-\\s+Other \\(reserved=\\d+(B|KB|MB|GB)?, committed=(\\d+)(B|KB|MB|GB)?\\)", Pattern.MULTILINE);

    private ProcessProbe() {}

    /** Committed bytes of NMT's total and of its "Other" category (where FFM arenas and direct buffers allocate). */
    public record Nmt(long totalCommitted, long otherCommitted) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "total committed %,d KiB, Other committed %,d bytes",
                    totalCommitted / 1024, otherCommitted);
        }
    }

    /** NMT's summary now; fails if the JVM runs without -XX:NativeMemoryTracking=summary (surefire sets it). */
    public static Nmt nativeMemory() throws Exception {
        String out = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
        Matcher total = TOTAL.matcher(out);
        if (!total.find()) throw new AssertionError("no NMT total (is -XX:NativeMemoryTracking=summary set?):\n" + out);
        Matcher other = OTHER.matcher(out);
        // NMT leaves out categories under 1 KB: then "Other" is (nearly) empty.
        long otherBytes = other.find() ? scaled(other.group(2), other.group(3)) : 0;
        return new Nmt(scaled(total.group(2), total.group(3)), otherBytes);
    }

    /** Descriptors open in this process ({@code /proc/self/fd}). */
    public static long openFds() throws IOException {
        return descriptorsOf("self");
    }

    /** Descriptors open in process pid. */
    public static long descriptorsOf(long pid) throws IOException {
        return descriptorsOf(Long.toString(pid));
    }

    private static long descriptorsOf(String pid) throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            return s.count();
        }
    }

    /**
     * Memory mappings of this process ({@code /proc/self/maps} lines): an unmapped io_uring ring would add two each.
     */
    public static long mappings() throws IOException {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.count();
        }
    }

    /** This process's resident set size ({@code VmRSS}), in bytes. */
    public static long rssBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }

    /** Bytes the calling thread has allocated on the heap so far. */
    public static long threadAllocatedBytes() {
        return ((ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    private static long scaled(String number, String unit) {
        long n = Long.parseLong(number);
        return switch (unit == null ? "B" : unit) {
            case "KB" -> n << 10;
            case "MB" -> n << 20;
            case "GB" -> n << 30;
            default -> n;
        };
    }
}
