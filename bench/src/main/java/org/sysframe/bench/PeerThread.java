package org.sysframe.bench;

import org.HdrHistogram.Histogram;
import org.sysframe.transport.GroutServer;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.Self;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;

import java.io.IOException;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A platform thread that owns one in-process {@link PingPeer}. Measured runs are timed on that thread
 * while this (coordinating) thread reads the kernel's counts of it by thread id, so the reading itself
 * is never part of what is counted, whatever syscalls the peer's library uses.
 */
final class PeerThread implements AutoCloseable {
    /** Every kind, read and write included: JDK and jnr channels use read(2) and write(2). */
    static final Set<SyscallKind> ALL_KINDS = EnumSet.allOf(SyscallKind.class);

    private final PingPeer peer;
    private final Thread thread;
    private final LinkedBlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
    private final CompletableFuture<Integer> tid = new CompletableFuture<>();
    private volatile boolean running = true;
    private KernelSyscallCounter kernel; // kept open by KernelCounters

    PeerThread(PingPeer peer) {
        this.peer = peer;
        this.thread = new Thread(this::loop, "peer " + peer.name());
        this.thread.setDaemon(true);
        this.thread.start();
    }

    PingPeer peer() { return peer; }

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
    void onThread(ThrowingRunnable work) throws IOException {
        CompletableFuture<Void> f = new CompletableFuture<>();
        tasks.add(() -> {
            try {
                work.run();
                f.complete(null);
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        await(f);
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** n timed pings of len bytes; counts read from here while the peer thread waits. */
    PeerRun measure(int len, long n, GroutServer server) throws IOException {
        int t = await(tid);
        if (kernel == null) kernel = KernelCounters.of(t, ALL_KINDS);
        Histogram h = new Histogram(10_000_000_000L, 3);
        CountDownLatch ready = new CountDownLatch(1), go = new CountDownLatch(1), release = new CountDownLatch(1);
        long[] elapsed = new long[1];
        CompletableFuture<Void> done = new CompletableFuture<>();
        tasks.add(() -> {
            try {
                peer.prepare(len);
                ready.countDown();
                go.await();
                long t0 = System.nanoTime(), prev = t0;
                for (long i = 0; i < n; i++) {
                    peer.ping();
                    long now = System.nanoTime();
                    h.recordValue(Math.min(now - prev, h.getHighestTrackableValue()));
                    prev = now;
                }
                elapsed[0] = System.nanoTime() - t0;
                done.complete(null);
                release.await(); // parked in a futex, not in a counted call, while we read
            } catch (Throwable e) {
                done.completeExceptionally(e);
                ready.countDown();
            }
        });
        try {
            ready.await();
            ServerSample s0 = ServerSample.take(server);
            SyscallCounts k0 = kernel == null ? null : kernel.read();
            ThreadCpu c0 = ThreadCpu.of(t);
            go.countDown();
            await(done);
            SyscallCounts k1 = kernel == null ? null : kernel.read();
            ThreadCpu c1 = ThreadCpu.of(t);
            ServerSample sd = ServerSample.take(server).minus(s0);
            return new PeerRun(peer.name(), len, n, elapsed[0] / 1e9,
                    h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3,
                    c1.minus(c0).cpuNanos() / 1e3, sd.cpu().cpuNanos() / 1e3,
                    k0 == null ? null : k1.minus(k0), sd.library(), sd.kernel());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            release.countDown();
            go.countDown();
        }
    }

    private static <T> T await(CompletableFuture<T> f) throws IOException {
        try {
            return f.get(300, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) throw io;
            if (e.getCause() instanceof RuntimeException re) throw re; // a bug in the peer: keep its stack
            throw new IOException(e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IOException("peer did not finish within 300 s", e);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            onThread(peer::close);
        } finally {
            running = false;
            thread.interrupt();
        }
    }
}
