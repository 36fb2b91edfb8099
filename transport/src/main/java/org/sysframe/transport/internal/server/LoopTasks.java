package org.sysframe.transport.internal.server;

import org.sysframe.transport.internal.io.SafeLogger;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Work handed to an event loop from other threads: a lock-free queue, and a socketpair whose read end
 * the loop watches ({@link #wakeFd()}: in its epoll set, or with a multishot poll on its io_uring) so
 * that one byte wakes it. Also the loop's start and stop signals.
 */
public final class LoopTasks {
    public static final long TAG = -2;
    private static final Logger LOG = SafeLogger.of("org.sysframe.server");

    private final UnixSocket wakeRead;
    private final UnixSocket wakeWrite;
    private final MemorySegment wakeBuf;
    private final MemorySegment wakeByte;
    private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
    private final CountDownLatch started = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile Throwable failure;
    private boolean closed; // guarded by this

    LoopTasks(SyscallCounters loopCounters, Arena arena) throws ErrnoException {
        UnixSocket[] pair = UnixSocket.pair(loopCounters, new SyscallCounters("server wakeup (any thread)"));
        try {
            pair[0].setNonBlocking(true);
            pair[1].setNonBlocking(true);
        } catch (ErrnoException e) {
            pair[0].close();
            pair[1].close();
            throw e;
        }
        this.wakeRead = pair[0];
        this.wakeWrite = pair[1];
        this.wakeBuf = arena.allocate(64);
        this.wakeByte = arena.allocate(1);
    }

    /** The descriptor the loop watches for readability: a byte there means tasks wait. */
    public int wakeFd() { return wakeRead.fd(); }

    /**
     * Queues task for the loop thread; false once the loop has stopped (the task will not run). A task
     * accepted here always runs: queued before the loop's last turn, or run by {@link #stopped()}.
     */
    public boolean submit(Runnable task) {
        synchronized (this) {
            if (stopped.getCount() == 0) return false;
            queue.add(task);
        }
        wake();
        return true;
    }

    private Runnable alsoOnWake;

    /** Runs r at every wake-up, before the byte is sent: how a driver wakes a thread not waiting on the socket. */
    synchronized void alsoOnWake(Runnable r) { this.alsoOnWake = r; }

    /** Whether tasks wait to run (a look without a syscall, for a loop that does not watch the wakeup socket). */
    public boolean hasQueued() { return !queue.isEmpty(); }

    synchronized void wake() {
        if (closed) return;
        if (alsoOnWake != null) alsoOnWake.run();
        try {
            wakeWrite.send(wakeByte, 0, 1, UnixSocket.MSG_DONTWAIT); // EAGAIN: a wakeup is already pending
        } catch (ErrnoException e) {
            if (stopped.getCount() > 0) LOG.log(Level.ERROR, "cannot wake the server loop: {0}", e.getMessage());
        }
    }

    /** On the loop thread: takes the wakeups and runs every queued task. */
    public void runAll() {
        try {
            while (wakeRead.recv(wakeBuf, 0, wakeBuf.byteSize(), 0) > 0) {
                // drained
            }
        } catch (ErrnoException e) {
            LOG.log(Level.ERROR, "wakeup socket failed: {0}", e.getMessage());
        }
        runQueued();
    }

    private void runQueued() {
        Runnable t;
        while ((t = queue.poll()) != null) {
            try {
                t.run();
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "task failed on the server loop", e);
            }
        }
    }

    /** Runs what on the loop thread and waits for its result. */
    public <T> T call(Supplier<T> what) throws IOException {
        CompletableFuture<T> f = new CompletableFuture<>();
        if (!submit(() ->
                f.complete(what.get()))) throw new IllegalStateException("server closed: its loop runs no more tasks");
        try {
            return f.get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("server loop did not answer", e);
        }
    }

    void started() { started.countDown(); }

    synchronized void failed(Throwable t) {
        failure = t;
        started.countDown();
        stopped.countDown();
    }

    /**
     * On the loop thread, once it closed its connections: no task is taken from now on, and those
     * queued after the loop's last turn run here (a connection handed over then is closed, a call
     * answered), so that no submitter waits on a task that never runs.
     */
    void stopped() {
        synchronized (this) {
            stopped.countDown();
        }
        runQueued();
    }

    public boolean isStopped() { return stopped.getCount() == 0; }

    /** Waits until the loop runs (or failed to start); the failure, or null. */
    public Throwable awaitStarted() throws InterruptedException {
        started.await();
        return failure;
    }

    public boolean awaitStopped(long seconds) throws InterruptedException {
        return stopped.await(seconds, TimeUnit.SECONDS);
    }

    public synchronized void close() {
        closed = true;
        wakeWrite.close();
        wakeRead.close();
    }
}
