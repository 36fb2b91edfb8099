package org.sysframe.bench.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.bench.explore.PairingSpec;
import org.sysframe.bench.explore.Payloads;
import org.sysframe.bench.explore.SweepParameter;
import org.sysframe.bench.explore.SweepSpec;
import org.sysframe.bench.explore.Workload;
import org.sysframe.bench.peer.Pairing;
import org.sysframe.transport.Backend;
import org.sysframe.transport.FlushMode;
import org.sysframe.transport.RecvFraming;
import org.sysframe.transport.SendFraming;
import org.sysframe.transport.WaitMode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The explorer's command-line parsers: --pairing, sweep PARAM=..., --payloads, histograms; every refusal's exact line.
 */
class ExplorerParsersTest {
    static final String KEYS =
            "name, base, client-send, client-recv, server-send, flush, high-water, wait, cpu, server-cpu, depth, "
            + "backend, client-backend, server-backend";

    private static <T> void refuses(String message, Function<String, T> parser, String input) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parser.apply(input), input);
        assertEquals(message, e.getMessage());
    }

    @Test
    void pairingKeysOverrideTheDefaults() {
        Pairing p =
                PairingSpec.parse("name=mine,client-send=copy:512,client-recv=readahead:4096,server-send=gather,"
                + "flush=deferred");
        assertEquals("mine", p.name());
        assertEquals(SendFraming.copy(512), p.clientSend());
        assertEquals(RecvFraming.readAhead(4096), p.clientRecv());
        assertEquals(SendFraming.GATHER, p.serverSend());
        assertEquals(FlushMode.DEFERRED, p.serverFlush());
        assertEquals(FlushMode.DEFAULT_HIGH_WATER, p.highWater());
        assertEquals(WaitMode.BLOCK, p.clientWait());
        assertEquals(-1, p.clientCpu());
        assertEquals(1, p.depth());

        Pairing d = PairingSpec.parse("name=d");
        Pairing sysframe = Pairing.named("sysframe");
        assertEquals(List.of(sysframe.clientSend(), sysframe.clientRecv(), sysframe.serverSend(),
                sysframe.serverFlush()), List.of(d.clientSend(), d.clientRecv(), d.serverSend(), d.serverFlush()),
                        "unspecified keys take the defaults");

        Pairing b =
                PairingSpec.parse("name=m4k,base=merged,client-recv=readahead:4096,high-water=4096,wait=spin:50us,"
                + "cpu=1,server-cpu=0,depth=16");
        assertEquals(SendFraming.GATHER, b.clientSend());
        assertEquals(RecvFraming.readAhead(4096), b.clientRecv());
        assertEquals(4096, b.highWater());
        assertEquals(WaitMode.parse("spin:50us"), b.clientWait());
        assertEquals(1, b.clientCpu());
        assertEquals(0, b.serverCpu());
        assertEquals(List.of(0), Arrays.stream(b.server("/x").freeze().cpus()).boxed().toList());
        assertEquals(16, b.depth());
        assertEquals("client gather/readahead:4096, server gather/deferred, high-water 4096, client wait spin:50us, "
                + "client on CPU 1, server on CPU 0, depth 16",
                b.framing());
        assertEquals(Pairing.named("seed-v3"), PairingSpec.parse("seed-v3"), "a built-in by its name alone");
        Pairing u = PairingSpec.parse("name=u,backend=io_uring,server-backend=epoll");
        assertEquals(Backend.IO_URING, u.clientBackend(), "backend= sets both sides");
        assertEquals(Backend.EPOLL, u.serverBackend(), "a side's own key wins");
        assertEquals(b.framing(), PairingSpec.parse(PairingSpec.format(b)).framing(), "format gives the spec back");
    }

    @Test
    void pairingRefusalsNameTheKeyAndWhatIsAccepted() {
        Function<String, Pairing> p = PairingSpec::parse;
        refuses("empty; expected name=NAME[,KEY=VALUE...] with keys " + KEYS, p, " ");
        refuses("'mine' is no built-in pairing (baseline, seed-v3, merged, sysframe) and not KEY=VALUE,...", p, "mine");
        refuses("'flush' is not KEY=VALUE; keys: " + KEYS, p, "name=a,flush");
        refuses("unknown key 'colour'; keys: " + KEYS, p, "name=a,colour=red");
        refuses("backend=kqueue: unknown backend; accepted epoll, io_uring or auto", p, "name=a,backend=kqueue");
        refuses("server-backend=uring: unknown backend; accepted epoll, io_uring or auto", p,
                "name=a,server-backend=uring");
        refuses("flush=: empty value", p, "name=a,flush=");
        refuses("key 'flush' given twice", p, "name=a,flush=deferred,flush=immediate");
        refuses("no name=; every pairing needs one (e.g. name=mine)", p, "flush=deferred");
        refuses("name=a/b: 1 to 40 letters, digits or . _ - + :", p, "name=a/b");
        refuses("client-send=copy:131073: copy threshold out of range; accepted 16..131072 bytes", p,
                "name=a,client-send=copy:131073");
        refuses("server-send=copygather:8: copy threshold out of range; accepted 16..131072 bytes", p,
                "name=a,server-send=copygather:8");
        refuses("client-send=copy:1k: not a whole number; accepted 16..131072 bytes", p, "name=a,client-send=copy:1k");
        refuses("client-send=zerocopy: unknown send framing; accepted split, copy[:SIZE], gather or copygather[:SIZE] "
                + "(SIZE 16..131072 bytes)",
                p, "name=a,client-send=zerocopy");
        refuses("client-send=gather:64: unknown send framing; accepted split, copy[:SIZE], gather or copygather[:SIZE] "
                + "(SIZE 16..131072 bytes)",
                p, "name=a,client-send=gather:64");
        refuses("client-recv=readahead:63: read-ahead out of range; accepted 64..16777216 bytes", p,
                "name=a,client-recv=readahead:63");
        refuses("client-recv=readahead:16777217: read-ahead out of range; accepted 64..16777216 bytes", p,
                "name=a,client-recv=readahead:16777217");
        refuses("client-recv=peek: unknown recv framing; accepted exact or readahead[:SIZE] (SIZE 64..16777216 bytes)",
                p, "name=a,client-recv=peek");
        refuses("flush=lazy: unknown flush mode; accepted immediate or deferred", p, "name=a,flush=lazy");
        refuses("high-water=512: high-water out of range; accepted 1024..16777216 bytes", p, "name=a,high-water=512");
        refuses("depth=0: depth out of range; accepted 1..1024", p, "name=a,depth=0");
        refuses("depth=4: a pipelined client never splits its sends; use client-send copy, gather or copygather", p,
                "name=a,base=baseline,depth=4");
        refuses("cpu=-2: cpu out of range; accepted -1..4095", p, "name=a,cpu=-2");
        refuses("wait=nap: wait mode 'nap': expected block, spin, spin:DURATION (e.g. spin:50us) or yield", p,
                "name=a,wait=nap");
        refuses("'nope' is no built-in pairing (baseline, seed-v3, merged, sysframe) and not KEY=VALUE,...", p,
                "name=a,base=nope");
    }

    @Test
    void matrixPairingsDefaultToTheBuiltInFourAndRefuseATwiceGivenName() {
        assertEquals(Pairing.standard(), MatrixCommand.pairings(List.of()));
        assertEquals(List.of("mine", "merged"), MatrixCommand.pairings(List.of("name=mine,flush=immediate", "merged"))
                .stream().map(Pairing::name).toList());
        refuses("--pairing: name merged given twice", s -> MatrixCommand.pairings(List.of("merged", s)), "name=merged");
        refuses("--pairing: flush=x: unknown flush mode; accepted immediate or deferred", s ->
                MatrixCommand.pairings(List.of(s)), "name=a,flush=x");
        refuses("c is no pairing of this run (a, b)", s -> MatrixCommand.crossoverPair(s, List.of("a", "b")), "a,c");
        refuses("'a,a': expected two different pairings, A,B", s -> MatrixCommand.crossoverPair(s, List.of("a", "b")),
                "a,a");
    }

    @Test
    void sweepSpecsAreCanonicalAndAppliedToTheHeldPairing() {
        SweepSpec s = SweepSpec.parse("copy-threshold=0256,512,1024");
        assertEquals(SweepParameter.COPY_THRESHOLD, s.parameter());
        assertEquals(List.of("256", "512", "1024"), s.values());
        Pairing held = Pairing.named("sysframe");
        List<Pairing> ps = s.pairings(held);
        assertEquals(List.of("copy-threshold=256", "copy-threshold=512", "copy-threshold=1024"),
                ps.stream().map(Pairing::name).toList());
        assertEquals(SendFraming.copyGather(512), ps.get(1).clientSend());
        assertEquals(SendFraming.copyGather(512), ps.get(1).serverSend());
        assertEquals(held.clientRecv(), ps.get(1).clientRecv());
        assertEquals("copy-threshold=1024", s.reference(held), "the held value when it is swept");
        assertEquals("readahead=64", SweepSpec.parse("readahead=64,4096").reference(held), "else the first");
        Pairing seed = Pairing.named("seed-v3");
        assertEquals(SendFraming.copy(2048), SweepSpec.parse("copy-threshold=256,2048").pairings(seed).get(1)
                .serverSend(), "the kind is held");
        assertEquals(RecvFraming.readAhead(4096),
                SweepSpec.parse("readahead=64,4096").pairings(Pairing.named("baseline")).get(1).clientRecv());
        assertEquals(4096, SweepSpec.parse("high-water=1024,4096").pairings(held).get(1).highWater());
        assertEquals(16, SweepSpec.parse("depth=1,16").pairings(held).get(1).depth());
        List<Pairing> spin = SweepSpec.parse("spin=0,50us,forever").pairings(held);
        assertEquals(List.of(WaitMode.BLOCK, WaitMode.parse("spin:50us"), WaitMode.SPIN),
                spin.stream().map(Pairing::clientWait).toList());
        assertEquals(List.of(WaitMode.BLOCK, WaitMode.YIELD, WaitMode.parse("spin:50us")),
                SweepSpec.parse("wait=block,YIELD,spin:50us").pairings(held).stream().map(Pairing::clientWait)
                .toList());
        assertEquals("wait=block", SweepSpec.parse("wait=yield,block").reference(held));
        assertEquals(List.of(FlushMode.IMMEDIATE, FlushMode.DEFERRED),
                SweepSpec.parse("flush=Immediate,deferred").pairings(held).stream().map(Pairing::serverFlush).toList());
        assertEquals(List.of("copy-threshold=8192", "copy-threshold=256"),
                SweepCommand.pair(SweepSpec.parse("copy-threshold=256,8192"), "8192,256"));
        assertEquals(List.of("readahead=64", "readahead=8192"),
                SweepCommand.pair(SweepSpec.parse("readahead=64,4096,8192"), ""));
    }

    @Test
    void sweepRefusalsNameTheParameterAndItsRange() {
        String all =
                "copy-threshold (16..131072 bytes), readahead (64..16777216 bytes), high-water (1024..16777216 bytes), "
                + "depth (1..1024),"
                + " spin (0 (block), a duration of ns, us, ms or s up to 10s such as 50us (spin, then block), or "
                        + "forever (spin only)),"
                + " wait (block, spin, spin:DURATION (up to 10s, e.g. spin:50us) or yield), flush (immediate or "
                        + "deferred)";
        Function<String, SweepSpec> s = SweepSpec::parse;
        refuses("unknown parameter 'threshold'; sweepable: " + all, s, "threshold=1,2");
        refuses("'copy-threshold': expected PARAM=V1,V2,...; sweepable: " + all, s, "copy-threshold");
        refuses("copy-threshold=: empty list; accepted 16..131072 bytes", s, "copy-threshold=");
        refuses("copy-threshold=256,,512: an empty value in the list; accepted 16..131072 bytes", s,
                "copy-threshold=256,,512");
        refuses("copy-threshold=262144: copy threshold out of range; accepted 16..131072 bytes", s,
                "copy-threshold=256,262144");
        refuses("readahead=32: read-ahead out of range; accepted 64..16777216 bytes", s, "readahead=32,8192");
        refuses("readahead=33554432: read-ahead out of range; accepted 64..16777216 bytes", s,
                "readahead=8192,33554432");
        refuses("readahead=8k: not a whole number; accepted 64..16777216 bytes", s, "readahead=8k,64");
        refuses("high-water=100: high-water out of range; accepted 1024..16777216 bytes", s, "high-water=100,4096");
        refuses("depth=2000: depth out of range; accepted 1..1024", s, "depth=1,2000");
        refuses("spin=11s: not a spin budget; accepted 0 (block), a duration of ns, us, ms or s up to 10s such as 50us "
                + "(spin, then block),"
                + " or forever (spin only)", s, "spin=0,11s");
        refuses("flush=lazy: unknown flush mode; accepted immediate or deferred", s, "flush=deferred,lazy");
        refuses("wait=nap: wait mode 'nap': expected block, spin, spin:DURATION (e.g. spin:50us) or yield", s,
                "wait=block,nap");
        refuses("copy-threshold=512,0512: 512 listed twice", s, "copy-threshold=512,0512");
        refuses("copy-threshold=512: a sweep needs at least two values", s, "copy-threshold=512");
        Pairing merged = Pairing.named("merged");
        refuses("copy-threshold: the held pairing copies on neither side (client-send gather, server-send gather); "
                + "hold one that does with --base",
                v -> SweepSpec.parse(v).pairings(merged), "copy-threshold=256,512");
        Pairing immediate = Pairing.named("seed-v3");
        refuses("high-water: the held pairing flushes immediately, so it has no high-water mark; hold one with "
                + "flush=deferred",
                v -> SweepSpec.parse(v).pairings(immediate), "high-water=1024,4096");
        refuses("depth=4: a pipelined client never splits its sends; use client-send copy, gather or copygather",
                v -> SweepSpec.parse(v).pairings(Pairing.named("baseline")), "depth=1,4");
        SweepSpec spec = SweepSpec.parse("copy-threshold=256,8192");
        refuses("512 is not a swept value (256, 8192)", v -> SweepCommand.pair(spec, v), "256,512");
        refuses("'256': expected two swept values, A,B", v -> SweepCommand.pair(spec, v), "256");
        refuses("'256,0256': two different values, please", v -> SweepCommand.pair(spec, v), "256,0256");
    }

    @Test
    void tuneCandidatesComeFromTryOrTheBuiltInSet() {
        Pairing held = Pairing.named("sysframe").renamed(TuneCommand.DEFAULTS, "");
        assertEquals(TuneCommand.CANDIDATES, TuneCommand.specs(List.of(), held));
        assertEquals(List.of(SweepParameter.READAHEAD, SweepParameter.FLUSH),
                TuneCommand.specs(List.of(), Pairing.named("merged")).stream().map(SweepSpec::parameter).toList(),
                "built-in candidates the held settings cannot take are left out (merged never copies)");
        List<SweepSpec> s = TuneCommand.specs(List.of("readahead=64,1024", "flush=immediate"), held);
        assertEquals(List.of("64", "1024", "8192"), s.get(0).values(), "the defaults' own value is added");
        assertEquals(List.of("immediate", "deferred"), s.get(1).values());
        assertEquals(List.of("default", "readahead=64", "readahead=1024", "flush=immediate"),
                TuneCommand.candidates(held, s).stream().map(Pairing::name).toList());
        Function<String, List<SweepSpec>> one = t -> TuneCommand.specs(List.of(t), held);
        refuses("--try: flush=deferred: nothing but the defaults' own value (deferred); name another", one,
                "flush=deferred");
        refuses("--try: readahead=32: read-ahead out of range; accepted 64..16777216 bytes", one, "readahead=32");
        refuses("--try: 9 candidate values; at most 8", one, "copy-threshold=16,32,64,128,256,512,2048,4096,8192");
        refuses("--try: readahead given twice; list its values in one --try", t ->
                TuneCommand.specs(List.of("readahead=64", t), held), "readahead=128");
        Pairing slow = PairingSpec.parse("name=slow,client-recv=readahead:64").renamed(TuneCommand.DEFAULTS, "");
        assertEquals(List.of("8192", "64"), TuneCommand.specs(List.of("readahead=8192"), slow).get(0).values(),
                "--base changes the held value");
    }

    @Test
    void payloadsDoubleAcrossAnEllipsis() {
        assertArrayEquals(new int[] {32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536},
                Payloads.parse("32,...,65536"));
        assertArrayEquals(new int[] {0, 32, 64, 100, 128}, Payloads.parse("0,100,32,...,128"));
        assertArrayEquals(new int[] {48, 96, 100}, Payloads.parse("48,...,100"));
        Function<String, int[]> p = Payloads::parse;
        refuses("131073: payload out of range; accepted 0..131072 bytes", p, "32,131073");
        refuses("'32,,64': an empty size; accepted 0..131072 bytes", p, "32,,64");
        refuses("'...,64': '...' needs a size on each side, as in 32,...,65536", p, "...,64");
        refuses("'64,...,32': A,...,B doubles A up to B, so it needs 0 < A < B", p, "64,...,32");
        refuses("x: not a whole number; accepted 0..131072 bytes", p, "x");
    }

    @Test
    void histogramsWeighSizesByTheirCounts(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("sizes.txt");
        Files.writeString(f, "# size count\n32 300\n\n1024, 100  # big ones\n32 100\n");
        Workload w = Workload.histogram(f);
        assertArrayEquals(new int[] {32, 1024}, w.sizes());
        assertArrayEquals(new double[] {0.8, 0.2}, w.weights(), 1e-12);
        assertEquals("histogram sizes.txt: 32 B 80.0 % 1024 B 20.0 %", w.description());
        assertEquals(0.8 / 1000 + 0.2 / 500, w.secondsPerCall(new double[] {1000, 500}), 1e-15);
        Files.writeString(f, "32 1\n64 zero\n");
        assertEquals(f + ":2: count zero: expected a whole number of at least 1",
                assertThrows(IllegalArgumentException.class, () -> Workload.histogram(f)).getMessage());
        Files.writeString(f, "32\n");
        assertEquals(f + ":1: '32': expected SIZE COUNT",
                assertThrows(IllegalArgumentException.class, () -> Workload.histogram(f)).getMessage());
        Files.writeString(f, "200000 1\n");
        assertEquals(f + ":1: size 200000: payload out of range; accepted 0..131072 bytes",
                assertThrows(IllegalArgumentException.class, () -> Workload.histogram(f)).getMessage());
        assertEquals("--histogram " + dir.resolve("none") + ": no such readable file",
                assertThrows(IllegalArgumentException.class, () -> Workload.histogram(dir.resolve("none")))
                .getMessage());
        Files.writeString(f, "# nothing\n");
        assertEquals(f + ": no SIZE COUNT lines",
                assertThrows(IllegalArgumentException.class, () -> Workload.histogram(f)).getMessage());
        assertEquals("13 sizes; at most 12 (each is measured for every candidate)",
                assertThrows(IllegalArgumentException.class, () -> Workload.of(Payloads.parse("1,...,4096")))
                .getMessage());
    }
}
