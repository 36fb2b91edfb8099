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
import org.sysframe.transport.Backend;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.Reply;
import org.sysframe.transport.Request;
import org.sysframe.transport.Response;
import org.sysframe.transport.ServerOptions;
import org.sysframe.transport.WaitMode;
import org.sysframe.transport.internal.shm.ShmRing;
import org.sysframe.transport.internal.shm.ShmSegment;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SharedMemory;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

/**
 * The shared-memory channel's hot paths. {@code ring}: one message through one ring on one thread
 * (put, publish, take: the ring's bookkeeping and its two copies, with no other core's cache line to
 * wait for), with the peer saying it never sleeps (a publish is a release store) or that it may (a
 * full fence and a look at its sleeping word). {@code claimCommit}: the same message written and read
 * in place, as the client does (claim, a 16-byte header and the payload copied in, commit, publish;
 * the header read where it lies, the payload copied out once, release). {@code channelCall}: one
 * GR_PING over a channel to a server in this JVM, both sides spinning (the server's loop on another
 * core), answered by the built-in echo ({@code answer=echo}) or by a handler that claims its answer in the ring and
 * copies the request's payload there ({@code answer=claim}: the in-place framing of {@code Reply.claim}). Run with
 * {@code -prof gc}: all should show 0 B/op.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class SharedMemoryBenchmark {
    /** The header a claimCommit message carries (a response header's size). */
    private static final int HEADER = 16;

    /** One ring of a segment of this process, and a message to send through it. */
    @State(Scope.Thread)
    public static class Ring {
        @Param({"32", "1024"})
        public int payload;

        @Param({"true", "false"})
        public boolean neverSleeps;

        ShmSegment segment;
        ShmRing ring;
        Arena arena;
        MemorySegment message;
        MemorySegment into;

        @Setup(Level.Trial)
        public void setup() throws ErrnoException {
            segment = segment("sysframe-jmh");
            ring = segment.requests();
            ring.consumerNeverSleeps(neverSleeps);
            arena = Arena.ofConfined();
            message = arena.allocate(payload, 8);
            into = arena.allocate(payload, 8);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            segment.close();
            arena.close();
        }
    }

    /** A server offering channels and a client on one, both spinning. */
    @State(Scope.Thread)
    public static class Channel {
        @Param({"32", "1024", "65536"})
        public int payload;

        @Param({"echo", "claim"})
        public String answer;

        InJvmPair pair;
        int type;
        Arena arena;
        MemorySegment body;

        @Setup(Level.Trial)
        public void setup() throws IOException {
            pair = InJvmPair.open(path -> ServerOptions.defaults().socketPath(path).backend(Backend.EPOLL).loops(1)
                    .sharedMemory(true).waitMode(WaitMode.BLOCK).sharedMemoryWaitMode(WaitMode.SPIN)
                    .handle(CLAIMED, 0, SharedMemoryBenchmark::claimed),
                    path -> ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL).sharedMemory(true)
                            .waitMode(WaitMode.SPIN));
            if (!pair.client.sharedMemory()) throw new IllegalStateException("the server gave no channel");
            arena = Arena.ofConfined();
            body = arena.allocate(payload);
            type = answer.equals("claim") ? CLAIMED : GroutApi.PING;
        }

        @TearDown(Level.Trial)
        public void tearDown() throws IOException {
            pair.close();
            arena.close();
        }
    }

    /** Answered with the request's payload, claimed in place ({@code answer=claim}). */
    static final int CLAIMED = GroutApi.type(0x6c6d, 1);

    static void claimed(Request request, Reply reply) {
        long at = reply.claim(request.length());
        MemorySegment.copy(request.buffer(), request.offset(), reply.claimed(), at, request.length());
        reply.commit();
    }

    /** A segment of this process with rings of 64 KiB, its descriptor closed (the mapping keeps the file). */
    static ShmSegment segment(String name) throws ErrnoException {
        int[] fd = {-1};
        ShmSegment segment = ShmSegment.create(name, 64 * 1024, fd);
        SharedMemory.close(fd[0]);
        return segment;
    }

    @Benchmark
    public long ring(Ring s) throws ErrnoException {
        s.ring.put(s.message, 0, s.payload);
        s.ring.publish();
        return s.ring.take(s.into, 0, s.payload);
    }

    @Benchmark
    public long claimCommit(Ring s) throws ErrnoException {
        ShmRing r = s.ring;
        MemorySegment m = r.memory();
        long total = HEADER + s.payload;
        long at = r.claim(total);
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, at, total);
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, 0);
        MemorySegment.copy(s.message, 0, m, at + HEADER, s.payload);
        r.commit(total);
        r.publish();
        if (r.available() < HEADER) throw new IllegalStateException("nothing came");
        long from = r.readAt();
        long len = m.get(ValueLayout.JAVA_LONG_UNALIGNED, from) - HEADER; // read once, checked before use
        if (len != s.payload) throw new IllegalStateException("a header of " + len + " bytes");
        MemorySegment.copy(m, from + HEADER, s.into, 0, len);
        r.release(HEADER + len);
        return len;
    }

    @Benchmark
    public long channelCall(Channel s) throws IOException {
        Response r = s.pair.client.call(s.type, s.body, 0, s.payload);
        return r.length();
    }
}
