package org.sysframe.transport.internal.server;

import org.sysframe.transport.ConnectionStats;
import org.sysframe.transport.ServerConfig;
import org.sysframe.transport.internal.epoll.EpollLoop;
import org.sysframe.transport.internal.io.InputBuffer;
import org.sysframe.transport.internal.io.NativeBuffer;
import org.sysframe.transport.internal.io.OutputBatch;
import org.sysframe.transport.internal.io.Pool;
import org.sysframe.transport.internal.io.SafeLogger;
import org.sysframe.transport.internal.jfr.Jfr;
import org.sysframe.transport.internal.jfr.ConnectionEvent;
import org.sysframe.transport.internal.uring.UringLoop;

import org.sysframe.unix.CpuPlacement;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.PeerCredentials;
import org.sysframe.unix.Self;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.UnixSocket;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * What every event-loop thread of a server does whatever its I/O driver: owns its connections (the
 * {@link ConnectionTable}), the deferred-batch and backlog lists, the subscribers, the closed
 * connections' log, the hand-off of new connections from the acceptor and the task queue
 * ({@link LoopTasks}); starts and stops its thread. A driver subclass ({@link EpollLoop}, UringLoop)
 * adds how the loop waits and moves bytes: {@link #watch()}, {@link #turn()}, {@link #newSocket},
 * {@link #watchConnection}. The syscalls of the loop thread are counted in {@link #counters()}.
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
public abstract class ServerLoop<S extends LoopSocket> {
    public static final Logger LOG = SafeLogger.of("org.sysframe.server");

    public final int index;
    public final ServerConfig config;
    protected final Routes routes;
    public final SyscallCounters counters;
    public final ServerLimits limits;
    public final LoopTasks tasks;
    public final Arena arena = Arena.ofShared(); // closed by close(), after the thread ended
    private final LoopBuffers buffers;
    private final MemorySegment scratch = arena.allocate(64, 8);
    public final ConnectionTable<S> table = new ConnectionTable<>();
    private final SubscriberSet subscribers = new SubscriberSet();
    private final List<ServerConnection> dirty = new ArrayList<>();
    private final List<ServerConnection> backlog = new ArrayList<>();
    private final List<ServerConnection> backlogNow = new ArrayList<>();
    private final ConnectionLog log = new ConnectionLog();
    private final AtomicInteger load = new AtomicInteger();
    private final Thread thread;
    private volatile boolean subscribed;
    public volatile boolean running = true;
    private volatile int tid;
    public Acceptor acceptor;
    private EventFanout fanout;
    private Consumer<Throwable> onFailure;
    // The timer (request and idle timeouts, memory given back, log summaries): see startOfTurn().
    private final long checkNanos;
    private final boolean idleTimeout;
    private final ArrayDeque<ServerConnection> memoryWaiters = new ArrayDeque<>();
    private final java.util.function.Consumer<S> checker = s -> s.connection().checkTimers(this.now);
    private long now = System.nanoTime();
    private int timedCount;
    private int closedSinceTrim;
    private boolean armed;
    private long nextCheck;

    public ServerLoop(int index, ServerConfig config, Routes routes, ServerLimits limits) throws ErrnoException {
        this.index = index;
        this.config = config;
        this.routes = routes;
        this.limits = limits;
        this.checkNanos = config.checkIntervalNanos();
        this.idleTimeout = !config.idleTimeout().isZero();
        this.counters = new SyscallCounters("server loop " + index);
        this.buffers = new LoopBuffers(config.readBuffer());
        try {
            this.tasks = new LoopTasks(counters, arena);
        } catch (ErrnoException e) {
            arena.close();
            throw e;
        }
        this.thread = new Thread(this::run, "sysframe-server-" + index + " " + config.socketPath());
        this.thread.setDaemon(true);
    }

    /**
     * Ties the loop to the server's acceptor (loop 0; null for the others) and event fan-out, and to what
     * the server does when an unexpected throwable ends this loop (stop as a whole: never half-alive).
     */
    public void connect(Acceptor acceptor, EventFanout fanout, Consumer<Throwable> onFailure) {
        this.acceptor = acceptor;
        this.fanout = fanout;
        this.onFailure = onFailure;
    }

    public Thread thread() { return thread; }
    public int threadId() { return tid; }
    public SyscallCounters counters() { return counters; }
    public LoopTasks tasks() { return tasks; }
    public ConnectionLog connectionLog() { return log; }

    /** Open connections of this loop (and ones handed to it not yet taken). */
    public int connectionCount() { return load.get(); }

    // ---------------------------------------------------------------- the driver's part

    /** On the loop thread before the first turn: watch the task queue's wake-up and (loop 0) the listener. */
    protected abstract void watch() throws ErrnoException;

    /** One loop turn: wait, handle what is ready, then {@link #endOfTurn()}. */
    protected abstract void turn() throws ErrnoException;

    /** The driver's socket of a new connection, stored under tag. */
    protected abstract S newSocket(UnixSocket s, long tag);

    /** Starts watching (or receiving on) a new connection. */
    protected abstract void watchConnection(S s) throws ErrnoException;

    /** On the loop thread after every connection was closed at shutdown (the driver finishes its operations). */
    protected void shutdown() {}

    /** Loop 0: starts watching the listening socket (readability with epoll, a multishot ACCEPT with io_uring). */
    public abstract void watchListener(int fd) throws ErrnoException;

    /** Loop 0: stops (true) or resumes (false) watching the listener (descriptors ran out, or may be back). */
    public abstract void pauseListener(int fd, boolean pause) throws ErrnoException;

    /** Frees the driver's resources once the thread ended (after the connections were closed). */
    protected abstract void closeDriver();

    /** A connection closed: forget its socket (a driver with operations in flight may keep it until they end). */
    protected void forget(ServerConnection c) { table.remove(c.tag); }

    // ---------------------------------------------------------------- the common part

    private void run() {
        tid = Self.tid();
        try {
            int cpu = config.cpuOfLoop(index);
            if (cpu >= 0) CpuPlacement.pinCurrentThread(cpu);
            watch();
            if (acceptor != null) acceptor.watch();
        } catch (ErrnoException e) {
            tasks.failed(e);
            return;
        }
        tasks.started();
        Throwable failure = null;
        try {
            while (running) turn();
        } catch (Throwable t) {
            failure = t;
            LOG.log(Level.ERROR, thread.getName() + " failed", t);
        }
        // Each step of the way out runs whatever the one before threw: the loop's end is always reported.
        failure = step(failure, () -> table.forEach(s -> s.connection().close("server shutdown")));
        failure = step(failure, () -> limits.flushLogs(true));
        if (acceptor != null) failure = step(failure, acceptor::close);
        failure = step(failure, this::shutdown);
        running = false; // also after a failure: a hand-off still queued closes its socket
        tasks.stopped();
        if (failure != null && onFailure != null) onFailure.accept(failure);
    }

    /** Runs one step of a loop's end; a throwable it throws is logged and kept with the first one. */
    private Throwable step(Throwable failure, Runnable step) {
        try {
            step.run();
            return failure;
        } catch (Throwable t) {
            LOG.log(Level.ERROR, thread.getName() + ": stopping failed", t);
            if (failure == null) return t;
            failure.addSuppressed(t);
            return failure;
        }
    }

    // ---------------------------------------------------------------- the timer

    /** Closes after which the loop's next timer check asks malloc to give freed memory back. */
    private static final int TRIM_AFTER_CLOSES = 256;

    /** Retries of a memory wait are at least this often (the budget may be freed by another loop). */
    private static final long MEMORY_RETRY_NANOS = 10_000_000L;

    /**
     * The start of a turn, right after the driver's wait: reads the clock (once per turn: the time of
     * everything this turn does), gives waiting connections the memory freed meanwhile, and runs the
     * timer check when it is due. The timer runs only while needed: a connection has a request in part,
     * a large buffer or a wait for memory, an idle timeout is set, a warning count waits for its line,
     * or many connections closed since malloc was last asked to give memory back.
     */
    protected void startOfTurn() {
        now = System.nanoTime();
        if (!memoryWaiters.isEmpty()) retryMemoryWaiters();
        if (!timerNeeded()) {
            armed = false;
            return;
        }
        arm();
        if (now - nextCheck >= 0) {
            table.forEach(checker);
            if (!memoryWaiters.isEmpty()) retryMemoryWaiters();
            limits.flushLogs(false);
            if (closedSinceTrim >= TRIM_AFTER_CLOSES) {
                // Many connections went: keep few of their buffers, and give the freed ones back to the
                // kernel, not only to malloc.
                trimPools(LoopBuffers.TRIM_KEEP);
                org.sysframe.unix.PageMemory.trimMalloc();
                closedSinceTrim = 0;
            }
            nextCheck = now + checkNanos;
        }
    }

    private boolean timerNeeded() {
        return timedCount > 0 || !memoryWaiters.isEmpty() || (idleTimeout && table.size() > 0) || limits.logPending()
                || closedSinceTrim >= TRIM_AFTER_CLOSES;
    }

    private void arm() {
        if (armed) return;
        armed = true;
        nextCheck = now + checkNanos;
    }

    /** How long the driver may sleep for the timer's sake, in ns (-1: as long as it likes). */
    protected long timerWaitNanos() {
        if (!timerNeeded()) return -1;
        long wait = armed ? Math.max(1, nextCheck - now) : checkNanos;
        return memoryWaiters.isEmpty() ? wait : Math.min(wait, MEMORY_RETRY_NANOS);
    }

    /** {@link #timerWaitNanos()} combined with a driver's own limit in ms (-1: none) for epoll_wait. */
    protected int waitMillis(int limitMillis) {
        long t = timerWaitNanos();
        if (t < 0 || limitMillis == 0) return limitMillis;
        int ms = (int) Math.min(Integer.MAX_VALUE, (t + 999_999) / 1_000_000);
        return limitMillis < 0 ? ms : Math.min(limitMillis, ms);
    }

    private void retryMemoryWaiters() {
        while (!memoryWaiters.isEmpty()) {
            ServerConnection c = memoryWaiters.peekFirst();
            if (!c.isClosed() && c.waitsForMemory() && !limits.memory.fits(InputBuffer.LARGE)) return;
            memoryWaiters.pollFirst();
            if (!c.retryMemory()) {
                memoryWaiters.addFirst(c); // another loop took the room first
                return;
            }
        }
    }

    /** Connections of this loop that wait for the memory budget (loop thread). */
    public int memoryWaiterCount() {
        int n = 0;
        for (ServerConnection c : memoryWaiters) if (!c.isClosed() && c.waitsForMemory()) n++;
        return n;
    }

    /** The start time of this loop turn (System.nanoTime(), read once per turn). */
    public long now() { return now; }

    /** The server's shared limits: the memory budget and the warnings' rate limits. */
    public ServerLimits limits() { return limits; }

    /** The connection now needs (+1) or no longer needs (-1) the loop's timer (a request in part, a large buffer, a wait for memory). */
    public void timed(int delta) {
        timedCount += delta;
        if (delta > 0) arm();
    }

    /** The connection waits for the memory budget to take its large request: call its retry when there is room. */
    public void waitForMemory(ServerConnection c) {
        memoryWaiters.addLast(c);
        arm();
    }

    /** Whether connections left complete requests for the next turn (the loop must not sleep). */
    protected boolean hasBacklog() { return !backlog.isEmpty(); }

    /** The end of a turn: continue the connections with requests left, then flush the deferred batches. */
    protected void endOfTurn() {
        if (!backlog.isEmpty()) {
            backlogNow.addAll(backlog);
            backlog.clear();
            for (int i = 0; i < backlogNow.size(); i++) {
                ServerConnection c = backlogNow.get(i);
                c.continueRequests();
                continued(c);
            }
            backlogNow.clear();
        }
        for (int i = 0; i < dirty.size(); i++) {
            ServerConnection c = dirty.get(i);
            if (c.dirty()) c.flush();
        }
        dirty.clear();
    }

    /** A backlogged connection had its next turn (the io_uring driver then feeds it the bytes it held back). */
    protected void continued(ServerConnection c) {}

    /** Asks the loop to stop; it closes its connections on the way out. */
    public void stop() {
        running = false;
        tasks.wake();
    }

    // ---------------------------------------------------------------- as the acceptor sees a loop

    /** Connections this loop holds or was handed. */
    public int load() { return load.get(); }

    /** Counters for a new connection of this loop (their parent is the loop's). */
    public SyscallCounters newConnectionCounters() { return new SyscallCounters("connection", counters); }

    /** Takes a new connection (from any thread). */
    public void handOff(UnixSocket s, PeerCredentials cred) {
        load.incrementAndGet();
        if (isCurrentThread()) adopt(s, cred);
        else if (!tasks.submit(() -> adopt(s, cred))) dropHandOff(s);
    }

    private void dropHandOff(UnixSocket s) {
        s.close();
        load.decrementAndGet();
    }

    private void adopt(UnixSocket s, PeerCredentials cred) {
        if (!running) {
            dropHandOff(s);
            return;
        }
        long tag = table.add(t -> newSocket(s, t));
        S ls = table.get(tag);
        ServerConnection c = new ServerConnection(this, config, routes, tag, ls, cred.pid(), cred.uid(),
                config.requestsPerRead());
        attach(ls, c);
        if (Jfr.connectionOpened()) {
            ConnectionEvent.Opened e = new ConnectionEvent.Opened();
            if (e.shouldCommit()) {
                e.socket = config.socketPath();
                e.peerPid = cred.pid();
                e.peerUid = cred.uid();
                e.loop = index;
                e.commit();
            }
        }
        try {
            watchConnection(ls);
        } catch (ErrnoException e) {
            LOG.log(Level.ERROR, "cannot watch a new connection: {0}", e.getMessage());
            c.close("cannot watch it: " + e.getMessage());
        }
    }

    /**
     * On the loop thread: a connection whose bytes come another way than an accepted socket (a
     * shared-memory channel of a connection that said GR_HELLO on its socket already), served by the
     * same protocol code as every other.
     */
    protected final ServerConnection adoptChannel(java.util.function.LongFunction<S> socketOf, int peerPid, int peerUid) {
        load.incrementAndGet();
        long tag = table.add(socketOf);
        S ls = table.get(tag);
        // requestsPerRead emulates Grout's socket reads: a channel's ring handles every request.
        ServerConnection c = new ServerConnection(this, config, routes, tag, ls, peerPid, peerUid, 0);
        attach(ls, c);
        c.helloDone();
        return c;
    }

    /** The server's event fan-out (a shared-memory channel's loop joins it). */
    public EventFanout fanout() { return fanout; }

    /** The server's routes (a shared-memory channel's loop serves the same). */
    public Routes routes() { return routes; }

    /** Ties the driver's socket to its connection. */
    protected abstract void attach(S s, ServerConnection c);

    // ---------------------------------------------------------------- as a connection sees its loop (loop thread only)

    /** The connection has a deferred batch to flush at the end of this loop turn. */
    public void markDirty(ServerConnection c) { dirty.add(c); }

    /** The connection stopped at its per-turn request budget with complete requests left: continue it next turn. */
    public void requestsLeft(ServerConnection c) { backlog.add(c); }

    /** The connection closed (socket and buffers freed): forget it and record why. */
    public void closed(ServerConnection c, String reason) {
        forget(c);
        if (load.get() == 1) trimPools(0); // its last: a loop with no connection keeps no buffer for one
        load.decrementAndGet();
        if (c.hasSubscriptions()) {
            subscribers.remove(c);
            subscribed = !subscribers.isEmpty();
        }
        log.closed(c, reason);
        if (Jfr.connectionClosed()) {
            ConnectionEvent.Closed e = new ConnectionEvent.Closed();
            if (e.shouldCommit()) {
                SyscallCounts counts = c.outlet().counters().snapshot();
                e.socket = config.socketPath();
                e.peerPid = c.peerPid();
                e.peerUid = c.peerUid();
                e.requests = c.requests();
                e.syscalls = counts.total();
                e.syscallsByKind = counts.toString();
                e.reason = reason;
                e.commit();
            }
        }
        closedSinceTrim++;
        if (acceptor != null) acceptor.connectionClosed();
    }

    /** The connection's subscriptions changed (it may now be a subscriber, or no longer one). */
    public void subscriptionsChanged(ServerConnection c) {
        subscribers.update(c);
        subscribed = !subscribers.isEmpty();
    }

    /** Publishes an event to every subscriber of the server, on every loop. */
    public void publish(int evType, MemorySegment payload, long off, long len, int causePid) {
        fanout.publish(evType, payload, off, len, causePid);
    }

    /** 64 bytes of loop-thread scratch memory for built-in answers. */
    public MemorySegment scratch() { return scratch; }

    // ---------------------------------------------------------------- as the event fan-out sees a loop

    public boolean isCurrentThread() { return Thread.currentThread() == thread; }

    public boolean hasSubscribers() { return subscribed; }

    /** Publishes on this loop now (its own thread). */
    public void publishHere(int evType, MemorySegment payload, long off, long len, int causePid) {
        subscribers.publish(evType, payload, off, len, causePid);
    }

    /** Publishes on this loop's thread soon; payload stays valid until then. */
    public void publishLater(int evType, MemorySegment payload, int causePid) {
        tasks.submit(() -> subscribers.publish(evType, payload, 0, payload.byteSize(), causePid));
    }

    /** Open connections' statistics; loop thread only. */
    public List<ConnectionStats> openStats() {
        List<ConnectionStats> out = new ArrayList<>();
        table.forEach(s -> {
            if (!s.connection().isClosed()) out.add(ConnectionLog.stats(s.connection(), "open"));
        });
        return out;
    }

    /** Frees the loop's idle buffers past keep of each kind (loop thread; a driver adds its own). */
    protected void trimPools(int keep) {
        buffers.trim(keep);
    }

    /** The loop's input buffers, lent to its connections while bytes wait (loop thread). */
    public Pool<NativeBuffer> inputBuffers() { return buffers.input; }

    /** The loop's output batches' memory, lent to its connections while they batch (loop thread). */
    public Pool<OutputBatch.Memory> batchMemory() { return buffers.batches; }

    /** Frees the loop's memory once its thread ended. */
    public void close() {
        tasks.close();
        closeDriver();
        buffers.close();
        if (arena.scope().isAlive()) arena.close();
    }
}
