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
import org.sysframe.transport.internal.shm.ShmRing;
import org.sysframe.transport.internal.shm.ShmSegment;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SharedMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

/**
 * Where a spinning channel's round trip goes, four ways, each one round trip between this
 * benchmark's thread and an echo thread of the same JVM, both spinning (the two threads on the two
 * cores): {@code sequence}, the bench's Java loop (one sequence word per direction, the payload in a
 * slot beside it: two cache lines each way); {@code rings}, the same message
 * (a 16-byte header and the payload) through the channel's two {@link ShmRing}s, with nothing of
 * the library around them; {@code records}, the same message through rings of records that say
 * "published" in their own line ({@link Records}: a design, not the library's), and {@code zeroAhead},
 * those records with the next word zeroed by the producer ({@link ZeroAhead}). Set beside
 * {@code SharedMemoryBenchmark.channelCall} (the whole call: client, framing, the server's loop), the
 * differences price the protocol and the library apart. JMH runs each in a fork of its own, and a fork
 * may land in a fast or a slow placement of the guest's vCPUs: {@link PairedPingPong} runs them in turns in
 * one process, for ratios that hold.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class PingPongBenchmark {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final int HEADER = 16;

    /** An echo thread, spinning until told to stop; the state every design shares. */
    @State(Scope.Benchmark)
    public abstract static class Echo {
        static final int OWN0 = 8, OWN1 = 9, OWN2 = 10;

        /** The request's payload in bytes (after a 16-byte header). */
        @Param({"32"})
        public int payload;

        /**
         * Where each thread keeps the positions it writes: words 8 to 10 of an array of its own, with lines of
         * padding around them, and nothing else of the state written after the setup. A line one thread writes and
         * the other reads, be it only for a neighbouring field, would move between the cores at every message: a
         * cost two processes do not have, which the rings (each side with its own mapping and ring objects) do
         * not pay either. This one is the echo thread's; {@link #mine} the benchmark thread's.
         */
        final long[] own = new long[24];
        final long[] mine = new long[24];
        private volatile boolean stop;
        private Thread thread;

        /** One look: echoes a message if one is there. */
        abstract void echoOnce() throws ErrnoException;

        /** The state made and the echo thread started (JMH's trial setup; {@link PairedPingPong} calls it too). */
        abstract void setup() throws ErrnoException;

        /** The echo thread stopped and the state freed. */
        abstract void tearDown() throws InterruptedException;

        void start(String name) {
            thread = new Thread(() -> {
                try {
                    while (!stop) echoOnce();
                } catch (ErrnoException e) {
                    throw new IllegalStateException(e);
                }
            }, name);
            thread.setDaemon(true);
            thread.start();
        }

        void stop() throws InterruptedException {
            stop = true;
            thread.join();
        }
    }

    /** The Java loop: a sequence word and a slot per direction, each word on its own line. */
    @State(Scope.Benchmark)
    public static class Sequence extends Echo {
        static final long REQUEST_SEQ = 0, ANSWER_SEQ = 64, REQUEST = 128, ANSWER = 128 + 4096;

        Arena arena;
        MemorySegment page;
        MemorySegment message;

        @Setup(Level.Trial)
        public void setup() {
            arena = Arena.ofShared();
            page = arena.allocate(ANSWER + 4096, 4096);
            message = arena.allocate(HEADER + payload, 8);
            start("sequence echo");
        }

        @Override
        void echoOnce() {
            long s = (long) LONG.getAcquire(page, REQUEST_SEQ);
            if (s == own[OWN0]) {
                Thread.onSpinWait();
                return;
            }
            MemorySegment.copy(page, REQUEST, page, ANSWER, HEADER + payload);
            own[OWN0] = s;
            LONG.setRelease(page, ANSWER_SEQ, s);
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException {
            stop();
            arena.close();
        }
    }

    /** The channel's two rings in a segment of this process, both sides saying they never sleep. */
    @State(Scope.Benchmark)
    public static class Rings extends Echo {
        ShmSegment segment;
        ShmSegment echoSegment; // the echo thread's own mapping and rings, as a server process has
        ShmRing requests;
        ShmRing answers;
        ShmRing echoRequests;
        ShmRing echoAnswers;
        Arena arena;
        MemorySegment message;
        MemorySegment into;
        MemorySegment echoBuffer;

        @Setup(Level.Trial)
        public void setup() throws ErrnoException {
            int[] fd = {-1};
            segment = ShmSegment.create("sysframe-jmh-pingpong", 64 * 1024, fd);
            try {
                echoSegment = ShmSegment.open(fd[0], segment.size());
            } finally {
                SharedMemory.close(fd[0]);
            }
            requests = segment.requests();
            answers = segment.answers();
            echoRequests = echoSegment.requests();
            echoAnswers = echoSegment.answers();
            for (ShmRing r : new ShmRing[] {requests, answers}) {
                r.consumerNeverSleeps(true);
                r.producerNeverSleeps(true);
            }
            arena = Arena.ofShared();
            message = arena.allocate(HEADER + payload, 8);
            into = arena.allocate(HEADER + payload, 8);
            echoBuffer = arena.allocate(HEADER + payload, 8);
            start("rings echo");
        }

        /** As the server's loop does: the request copied out once, the answer copied in once. */
        @Override
        void echoOnce() throws ErrnoException {
            int len = HEADER + payload;
            if (echoRequests.available() < len) {
                Thread.onSpinWait();
                return;
            }
            echoRequests.take(echoBuffer, 0, len);
            echoAnswers.put(echoBuffer, 0, len);
            echoAnswers.publish();
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException {
            stop();
            segment.close();
            echoSegment.close();
            arena.close();
        }
    }

    /**
     * A design the library does not have, measured beside its rings (no faster than them:
     * docs/shared-memory.md): records that say "published" in their own first line, as Agrona's do. A length
     * word before each body is stored last, with a release; the consumer spins on it, reads the body, zeroes
     * the record and publishes its head, which the producer reads only when short of room. No tail index: a
     * round trip moves the data's line alone each way, where the channel's rings move the tail's too. In the
     * rings of a segment's mirrored mapping, so that a record never splits at the wrap; the two heads in words
     * of the first page that the segment's layout leaves free.
     */
    @State(Scope.Benchmark)
    public static class Records extends Echo {
        static final long HEAD0 = 1024, HEAD1 = 1088; // words of the first page the layout leaves free

        /** Whether the producer zeroes the next record's word before it publishes ({@link ZeroAhead}). */
        final boolean producerZeroes;

        public Records() { this(false); }

        Records(boolean producerZeroes) { this.producerZeroes = producerZeroes; }

        ShmSegment segment;
        MemorySegment m;
        long data0, data1;
        long mask;
        long cap;
        // the benchmark thread, producer of ring 0 and consumer of ring 1: tail0, headSeen0, head1 in mine[]; the
        // echo thread, consumer of ring 0 and producer of ring 1: head0, tail1, headSeen1 in own[]
        Arena arena;
        MemorySegment message, into, echoBuffer;

        @Setup(Level.Trial)
        public void setup() throws ErrnoException {
            segment = SharedMemoryBenchmark.segment("sysframe-jmh-records");
            m = segment.memory();
            cap = segment.capacity();
            mask = cap - 1;
            data0 = segment.requests().readAt(); // where each ring's bytes begin (both rings are empty)
            data1 = segment.answers().readAt();
            arena = Arena.ofShared();
            message = arena.allocate(HEADER + payload, 8);
            into = arena.allocate(HEADER + payload, 8);
            echoBuffer = arena.allocate(HEADER + payload, 8);
            start("records echo");
        }

        static long size(long body) { return (8 + body + 7) & ~7L; }

        /** As the server's loop would: the request copied out once, the answer copied in once. */
        @Override
        void echoOnce() {
            long at = data0 + (own[OWN0] & mask);
            int len = (int) INT.getAcquire(m, at);
            if (len == 0) {
                Thread.onSpinWait();
                return;
            }
            MemorySegment.copy(m, at + 8, echoBuffer, 0, len);
            own[OWN0] = consumed(at, own[OWN0], len, HEAD0);
            own[OWN1] = publish(echoBuffer, len, data1, own, OWN1, OWN2, HEAD1);
        }

        /**
         * The producer's side of a ring: room waited for (the head read again only when the one read last leaves
         * too little), the body copied after its word, the next word zeroed first if this producer zeroes ahead,
         * the length stored with a release. positions[tail] and positions[headSeen] are the producer's own; returns
         * the new tail.
         */
        long publish(MemorySegment body, int len, long data, long[] positions, int tail, int headSeen, long head) {
            long t = positions[tail];
            long sz = size(len);
            long need = producerZeroes ? sz + 8 : sz;
            while (cap - (t - positions[headSeen]) < need) positions[headSeen] = (long) LONG.getAcquire(m, head);
            long w = data + (t & mask);
            MemorySegment.copy(body, 0, m, w + 8, len);
            if (producerZeroes) m.set(ValueLayout.JAVA_LONG, data + ((t + sz) & mask), 0L);
            INT.setRelease(m, w, len);
            return t + sz;
        }

        /**
         * The consumer is done with the record at at (position pos, len bytes): zeroed unless the producer zeroes
         * ahead, its room given back through head; returns the next record's position.
         */
        long consumed(long at, long pos, int len, long head) {
            long sz = size(len);
            if (!producerZeroes) for (long k = 0; k < sz; k += 8) m.set(ValueLayout.JAVA_LONG_UNALIGNED, at + k, 0L);
            LONG.setRelease(m, head, pos + sz);
            return pos + sz;
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException {
            stop();
            segment.close();
            arena.close();
        }
    }

    /**
     * The same records, zeroed by the producer instead: before it publishes a record, it stores 0 in the word after
     * it, where the next record will be, so that the consumer never zeroes what it read (no memset of a large
     * message) and a stale word is never taken for a record. The producer keeps room for that word.
     */
    @State(Scope.Benchmark)
    public static class ZeroAhead extends Records {
        public ZeroAhead() { super(true); }
    }

    /** As the client would: the request written in place, the answer copied out once. */
    @Benchmark
    public long records(Records s) { return recordsRoundTrip(s); }

    /** As {@link #records}, the next record's word zeroed by the producer. */
    @Benchmark
    public long zeroAhead(ZeroAhead s) { return recordsRoundTrip(s); }

    private static long recordsRoundTrip(Records s) {
        long[] mine = s.mine;
        mine[Echo.OWN0] = s.publish(s.message, HEADER + s.payload, s.data0, mine, Echo.OWN0, Echo.OWN1,
                Records.HEAD0);
        long at = s.data1 + (mine[Echo.OWN2] & s.mask);
        int got;
        while ((got = (int) INT.getAcquire(s.m, at)) == 0) Thread.onSpinWait();
        MemorySegment.copy(s.m, at + 8 + HEADER, s.into, 0, got - HEADER);
        mine[Echo.OWN2] = s.consumed(at, mine[Echo.OWN2], got, Records.HEAD1);
        return got;
    }

    @Benchmark
    public long sequence(Sequence s) {
        long seq = ++s.mine[Echo.OWN0];
        MemorySegment.copy(s.message, 0, s.page, Sequence.REQUEST, HEADER + s.payload);
        LONG.setRelease(s.page, Sequence.REQUEST_SEQ, seq);
        while ((long) LONG.getAcquire(s.page, Sequence.ANSWER_SEQ) != seq) Thread.onSpinWait();
        return s.page.get(ValueLayout.JAVA_BYTE, Sequence.ANSWER + HEADER + s.payload - 1);
    }

    /** As the client does: the request claimed and written in place, the answer read in place and copied out once. */
    @Benchmark
    public long rings(Rings s) throws ErrnoException {
        int len = HEADER + s.payload;
        ShmRing out = s.requests;
        long at = out.claim(len);
        MemorySegment.copy(s.message, 0, out.memory(), at, len);
        out.commit(len);
        out.publish();
        ShmRing in = s.answers;
        while (in.available() < len) Thread.onSpinWait();
        MemorySegment.copy(in.memory(), in.readAt() + HEADER, s.into, 0, s.payload);
        in.release(len);
        return len;
    }
}
