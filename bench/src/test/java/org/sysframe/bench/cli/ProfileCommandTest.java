package org.sysframe.bench.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sysframe.bench.peer.CPeerModesTest;
import org.sysframe.bench.profile.PerfProfile;
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
 * {@code profile} against a real server, real clients and a real {@code perf record}: the spinning socket target
 * (sysframe's client beside the lean C client) and the spinning channel (both sides, beside the C ping-pong). Each
 * table adds up (the parts to the samples, the samples and what they missed to the clock, each to the ns it prints),
 * each side's own code is where it should be (sysframe's Java code on sysframe's side only, the C program's on the C
 * side only), both socket clients spend time in the kernel, and it leaves neither its recordings nor the JIT's map
 * behind.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ProfileCommandTest {
    @Test
    @NeedsPerf
    void spinningSocketAndChannelAddUpPerSideAndLeaveNothingBehind() throws Exception {
        String old = System.getProperty("sysframe.cpeer");
        System.setProperty("sysframe.cpeer", CPeerModesTest.binary().toString()); // make test builds it first
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        List<Path> before = profileDirs(tmp);
        Path jitMap = Path.of("/tmp/perf-" + ProcessHandle.current().pid() + ".map");
        try {
            List<String> out = run("--target", "spin,shm", "--seconds", "0.3", "--warmup", "0.3", "--methods", "3");
            assertTrue(out.get(0).startsWith("machine: "), String.join("\n", out));
            int spin = start(out, "spin: one call at a time on the socket");
            int shm = start(out, "shm: one call at a time over a shared-memory channel");
            assertTrue(spin < shm, String.join("\n", out));
            addsUp(out.subList(spin, shm), "client CPU per call, ns (the clock)");
            addsUp(out.subList(shm, out.size()), "CPU per call, both sides, ns (the clock)");
            List<String> socket = out.subList(spin, shm);
            assertTrue(row(socket, "kernel")[0] > 0 && row(socket, "kernel")[1] > 0, "a spinning client's syscalls");
            turnsAroundOncePerCall(socket);
            assertEquals(null, rowOrNull(out.subList(shm, out.size()), ProfileCommand.TURNAROUND),
                    "a channel's client makes no syscall to trace");
            assertEquals(before, profileDirs(tmp), "its recordings removed");
            assertFalse(Files.exists(jitMap), "the JIT's map it wrote removed");
        } finally {
            if (old == null) System.clearProperty("sysframe.cpeer");
            else System.setProperty("sysframe.cpeer", old);
        }
    }

    /**
     * One call at a time, each side of the socket target: one send per call in its traced run, each after the
     * receive of the answer before it but the first; its turnaround measured, no event lost.
     */
    private static void turnsAroundOncePerCall(List<String> out) {
        String all = String.join("\n", out);
        long[] calls = row(out, ProfileCommand.TRACED_CALLS);
        long[] sends = row(out, "sends");
        long[] turnarounds = row(out, ProfileCommand.TURNAROUNDS);
        long[] median = row(out, ProfileCommand.TURNAROUND);
        for (int side = 0; side < 2; side++) {
            assertTrue(calls[side] >= 1000, all);
            assertEquals(calls[side], sends[side], "one send per call, side " + side + "\n" + all);
            assertEquals(calls[side] - 1, turnarounds[side], "each after an answer but the first, side " + side
                    + "\n" + all);
            assertTrue(median[side] > 0, all);
        }
        assertEquals(null, rowOrNull(out, "perf's records of lost events"), all);
    }

    private static int start(List<String> out, String header) {
        for (int i = 0; i < out.size(); i++) if (out.get(i).startsWith(header)) return i;
        throw new AssertionError("no '" + header + "' in:\n" + String.join("\n", out));
    }

    /**
     * One target's table adds up: its parts to the samples, the samples and what they missed to the clock (each to
     * the ns it prints), each side sampled, its own code on its side only, and three methods listed.
     */
    private static void addsUp(List<String> out, String clockRow) {
        String all = String.join("\n", out);
        long[] clock = row(out, clockRow);
        long[] samples = row(out, "in perf's samples");
        long[] unsampled = row(out, ProfileCommand.UNSAMPLED);
        long[] parts = new long[3];
        int partRows = 0;
        for (PerfProfile.Part part : PerfProfile.Part.values()) {
            long[] r = rowOrNull(out, part.label);
            if (r == null) continue;
            partRows++;
            for (int i = 0; i < 3; i++) parts[i] += r[i];
        }
        for (int side = 0; side < 2; side++) {
            // each printed figure is rounded to the ns: a sum of k of them is within k/2 of the rounded sum
            assertTrue(Math.abs(parts[side] - samples[side]) <= partRows, "the parts add up to the samples, side "
                    + side + ": " + parts[side] + " vs " + samples[side] + "\n" + all);
            assertTrue(Math.abs(samples[side] + unsampled[side] - clock[side]) <= 1, "samples and what they missed"
                    + " add up to the clock, side " + side + "\n" + all);
            assertTrue(samples[side] > 0, "sampled, side " + side + "\n" + all);
        }
        long[] java = row(out, "sysframe's Java code");
        assertTrue(java[0] > 0 && java[1] == 0, "sysframe's Java code on its side only\n" + all);
        long[] program = row(out, "the C program");
        assertTrue(program[0] == 0 && program[1] > 0, "the C program's code on its side only\n" + all);
        assertTrue(row(out, "calls profiled")[0] > 0 && row(out, "calls profiled")[1] > 0, all);
        int at = start(out, "  sysframe's Java code by method");
        assertEquals(3, out.subList(at + 1, out.size()).stream().filter(l -> !l.isBlank()).count(),
                "three methods listed: " + all);
    }

    @Test
    void refusesWhatItCannotRun() {
        IllegalArgumentException t = assertThrows(IllegalArgumentException.class, () -> run("--target", "spin,nope"));
        assertEquals("--target nope: expected spin, depth64, depth64-core or shm", t.getMessage());
        IllegalArgumentException s = assertThrows(IllegalArgumentException.class, () -> run("--seconds", "0"));
        assertEquals("--seconds 0.0: expected more than 0, at most 600", s.getMessage());
        IllegalArgumentException w = assertThrows(IllegalArgumentException.class, () -> run("--warmup", "-1"));
        assertEquals("--warmup -1.0: expected 0 to 600", w.getMessage());
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
