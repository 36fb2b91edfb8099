package org.sysframe.bench.profile;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where one thread's (or one process's) CPU time went in a {@code perf record}, in nanoseconds, by
 * {@link Part} and, for Java code, by method. Read from {@code perf report}'s lines
 * ({@code period|dso|symbol}, the period being ns of the CPU clock).
 *
 * @param parts  ns by part, every part present (0 where nothing fell)
 * @param methods ns by Java method ({@code Class.method}) of sysframe's library
 * @param total  ns in all
 */
public record PerfProfile(Map<Part, Long> parts, Map<String, Long> methods, long total) {

    /** What a sample fell in, told apart by its shared object and, for Java code, its method's package. */
    public enum Part {
        KERNEL("kernel"),
        LIBC("libc"),
        VDSO("vDSO (clock reads)"),
        LIBRARY("sysframe's Java code"),
        BENCH("the bench's Java code (its clock and histogram)"),
        JDK("the JDK's Java code"),
        STUBS("JVM stubs and interpreter"),
        JVM("JVM runtime (libjvm)"),
        PROGRAM("the C program"),
        OTHER("other");

        public final String label;

        Part(String label) { this.label = label; }
    }

    private static final String LIBRARY_PACKAGE = "org.sysframe.";
    private static final String BENCH_PACKAGE = "org.sysframe.bench.";

    /**
     * The samples filter keeps in file ({@code --tid=T[,T]}, {@code --pid=P[,P]}), {@code perf report} read and
     * sorted; program is the file name of the C program measured.
     */
    public static PerfProfile read(Path file, String filter, String program) throws IOException {
        return parse(PerfRecording.report(file, filter), program);
    }

    /**
     * Parses {@code perf report -F period,dso,sym -t '|'} lines; program is the file name of the C program's
     * binary (its samples are {@link Part#PROGRAM}). Lines that are not such rows (comments, blanks) are skipped.
     */
    public static PerfProfile parse(List<String> lines, String program) {
        Map<Part, Long> parts = new EnumMap<>(Part.class);
        for (Part p : Part.values()) parts.put(p, 0L);
        Map<String, Long> methods = new HashMap<>();
        long total = 0;
        for (String line : lines) {
            if (line.isBlank() || line.startsWith("#")) continue;
            String[] f = line.split("\\|", 3);
            if (f.length < 3) continue;
            long period;
            try {
                period = Long.parseLong(f[0].strip());
            } catch (NumberFormatException e) {
                continue;
            }
            String dso = f[1].strip();
            String symbol = symbol(f[2]);
            Part part = partOf(dso, symbol, program);
            parts.merge(part, period, Long::sum);
            if (part == Part.LIBRARY) methods.merge(method(symbol), period, Long::sum);
            total += period;
        }
        return new PerfProfile(Collections.unmodifiableMap(parts), Collections.unmodifiableMap(methods), total);
    }

    /** The symbol without perf's {@code [.]} or {@code [k]} mark. */
    private static String symbol(String field) {
        String s = field.strip();
        return s.startsWith("[") && s.indexOf(']') > 0 ? s.substring(s.indexOf(']') + 1).strip() : s;
    }

    static Part partOf(String dso, String symbol, String program) {
        if (dso.startsWith("[kernel")) return Part.KERNEL;
        if (dso.equals("[vdso]")) return Part.VDSO;
        if (dso.startsWith("libc.so") || dso.startsWith("libc-")) return Part.LIBC;
        if (dso.startsWith("libjvm.so")) return Part.JVM;
        if (program != null && dso.equals(program)) return Part.PROGRAM;
        if (dso.startsWith("[JIT]") || dso.startsWith("perf-") && dso.endsWith(".map")) return javaPart(symbol);
        return Part.OTHER;
    }

    /** A compiled method by its package; what is no Java method there (stubs, the interpreter) is the JVM's. */
    private static Part javaPart(String symbol) {
        String name = qualifiedName(symbol);
        if (name == null) return Part.STUBS;
        if (name.startsWith(BENCH_PACKAGE) || name.startsWith("org.HdrHistogram.")) return Part.BENCH;
        if (name.startsWith(LIBRARY_PACKAGE)) return Part.LIBRARY;
        if (name.startsWith("java.") || name.startsWith("jdk.") || name.startsWith("sun.")) return Part.JDK;
        return Part.STUBS;
    }

    /**
     * {@code org.x.Y.m} of a JIT map's symbol {@code "long org.x.Y.m(int, long)"}; null for a name without a
     * signature (a stub, {@code Interpreter}).
     */
    private static String qualifiedName(String symbol) {
        int paren = symbol.indexOf('(');
        if (paren < 0) return null;
        String head = symbol.substring(0, paren);
        return head.substring(head.lastIndexOf(' ') + 1);
    }

    /** {@code Waiter.await} of {@code int org.sysframe.transport.internal.io.Waiter.await(...)}. */
    static String method(String symbol) {
        String name = qualifiedName(symbol);
        if (name == null) return symbol;
        int m = name.lastIndexOf('.');
        int c = m > 0 ? name.lastIndexOf('.', m - 1) : -1;
        return name.substring(c + 1);
    }

    /** ns of part in it. */
    public long of(Part part) { return parts.get(part); }
}
