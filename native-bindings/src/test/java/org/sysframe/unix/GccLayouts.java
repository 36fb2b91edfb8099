package org.sysframe.unix;

import java.io.IOException;
import java.lang.foreign.StructLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What gcc lays out on this machine: compiles a C probe that prints {@code name=value} lines (sizes
 * and offsets), runs it, and compares our FFM layouts with the values. For the layout tests.
 */
public final class GccLayouts {
    private GccLayouts() {}

    /** Compiles source in dir, runs it, and returns its name=value lines; fails unless there are exactly expected. */
    public static Map<String, Long> of(Path dir, String source, int expected) throws IOException, InterruptedException {
        Path src = dir.resolve("probe.c");
        Path exe = dir.resolve("probe");
        Files.writeString(src, source);
        run(dir, "gcc", "-O0", "-o", exe.toString(), src.toString());
        String out = run(dir, exe.toString());
        Map<String, Long> values = new HashMap<>();
        for (String line : out.split("\n")) {
            String[] kv = line.split("=");
            values.put(kv[0], Long.parseLong(kv[1].trim()));
        }
        assertEquals(expected, values.size(), out);
        return values;
    }

    /** sizeof(struct name) and offsetof(name, f) for each of fields, as gcc said, against layout. */
    public static void assertStruct(Map<String, Long> c, String name, StructLayout layout, String... fields) {
        assertEquals(c.get(name), layout.byteSize(), "sizeof(struct " + name + ")");
        for (String f : fields) {
            assertEquals(c.get(name + "." + f), layout.byteOffset(groupElement(f)), "offsetof(" + name + ", " + f
                    + ")");
        }
    }

    static String run(Path dir, String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", cmd) + " failed:\n" + out);
        }
        return out;
    }
}
