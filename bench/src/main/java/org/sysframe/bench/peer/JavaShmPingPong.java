package org.sysframe.bench.peer;

import org.HdrHistogram.Histogram;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.KernelCounters;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.ThreadCpu;
import org.sysframe.transport.internal.shm.ShmSegment;
import org.sysframe.unix.CpuPlacement;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.Self;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The C shared-memory ping-pong's loop ({@link CShmPingPong}) written in Java, as a cell: two platform
 * threads of this JVM, each pinned to its CPU, passing the payload through one off-heap segment, a
 * sequence word per side on a cache line of its own, both spinning with {@link Thread#onSpinWait()}, a
 * clock read per call. No syscall per round trip. Two layouts:
 * <ul>
 * <li>{@link Layout#SLOT}, the C program's page: one fixed slot per direction, so every call moves the
 *     same two lines each way. It is what the JVM itself reaches with the simplest possible channel: set
 *     beside the C row it prices the language.
 * <li>{@link Layout#RING}: each message a record of a Grout frame's size (a {@value #HEADER}-byte header
 *     and the payload) written where the last one ended, in a ring per direction of the channel's
 *     default capacity ({@value #RING_BYTES} bytes), as the channel's rings carry them; the reader checks
 *     the record's length and copies the payload into its answer's record. Nothing else: no framing
 *     code, no flow control (one call at a time), no wait but the spin. Beside the slot row it prices a
 *     ring's moving lines (each record on lines the other core held a lap ago, rather than the same hot
 *     line every call); beside the channel's row, the library (framing, the call's bookkeeping, the
 *     wait, the checks a hostile peer makes necessary).
 * </ul>
 */
public final class JavaShmPingPong implements Cell.Probe {
    private static final VarHandle SEQ = ValueLayout.JAVA_LONG.varHandle();
    static final long REQUEST_SEQ = 0, ANSWER_SEQ = 64, REQUEST = 128;
    /** The largest payload a slot holds (as the C program's). */
    static final int SLOT = 4096;
    private static final long ANSWER = REQUEST + SLOT;
    /**
     * The ring layout's capacity per direction: the shared-memory channel's default ring
     * ({@code ServerOptions.sharedMemory(true)}).
     */
    static final int RING_BYTES = ShmSegment.DEFAULT_CAPACITY;
    /** The ring layout's record header: a Grout request's or response's (three 32-bit words). */
    static final int HEADER = 12;
    /** Where the ring layout's request ring begins: after the page of the sequence words, as the channel's bytes. */
    static final long REQUEST_RING = 4096;
    private static final long ANSWER_RING = REQUEST_RING + RING_BYTES;
    private static final ValueLayout.OfInt WORD = ValueLayout.JAVA_INT_UNALIGNED;

    /** Where each side writes its message: one fixed slot per direction, or records through a ring per direction. */
    public enum Layout { SLOT, RING }

    /** How long a run may take before it is given up (a partner that died, a machine that stalls). */
    private static final long RUN_WAIT_SECONDS = 120;

    private final int clientCpu, serverCpu;
    private final Layout layout;

    /** The two threads pinned to clientCpu and serverCpu, the messages laid out as layout says. */
    public JavaShmPingPong(int clientCpu, int serverCpu, Layout layout) {
        this.clientCpu = clientCpu;
        this.serverCpu = serverCpu;
        this.layout = layout;
    }

    /** What the row is, for the settings line. */
    public String describe() {
        String what = layout == Layout.SLOT ? "the C ping-pong's loop in Java"
                : "the C ping-pong's loop in Java through two rings of " + RING_BYTES / 1024 + " KiB (a record of a "
                        + "frame's size per message, each where the last ended)";
        return what + ": two threads of this JVM, one off-heap segment, both spinning, client on CPU " + clientCpu
                + ", server on CPU " + serverCpu + ", a clock read per call";
    }

    @Override
    public Measurement measure(Cell cell, long calls, int round) throws IOException {
        int len = cell.payload();
        if (len < 0 || len > SLOT) throw new IOException("the Java ping-pong carries 0.." + SLOT + " bytes, not "
                + len);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment page = arena.allocate(layout == Layout.SLOT ? ANSWER + SLOT : ANSWER_RING + RING_BYTES,
                    4096);
            Side server = new Side("java ping-pong server", serverCpu, page, ANSWER_SEQ);
            Side client = new Side("java ping-pong client", clientCpu, page, REQUEST_SEQ);
            CountDownLatch go = new CountDownLatch(1);
            Histogram latency = new Histogram(10_000_000_000L, 3);
            long[] took = new long[2]; // start and end of the timed calls, on the client's clock
            server.start(() -> {
                go.await();
                if (layout == Layout.SLOT) serve(page, len, calls);
                else serveRing(page, len, calls);
            });
            client.start(() -> {
                go.await();
                took[0] = System.nanoTime();
                if (layout == Layout.SLOT) call(page, len, calls, latency);
                else callRing(page, len, calls, latency);
                took[1] = System.nanoTime();
            });
            KernelSyscallCounter ck = null, sk = null;
            try {
                server.awaitReady();
                client.awaitReady();
                ck = KernelCounters.openOnce(client.tid(), SyscallKind.LIBRARY);
                sk = ck == null ? null : KernelCounters.openOnce(server.tid(), SyscallKind.LIBRARY);
                SyscallCounts c0 = ck == null ? null : ck.read(), s0 = sk == null ? null : sk.read();
                ThreadCpu cpu0 = ChannelSide.cpu(client.tid()), scpu0 = ChannelSide.cpu(server.tid());
                go.countDown();
                client.awaitDone();
                server.awaitDone();
                // Both threads are parked on their latches now: the counts hold the timed calls only.
                SyscallCounts cc = ck == null ? null : ck.read().minus(c0), sc = sk == null ? null
                        : sk.read().minus(s0);
                ThreadCpu cpu = ChannelSide.cpu(client.tid()).minus(cpu0), scpu =
                        ChannelSide.cpu(server.tid()).minus(scpu0);
                String where = "client cpu " + client.lastCpu() + "; server cpu " + server.lastCpu();
                return new Measurement(cell.name(), cell.payload(), round, 1, calls, (took[1] - took[0]) / 1e9,
                        latency.getValueAtPercentile(50), latency.getValueAtPercentile(90),
                        latency.getValueAtPercentile(99),
                        latency.getValueAtPercentile(99.9), latency.getMaxValue(), null, cc, null, sc, cpu, scpu,
                                where);
            } finally {
                if (ck != null) ck.close();
                if (sk != null) sk.close();
                // Past the timed calls both words are ignored; before their end (a failure), each side's loop
                // ends on its word, and a side still waiting for the start on its interrupt.
                if (go.getCount() > 0) {
                    client.interrupt();
                    server.interrupt();
                } else {
                    client.giveUp();
                    server.giveUp();
                }
                client.finish();
                server.finish();
            }
        }
    }

    /**
     * A sequence word's value that says the side that writes it gave up: the other side, spinning for
     * the next sequence number, returns instead of spinning for ever (looked at only while it spins).
     */
    static final long GAVE_UP = -1;

    /** The server's loop: wait for request seq, copy the request into the answer slot, publish seq. */
    static void serve(MemorySegment page, int len, long calls) throws IOException {
        for (long seq = 1; seq <= calls; seq++) {
            long s;
            while ((s = (long) SEQ.getAcquire(page, REQUEST_SEQ)) != seq) {
                if (s == GAVE_UP) throw new IOException("java ping-pong: the client gave up");
                Thread.onSpinWait();
            }
            MemorySegment.copy(page, REQUEST, page, ANSWER, len);
            SEQ.setRelease(page, ANSWER_SEQ, seq);
        }
    }

    /** The client's loop: write the request, publish seq, wait for its answer, check its last byte, time it. */
    static void call(MemorySegment page, int len, long calls, Histogram latency) throws IOException {
        byte[] payload = new byte[len];
        for (int i = 0; i < len; i++) payload[i] = (byte) (i * 7);
        MemorySegment request = MemorySegment.ofArray(payload);
        long highest = latency.getHighestTrackableValue();
        long prev = System.nanoTime();
        for (long seq = 1; seq <= calls; seq++) {
            MemorySegment.copy(request, 0, page, REQUEST, len);
            SEQ.setRelease(page, REQUEST_SEQ, seq);
            long s;
            while ((s = (long) SEQ.getAcquire(page, ANSWER_SEQ)) != seq) {
                if (s == GAVE_UP) throw new IOException("java ping-pong: the server gave up");
                Thread.onSpinWait();
            }
            if (len > 0 && page.get(ValueLayout.JAVA_BYTE, ANSWER + len - 1) != payload[len - 1]) {
                throw new IOException("java ping-pong: answer " + seq + " differs");
            }
            long now = System.nanoTime();
            latency.recordValue(Math.min(now - prev, highest));
            prev = now;
        }
    }

    /** Where the record after the one at off begins (both sides compute it alike): at 0 when it would pass the end. */
    static long next(long off, int record) { return off + 2L * record > RING_BYTES ? 0 : off + record; }

    /**
     * The server's loop through the rings: wait for request seq, check its record's length, write the answer's
     * record (its header, the payload copied from the request's) at the same place in the answer ring, publish seq.
     */
    static void serveRing(MemorySegment page, int len, long calls) throws IOException {
        int record = HEADER + len;
        long off = 0;
        for (long seq = 1; seq <= calls; seq++, off = next(off, record)) {
            long s;
            while ((s = (long) SEQ.getAcquire(page, REQUEST_SEQ)) != seq) {
                if (s == GAVE_UP) throw new IOException("java ring ping-pong: the client gave up");
                Thread.onSpinWait();
            }
            long request = REQUEST_RING + off, answer = ANSWER_RING + off;
            int id = page.get(WORD, request);
            if (page.get(WORD, request + 8) != len) throw new IOException("java ring ping-pong: request " + seq
                    + " is not of " + len + " bytes");
            page.set(WORD, answer, id);
            page.set(WORD, answer + 4, 0);
            page.set(WORD, answer + 8, len);
            MemorySegment.copy(page, request + HEADER, page, answer + HEADER, len);
            SEQ.setRelease(page, ANSWER_SEQ, seq);
        }
    }

    /**
     * The client's loop through the rings: write the request's record (header, payload) where the last ended,
     * publish seq, wait for its answer, check the answer's id, length and last byte, time it.
     */
    static void callRing(MemorySegment page, int len, long calls, Histogram latency) throws IOException {
        byte[] payload = new byte[len];
        for (int i = 0; i < len; i++) payload[i] = (byte) (i * 7);
        MemorySegment request = MemorySegment.ofArray(payload);
        int record = HEADER + len;
        long highest = latency.getHighestTrackableValue();
        long prev = System.nanoTime();
        long off = 0;
        for (long seq = 1; seq <= calls; seq++, off = next(off, record)) {
            long at = REQUEST_RING + off, answer = ANSWER_RING + off;
            page.set(WORD, at, (int) seq);
            page.set(WORD, at + 4, 0); // the type word
            page.set(WORD, at + 8, len);
            MemorySegment.copy(request, 0, page, at + HEADER, len);
            SEQ.setRelease(page, REQUEST_SEQ, seq);
            long s;
            while ((s = (long) SEQ.getAcquire(page, ANSWER_SEQ)) != seq) {
                if (s == GAVE_UP) throw new IOException("java ring ping-pong: the server gave up");
                Thread.onSpinWait();
            }
            if (page.get(WORD, answer) != (int) seq || page.get(WORD, answer + 8) != len
                    || len > 0 && page.get(ValueLayout.JAVA_BYTE, answer + HEADER + len - 1) != payload[len - 1]) {
                throw new IOException("java ring ping-pong: answer " + seq + " differs");
            }
            long now = System.nanoTime();
            latency.recordValue(Math.min(now - prev, highest));
            prev = now;
        }
    }

    /**
     * One of the two threads: pinned, it gets ready, runs its work, then parks until finished. One that
     * fails, or is given up on, writes {@link #GAVE_UP} into its own sequence word, so the other ends.
     */
    private static final class Side {
        interface Work { void run() throws Exception; }

        private final String name;
        private final int cpu;
        private final MemorySegment page;
        private final long word;
        private final CompletableFuture<Integer> tid = new CompletableFuture<>();
        private final CompletableFuture<Void> done = new CompletableFuture<>();
        private final CountDownLatch release = new CountDownLatch(1);
        private Thread thread;

        Side(String name, int cpu, MemorySegment page, long word) {
            this.name = name;
            this.cpu = cpu;
            this.page = page;
            this.word = word;
        }

        void giveUp() { SEQ.setRelease(page, word, GAVE_UP); }

        void interrupt() { thread.interrupt(); }

        void start(Work work) {
            thread = new Thread(() -> {
                try {
                    CpuPlacement.pinCurrentThread(cpu);
                    tid.complete(Self.tid());
                    work.run();
                    done.complete(null);
                    release.await();
                } catch (Throwable t) {
                    giveUp();
                    tid.completeExceptionally(t);
                    done.completeExceptionally(t);
                }
            }, name);
            thread.setDaemon(true);
            thread.start();
        }

        int tid() { return tid.join(); }

        int lastCpu() { return ThreadCpu.lastCpu(tid()); }

        void awaitReady() throws IOException { await(tid); }

        void awaitDone() throws IOException { await(done); }

        private void await(CompletableFuture<?> f) throws IOException {
            try {
                f.get(RUN_WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw new IOException(name + " failed: " + e.getCause(), e.getCause());
            } catch (TimeoutException e) {
                throw new IOException(name + " did not finish within " + RUN_WAIT_SECONDS + " s");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }

        /** Lets the thread end; waits for it, so that the segment is unused when it is freed. */
        void finish() throws IOException {
            release.countDown();
            try {
                thread.join(TimeUnit.SECONDS.toMillis(RUN_WAIT_SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            if (thread.isAlive()) throw new IOException(name + " did not end");
        }
    }
}
