package org.sysframe.bench.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sysframe.bench.peer.CPeerModesTest;
import org.sysframe.testsupport.NeedsPerf;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code profile} against a real server, real clients and a real {@code perf record}: the spinning socket target,
 * sysframe's client beside the lean C client. Its table adds up (the parts to the samples, the samples and what
 * they missed to the clock, each to the ns it prints), each side's own code is where it should be (sysframe's Java
 * code on sysframe's side only, the C program's on the C side only), both spend time in the kernel, and it leaves
 * neither its recordings nor the JIT's map behind.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ProfileCommandTest {
    @Test
    @NeedsPerf
    void spinningSocketAddsUpPerSideAndLeavesNothingBehind() throws Exception {
        String old = System.getProperty("sysframe.cpeer");
        System.setProperty("sysframe.cpeer", CPeerModesTest.binary().toString()); // make test builds it first
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        List<Path> before = profileDirs(tmp);
        Path jitMap = Path.of("/tmp/perf-" + ProcessHandle.current().pid() + ".map");
        try {
            List<String> out = run("--target", "spin", "--seconds", "0.3", "--methods", "3");
            assertTrue(out.get(0).startsWith("machine: "), String.join("\n", out));
            assertTrue(out.stream().anyMatch(l -> l.startsWith("spin: one call at a time on the socket")),
                    out::toString);
            long[] clock = row(out, "client CPU per call, ns (the clock)");
            long[] samples = row(out, "in perf's samples");
            long[] unsampled = row(out, ProfileCommand.UNSAMPLED);
            long[] parts = new long[3];
            int partRows = 0;
            for (String label : List.of("kernel", "libc", "vDSO (clock reads)", "sysframe's Java code",
                    "the bench's Java code (its clock and histogram)", "the JDK's Java code",
                    "JVM stubs and interpreter", "JVM runtime (libjvm)", "the C program", "other")) {
                long[] r = rowOrNull(out, label);
                if (r == null) continue;
                partRows++;
                for (int i = 0; i < 3; i++) parts[i] += r[i];
            }
            for (int side = 0; side < 2; side++) {
                // each printed figure is rounded to the ns: a sum of k of them is within k/2 of the rounded sum
                assertTrue(Math.abs(parts[side] - samples[side]) <= partRows, "the parts add up to the samples, side "
                        + side + ": " + parts[side] + " vs " + samples[side] + "\n" + String.join("\n", out));
                assertTrue(Math.abs(samples[side] + unsampled[side] - clock[side]) <= 1, "samples and what they "
                        + "missed add up to the clock, side " + side + "\n" + String.join("\n", out));
                assertTrue(samples[side] > 0, "sampled, side " + side);
                assertTrue(row(out, "kernel")[side] > 0, "a spinning client's syscalls, side " + side);
            }
            long[] java = row(out, "sysframe's Java code");
            assertTrue(java[0] > 0 && java[1] == 0, "sysframe's Java code on its side only: " + java[0] + ", "
                    + java[1]);
            long[] program = row(out, "the C program");
            assertTrue(program[0] == 0 && program[1] > 0, "the C program's code on its side only: " + program[0]
                    + ", " + program[1]);
            assertTrue(row(out, "calls profiled")[0] > 0 && row(out, "calls profiled")[1] > 0);
            int at = out.indexOf(out.stream().filter(l -> l.startsWith("  sysframe's Java code by method")).findFirst()
                    .orElseThrow());
            assertEquals(3, out.size() - at - 1, "three methods listed: " + out.subList(at, out.size()));
            assertEquals(before, profileDirs(tmp), "its recordings removed");
            assertFalse(Files.exists(jitMap), "the JIT's map it wrote removed");
        } finally {
            if (old == null) System.clearProperty("sysframe.cpeer");
            else System.setProperty("sysframe.cpeer", old);
        }
    }

    @Test
    void refusesWhatItCannotRun() {
        IllegalArgumentException t = assertThrows(IllegalArgumentException.class, () -> run("--target", "spin,nope"));
        assertEquals("--target nope: expected spin, depth64, depth64-core or shm", t.getMessage());
        IllegalArgumentException s = assertThrows(IllegalArgumentException.class, () -> run("--seconds", "0"));
        assertEquals("--seconds 0.0: expected more than 0, at most 600", s.getMessage());
        IllegalArgumentException l = assertThrows(IllegalArgumentException.class, () -> run("-l", "-1"));
        assertEquals("-l -1 is outside 0..65536", l.getMessage());
    }

    /** Runs profile in this JVM, its arguments parsed by picocli; the lines it printed. */
    private static List<String> run(String... args) throws Exception {
        ProfileCommand cmd = new ProfileCommand();
        new CommandLine(cmd).parseArgs(args);
        return Quietly.run(cmd).lines().toList();
    }

    private static long[] row(List<String> out, String label) {
        long[] r = rowOrNull(out, label);
        if (r == null) throw new AssertionError("no row '" + label + "' in:\n" + String.join("\n", out));
        return r;
    }

    /** A table row's three figures (sysframe, C, difference; "" as 0), or null when it has no such row. */
    private static long[] rowOrNull(List<String> out, String label) {
        for (String l : out) {
            if (!l.strip().startsWith(label)) continue;
            String rest = l.strip().substring(label.length()).strip();
            String[] f = rest.split("\\s+");
            if (f.length == 0 || f[0].isEmpty() || !f[0].matches("-?[0-9,]+(\\.[0-9]+x)?")) continue;
            long[] r = new long[3];
            for (int i = 0; i < Math.min(3, f.length); i++) {
                r[i] = f[i].endsWith("x") ? 0 : Long.parseLong(f[i].replace(",", "").replace("+", ""));
            }
            return r;
        }
        return null;
    }

    private static List<Path> profileDirs(Path tmp) throws Exception {
        try (Stream<Path> s = Files.list(tmp)) {
            return s.filter(p -> p.getFileName().toString().startsWith("sysframe-profile")).sorted().toList();
        }
    }
}
