package org.sysframe.bench.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.transport.wire.ResponseHeader;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/** Writing a request header and reading a response header in place, at an unaligned offset. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class HeaderCodecBenchmark {
    private Arena arena;
    private MemorySegment buf;
    private int id;

    @Setup
    public void setup() {
        arena = Arena.ofConfined();
        buf = arena.allocate(64);
        ResponseHeader.write(buf, 7, 42, 0, 32);
    }

    @TearDown
    public void tearDown() { arena.close(); }

    @Benchmark
    public void encodeRequest() {
        RequestHeader.write(buf, 3, ++id, GroutApi.PING, 32);
    }

    @Benchmark
    public long decodeResponse() {
        return ResponseHeader.forId(buf, 7) + ResponseHeader.status(buf, 7) + ResponseHeader.payloadLen(buf, 7);
    }
}
