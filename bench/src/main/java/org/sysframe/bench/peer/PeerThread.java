package org.sysframe.bench.peer;

import org.HdrHistogram.Histogram;
import org.sysframe.bench.measure.KernelCounters;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.KernelSyscallCounter.FutexCalls;
import org.sysframe.unix.Self;
import org.sysframe.unix.SyscallKind;

import java.io.IOException;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A platform thread that owns one in-process {@link PingPeer}. Measured runs are timed on that thread
 * while this (coordinating) thread reads the kernel's counts of it by thread id, so the reading itself
 * is never part of what is counted, whatever syscalls the peer's library uses.
 */
public final class PeerThread implements AutoCloseable {
    /**
     * Every kind, read and write included (JDK and jnr channels use read(2) and write(2)), but futex:
     * the JVM enters it on any thread for its own reasons (see {@link SyscallKind}), so the kernel's
     * count of it would not be the peer's; a shared-memory client's futex calls are the library's count.
     */
    static final Set<SyscallKind> ALL_KINDS =
            Collections.unmodifiableSet(EnumSet.complementOf(EnumSet.of(SyscallKind.FUTEX)));

    /**
     * A shared-memory client's kinds: {@link #ALL_KINDS} and futex, its wait's own call, counted as the
     * shared futex calls only ({@link FutexCalls#SHARED}): the JVM's own on that thread (the latches it
     * waits on between runs, a method queued for the JIT) are private ones and stay out of it.
     */
    static final Set<SyscallKind> SHM_KINDS = Collections.unmodifiableSet(EnumSet.allOf(SyscallKind.class));

    private final PingPeer peer;
    private final Thread thread;
    private final LinkedBlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
    private final CompletableFuture<Integer> tid = new CompletableFuture<>();
    private volatile boolean running = true;
    private volatile KernelSyscallCounter kernel; // kept open by KernelCounters
    private volatile Run current;
    private int runsScheduled; // by the coordinating thread
    private boolean timeFirstCall; // by the coordinating thread: the next run times its first ping alone
    private volatile long firstCallNanos = -1;

    /** How long {@link #close} waits for the peer to close (a pipeline waits at most a second for its answers). */
    static final long CLOSE_WAIT_MILLIS = 2000;

    public PeerThread(PingPeer peer) {
        this.peer = peer;
        this.thread = new Thread(this::loop, "peer " + peer.name());
        this.thread.setDaemon(true);
        this.thread.start();
    }

    public PingPeer peer() { return peer; }

    private void loop() {
        tid.complete(Self.tid());
        while (running) {
            try {
                tasks.take().run();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Runs work on the peer's thread and waits for it. */
    public void onThread(ThrowingRunnable work) throws IOException {
        onThread(work, 300_000);
    }

    /** Runs work on the peer's thread and waits for it at most waitMillis (IOException past it). */
    void onThread(ThrowingRunnable work, long waitMillis) throws IOException {
        CompletableFuture<Void> f = new CompletableFuture<>();
        tasks.add(() -> {
            try {
                work.run();
                f.complete(null);
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        await(f, waitMillis);
    }

    public interface ThrowingRunnable {
        void run() throws Exception;
    }

    /**
     * A run scheduled on the peer's thread: it prepares len bytes, counts down ready, waits for go,
     * makes n timed pings, completes done and then parks (in a futex, not in a counted call) until
     * released, so that its counters can be read from another thread.
     */
    public final class Run {
        final CountDownLatch ready = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final Histogram latency = new Histogram(10_000_000_000L, 3);
        public volatile long startNanos, endNanos;
        /** 1 for the first run scheduled on this thread, 2 for the next... */
        public final int number = ++runsScheduled;
        /** About how many calls completed so far (read from another thread, for a partial summary). */
        public long completedAbout() { return latency.getTotalCount(); }

        PeerThread owner() { return PeerThread.this; }

        void awaitReady() throws IOException {
            try {
                if (!ready.await(300, TimeUnit.SECONDS)) throw new IOException(peer.name()
                        + " did not get ready within 300 s");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            if (done.isCompletedExceptionally()) await(done);
        }

        void awaitDone() throws IOException { await(done); }
    }

    /** The run scheduled last (null before the first). */
    public Run current() { return current; }

    /**
     * The next run times its first ping by itself ({@link #firstCallNanos()}): the same calls, its
     * first one's latency recorded as before. For peers that make one call at a time: a pipeline's
     * first request would go alone.
     */
    public void timeFirstCall() { timeFirstCall = true; }

    /** How long the first ping of the run {@link #timeFirstCall()} marked took; -1 before it ended, or unmarked. */
    public long firstCallNanos() { return firstCallNanos; }

    /** Schedules n pings of len bytes that start when go opens. */
    Run schedule(int len, long n, CountDownLatch go) {
        Run run = new Run();
        current = run;
        boolean timeFirst = timeFirstCall;
        timeFirstCall = false;
        tasks.add(() -> {
            try {
                peer.prepare(len);
                run.ready.countDown();
                go.await();
                run.startNanos = System.nanoTime();
                if (timeFirst && n > 0) {
                    peer.pingMany(1, run.latency);
                    firstCallNanos = System.nanoTime() - run.startNanos;
                    if (n > 1) peer.pingMany(n - 1, run.latency);
                } else {
                    peer.pingMany(n, run.latency);
                }
                run.endNanos = System.nanoTime();
                run.done.complete(null);
                run.release.await();
            } catch (Throwable e) {
                run.done.completeExceptionally(e);
                run.ready.countDown();
            }
        });
        return run;
    }

    /** The peer thread's kernel id. */
    public int tid() throws IOException { return await(tid); }

    /**
     * The kernel counter of the peer's thread, kept open; null when unavailable. Every kind but futex
     * ({@link #ALL_KINDS}), or every kind for a peer on a shared-memory channel ({@link #SHM_KINDS}),
     * decided by the peer's transport when first asked (after it opened).
     */
    KernelSyscallCounter kernel() throws IOException {
        if (kernel == null) {
            boolean shm = peer.transport().equals("shm");
            kernel = shm ? KernelCounters.of(tid(), SHM_KINDS, FutexCalls.SHARED)
                    : KernelCounters.of(tid(), ALL_KINDS, FutexCalls.ALL);
        }
        return kernel;
    }

    static <T> T await(CompletableFuture<T> f) throws IOException {
        return await(f, 300_000);
    }

    static <T> T await(CompletableFuture<T> f, long waitMillis) throws IOException {
        try {
            return f.get(waitMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) throw io;
            if (e.getCause() instanceof RuntimeException re) throw re; // a bug in the peer: keep its stack
            throw new IOException(e.getCause());
        } catch (TimeoutException e) {
            throw new IOException("peer did not finish within "
                    + (waitMillis >= 1000 ? waitMillis / 1000 + " s" : waitMillis + " ms"), e);
        }
    }

    /** Closes the peer on its thread, waiting at most {@value #CLOSE_WAIT_MILLIS} ms for it. */
    @Override
    public void close() throws IOException {
        try {
            onThread(peer::close, CLOSE_WAIT_MILLIS);
        } finally {
            running = false;
            thread.interrupt();
        }
    }
}
