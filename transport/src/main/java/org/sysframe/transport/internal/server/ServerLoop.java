package org.sysframe.transport.internal.server;

import org.sysframe.transport.ConnectionStats;
import org.sysframe.transport.ServerConfig;
import org.sysframe.transport.internal.io.NativeBuffer;
import org.sysframe.transport.internal.io.OutputBatch;
import org.sysframe.transport.internal.io.Pool;
import org.sysframe.transport.internal.io.SafeLogger;

import org.sysframe.unix.CpuPlacement;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.PeerCredentials;
import org.sysframe.unix.Self;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One event-loop thread of a server, whatever its I/O driver: starts and stops its thread; owns its
 * connections (the {@link ConnectionTable}), the deferred-batch and backlog lists, the subscribers,
 * the closed connections' log, the hand-off of new connections from the acceptor and the task queue
 * ({@link LoopTasks}), and its clock and timer ({@link LoopTimer}). How it waits and moves bytes is its
 * {@link LoopDriver}'s (epoll, io_uring), which it drives turn by turn. It also serves the
 * shared-memory channels its connections opened ({@link LoopChannels}), in the same turns. The
 * syscalls of the loop thread are counted in {@link #counters()}.
 *
 * @param <S> its driver's socket of a connection
 */
public final class ServerLoop<S extends LoopSocket> {
    /** The server's logger, which the drivers share. */
    public static final Logger LOG = SafeLogger.of("org.sysframe.server");

    private final int index;
    private final ServerConfig config;
    private final Routes routes;
    private final ServerLimits limits;
    private final SyscallCounters counters;
    private final Arena arena = Arena.ofShared(); // closed by close(), after the thread ended
    private final MemorySegment scratch = arena.allocate(64, 8);
    private final LoopBuffers buffers;
    private final LoopTasks tasks;
    private final ConnectionTable<LoopSocket> table = new ConnectionTable<>(); // the driver's sockets and channels
    private final LoopChannels channels;
    private final LoopTimer timer;
    private final SubscriberSet subscribers = new SubscriberSet();
    private final List<ServerConnection> dirty = new ArrayList<>();
    private final List<ServerConnection> backlog = new ArrayList<>();
    private final List<ServerConnection> backlogNow = new ArrayList<>();
    private final ConnectionLog log;
    private final AtomicInteger load = new AtomicInteger();
    private final Thread thread;
    private final LoopDriver<S> driver;
    private volatile boolean running = true;
    private volatile boolean subscribed;
    private volatile int tid;
    private Acceptor acceptor;
    private EventFanout fanout;
    private Consumer<Throwable> onFailure;
    /** This thread's requests, error answers and bytes (its connections count into it), from its start to its end. */
    ServerCounts.Cell counts;

    /** Loop index of a server; its driver is made last, by driver (everything is freed when one throws). */
    public ServerLoop(int index, ServerConfig config, Routes routes, ServerLimits limits, LoopDriver.Factory<S> driver)
            throws ErrnoException {
        this.index = index;
        this.config = config;
        this.routes = routes;
        this.limits = limits;
        this.counters = new SyscallCounters("server loop " + index);
        this.buffers = new LoopBuffers(config.readBuffer());
        this.log = new ConnectionLog(config.socketPath(), index);
        this.timer = new LoopTimer(config, limits, table, this::trimPools);
        this.channels = new LoopChannels(config.waitMode(), counters);
        this.thread = new Thread(this::run, "sysframe-server-" + index + " " + config.socketPath());
        this.thread.setDaemon(true);
        try {
            this.tasks = new LoopTasks(counters, arena);
        } catch (ErrnoException e) {
            arena.close();
            throw e;
        }
        try {
            this.driver = driver.create(this);
        } catch (ErrnoException | RuntimeException e) {
            tasks.close();
            arena.close();
            throw e;
        }
        tasks.alsoOnWake(this.driver::wakeup);
    }

    /**
     * Ties the loop to the server's acceptor (loop 0; null for the others) and event fan-out, and to what
     * the server does when an unexpected throwable ends this loop (stop as a whole: never half-alive).
     * Before its thread starts.
     */
    public void connect(Acceptor acceptor, EventFanout fanout, Consumer<Throwable> onFailure) {
        this.acceptor = acceptor;
        this.fanout = fanout;
        this.onFailure = onFailure;
    }

    public int index() { return index; }
    public ServerConfig config() { return config; }
    public Thread thread() { return thread; }
    public int threadId() { return tid; }
    public SyscallCounters counters() { return counters; }
    public LoopTasks tasks() { return tasks; }
    public ConnectionLog connectionLog() { return log; }
    public LoopDriver<S> driver() { return driver; }

    /** The shared-memory channels this loop serves (its driver waits for them too). */
    public LoopChannels channels() { return channels; }

    /** Memory that lives as long as the loop (freed by {@link #close()}, once its thread ended). */
    public Arena arena() { return arena; }

    /** Whether the loop runs (until {@link #stop()}, or until its end after a failure). */
    public boolean isRunning() { return running; }

    /**
     * Open connections of this loop, and ones handed to it not yet taken (the acceptor's measure of its
     * load); a shared-memory channel is its socket connection's, not one more.
     */
    public int connectionCount() { return load.get(); }

    // ---------------------------------------------------------------- the thread

    private void run() {
        tid = Self.tid();
        counts = limits.counts.cell(); // before the driver opens: a channel's connection is made then
        try {
            int cpu = config.cpuOfLoop(index);
            if (cpu >= 0) CpuPlacement.pinCurrentThread(cpu);
            driver.open();
            if (acceptor != null) acceptor.watch();
        } catch (ErrnoException e) {
            limits.counts.retire(counts);
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
        failure = step(failure, driver::shutdown);
        running = false; // also after a failure: a hand-off still queued closes its socket
        limits.counts.retire(counts); // its connections are closed: they count no more
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

    /**
     * One turn: the wait, bounded by what is due (requests left from the last turn: no sleep; the
     * acceptor's retry; the timer; the driver's own), then what it found, then the connections with
     * requests left and the deferred batches.
     */
    private void turn() throws ErrnoException {
        if (acceptor != null) acceptor.retryIfDue();
        long bound = driver.waitBound();
        if (!backlog.isEmpty()) {
            bound = 0;
        } else if (bound != 0) {
            if (acceptor != null) bound = earlier(bound, acceptor.waitLimitNanos());
            bound = earlier(bound, timer.waitNanos());
        }
        int ready = driver.await(bound);
        timer.startOfTurn();
        driver.handle(ready);
        channels.serve();
        endOfTurn();
        channels.endOfTurn();
        driver.endOfTurn();
    }

    /** The earlier of two bounds in ns, -1 being none. */
    private static long earlier(long a, long b) { return a < 0 ? b : b < 0 ? a : Math.min(a, b); }

    /** The end of a turn: continue the connections with requests left, then flush the deferred batches. */
    private void endOfTurn() {
        if (!backlog.isEmpty()) {
            backlogNow.addAll(backlog);
            backlog.clear();
            for (int i = 0; i < backlogNow.size(); i++) {
                ServerConnection c = backlogNow.get(i);
                c.continueRequests();
                driver.continued(c);
            }
            backlogNow.clear();
        }
        for (int i = 0; i < dirty.size(); i++) {
            ServerConnection c = dirty.get(i);
            if (c.dirty()) c.flush();
        }
        dirty.clear();
    }

    /** Asks the loop to stop (any thread); it closes its connections on the way out. */
    public void stop() {
        running = false;
        if (!isCurrentThread()) tasks.wake(); // its own thread checks at the end of this turn
    }

    // ---------------------------------------------------------------- as the driver sees its loop

    /** The driver's socket of the connection of tag, or null when it left the table (or is a channel's). */
    @SuppressWarnings("unchecked")
    public S socket(long tag) {
        LoopSocket s = table.get(tag);
        return s instanceof HostedChannel ? null : (S) s;
    }

    /** A socket its driver kept past its connection's close leaves the table (see {@link LoopDriver#unregister}). */
    public void release(long tag) { table.remove(tag); }

    /** The listener is readable (a driver that watches it for readiness): accept what waits. */
    public void listenerReady() { acceptor.acceptAll(); }

    /** A driver's accept completed with descriptor fd: admitted, or closed when the loop stops. */
    public void accepted(int fd) {
        if (running) acceptor.accepted(fd);
        else new UnixSocket(fd, "late", counters).close();
    }

    /** A driver's accept failed with errno; once the loop stops, the listener is closed under it: that is no news. */
    public void acceptFailed(int errno) {
        if (running) acceptor.acceptFailed(new ErrnoException("accept", errno));
    }

    void watchListener(int fd) throws ErrnoException { driver.watchListener(fd); }

    void pauseListener(int fd, boolean pause) throws ErrnoException { driver.pauseListener(fd, pause); }

    // ---------------------------------------------------------------- as the acceptor sees a loop

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
        long tag = table.add(t -> driver.newSocket(s, t));
        S ls = socket(tag);
        ServerConnection c = new ServerConnection(this, config, routes, tag, ls, cred.pid(), cred.uid(),
                config.requestsPerRead());
        ls.attach(c);
        log.opened(cred.pid(), cred.uid());
        try {
            driver.register(ls);
        } catch (ErrnoException e) {
            LOG.log(Level.ERROR, "cannot watch a new connection: {0}", e.getMessage());
            c.close("cannot watch it: " + e.getMessage());
        }
    }

    /**
     * On the loop thread: a connection whose bytes come through a shared-memory channel (of a connection
     * of this loop that said GR_HELLO on its socket already), served in this loop's turns by the same
     * protocol code as every other.
     */
    public ServerConnection adoptChannel(HostedChannel ch, int peerPid, int peerUid) {
        long tag = table.add(t -> ch);
        // requestsPerRead emulates Grout's socket reads: a channel's ring handles every request.
        ServerConnection c = new ServerConnection(this, config, routes, tag, ch, peerPid, peerUid, 0);
        ch.attach(c);
        c.helloDone();
        channels.add(ch);
        return c;
    }

    /** The server's event fan-out (a shared-memory channel's loop joins it). */
    public EventFanout fanout() { return fanout; }

    /** The server's routes (a shared-memory channel's loop serves the same). */
    public Routes routes() { return routes; }

    /** The server's shared limits: the memory budget and the warnings' rate limits. */
    public ServerLimits limits() { return limits; }

    // ---------------------------------------------------------------- as a connection sees its loop (loop thread only)

    /** This turn's time (System.nanoTime(), read at its first use in the turn: see {@link LoopTimer#now()}). */
    public long now() { return timer.now(); }

    /** The connection now needs (+1) or no longer needs (-1) the timer (a request in part, a large buffer, ...). */
    public void timed(int delta) { timer.timed(delta); }

    /** The connection waits for the memory budget to take its large request: call its retry when there is room. */
    public void waitForMemory(ServerConnection c) { timer.waitForMemory(c); }

    /** Connections of this loop that wait for the memory budget. */
    public int memoryWaiterCount() { return timer.memoryWaiterCount(); }

    /** The connection has a deferred batch to flush at the end of this loop turn. */
    public void markDirty(ServerConnection c) { dirty.add(c); }

    /** The connection stopped at its per-turn request budget with complete requests left: continue it next turn. */
    public void requestsLeft(ServerConnection c) { backlog.add(c); }

    /** The connection closed (socket and buffers freed): forget it and record why. */
    public void closed(ServerConnection c, String reason) {
        LoopSocket s = table.get(c.tag);
        String why = reason;
        if (s instanceof HostedChannel ch) {
            table.remove(c.tag);
            channels.remove(ch);
            ch.closed(reason);
            why = "shared-memory channel: " + reason;
        } else {
            if (s != null && driver.unregister(socket(c.tag), reason)) table.remove(c.tag);
            if (load.get() == 1) trimPools(0); // its last: a loop with no connection keeps no buffer for one
            load.decrementAndGet();
        }
        if (c.hasSubscriptions()) {
            subscribers.remove(c);
            subscribed = !subscribers.isEmpty();
        }
        log.closed(c, why);
        timer.connectionClosed();
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

    /** The loop's memory for answers its handlers claim where their connection's outlet has no room of its own. */
    public MemorySegment claimArea() { return buffers.claimArea(); }

    /** The loop's input buffers, lent to its connections while bytes wait. */
    public Pool<NativeBuffer> inputBuffers() { return buffers.input; }

    /** The loop's output batches' memory, lent to its connections while they batch. */
    public Pool<OutputBatch.Memory> batchMemory() { return buffers.batches; }

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

    /** Frees the loop's and its driver's idle buffers past keep of each kind (loop thread). */
    private void trimPools(int keep) {
        buffers.trim(keep);
        driver.trim(keep);
    }

    /** Frees the loop's memory once its thread ended (or when it never started). */
    public void close() {
        tasks.close();
        driver.close();
        buffers.close();
        if (arena.scope().isAlive()) arena.close();
    }
}
