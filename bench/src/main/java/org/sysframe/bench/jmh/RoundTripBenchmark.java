package org.sysframe.bench.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.sysframe.bench.peer.Pairing;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.Response;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * One GR_PING round trip per pairing, against a server in this JVM on a socket in a temp dir. Run
 * with {@code -prof gc}: the client's hot path should show 0 B/op.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class RoundTripBenchmark {
    @Param({"baseline", "seed-v3", "merged", "sysframe"})
    public String pairing;

    @Param({"32", "1024"})
    public int payload;

    private InJvmPair pair;
    private Arena arena;
    private MemorySegment body;

    @Setup(Level.Trial)
    public void setup() throws IOException {
        Pairing p = Pairing.standard().stream().filter(x -> x.name().equals(pairing)).findFirst().orElseThrow();
        pair = InJvmPair.open(p::server, p::client);
        arena = Arena.ofConfined();
        body = arena.allocate(Math.max(1, payload));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        pair.close();
        arena.close();
    }

    @Benchmark
    public long roundTrip() throws IOException {
        Response r = pair.client.call(GroutApi.PING, body, 0, payload);
        return r.length();
    }
}
