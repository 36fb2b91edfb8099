package org.sysframe.transport;

import org.sysframe.unix.CpuPlacement;
import org.sysframe.unix.Epoll;
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

/**
 * The epoll I/O driver of one event-loop thread: waits in epoll_wait, receives into its connections'
 * input buffers and lets them write through their {@link EpollSocket}s, flushes deferred batches at
 * the end of each turn, and runs tasks handed to it from other threads (new connections, events,
 * calls). Loop 0 also runs the {@link Acceptor}. The syscalls it makes are counted in
 * {@link #counters()}, the loop thread's total.
 */
final class EpollLoop implements ConnectionHost<ServerConnection>, Acceptor.Loop, EventFanout.Loop {
    private static final Logger LOG = System.getLogger("org.sysframe.server");

    final int index;
    private final ServerConfig config;
    private final Routes routes;
    private final SyscallCounters counters;
    private final Epoll epoll;
    private final LoopWaiter waiter;
    private final LoopTasks tasks;
    private final Arena arena = Arena.ofShared(); // closed by close(), after the thread ended
    private final MemorySegment scratch = arena.allocate(64, 8);
    private final ConnectionTable table = new ConnectionTable();
    private final SubscriberSet subscribers = new SubscriberSet();
    private final List<ServerConnection> dirty = new ArrayList<>();
    private final List<ServerConnection> backlog = new ArrayList<>();
    private final List<ServerConnection> backlogNow = new ArrayList<>();
    private final ConnectionLog log = new ConnectionLog();
    private final AtomicInteger load = new AtomicInteger();
    private final Thread thread;
    private volatile boolean subscribed;
    private volatile boolean running = true;
    private volatile int tid;
    private Acceptor acceptor;
    private EventFanout fanout;

    EpollLoop(int index, ServerConfig config, Routes routes) throws ErrnoException {
        this.index = index;
        this.config = config;
        this.routes = routes;
        this.counters = new SyscallCounters("server loop " + index);
        this.epoll = new Epoll(256, counters);
        this.waiter = new LoopWaiter(epoll, config.waitMode(), counters);
        try {
            this.tasks = new LoopTasks(epoll, counters, arena);
        } catch (ErrnoException e) {
            epoll.close();
            arena.close();
            throw e;
        }
        this.thread = new Thread(this::run, "sysframe-server-" + index + " " + config.socketPath());
        this.thread.setDaemon(true);
    }

    void connect(Acceptor acceptor, EventFanout fanout) {
        this.acceptor = acceptor;
        this.fanout = fanout;
    }

    Thread thread() { return thread; }

    /** The epoll set the acceptor registers the listener in (loop 0's). */
    Epoll epollForAcceptor() { return epoll; }
    int threadId() { return tid; }
    SyscallCounters counters() { return counters; }
    LoopTasks tasks() { return tasks; }
    ConnectionLog connectionLog() { return log; }

    /** Open connections of this loop (and ones handed to it not yet taken). */
    int connectionCount() { return load.get(); }

    private void run() {
        tid = Self.tid();
        try {
            int cpu = config.cpuOfLoop(index);
            if (cpu >= 0) CpuPlacement.pinCurrentThread(cpu);
            tasks.watch();
            if (acceptor != null) acceptor.watch();
        } catch (ErrnoException e) {
            tasks.failed(e);
            return;
        }
        tasks.started();
        try {
            while (running) turn();
        } catch (Throwable t) {
            LOG.log(Level.ERROR, "server loop " + index + " failed", t);
            tasks.failed(t);
        } finally {
            table.forEach(s -> s.connection().close("server shutdown"));
            if (acceptor != null) acceptor.close();
            tasks.stopped();
        }
    }

    private void turn() throws ErrnoException {
        // Connections with requests left from the last turn: poll, do not sleep.
        int n = waiter.await(!backlog.isEmpty() ? 0 : acceptor == null ? -1 : acceptor.waitLimitMillis());
        if (acceptor != null) acceptor.retryIfDue();
        for (int i = 0; i < n; i++) {
            long tag = epoll.readyTag(i);
            if (tag == Acceptor.TAG) {
                acceptor.acceptAll();
            } else if (tag == LoopTasks.TAG) {
                tasks.runAll();
            } else {
                EpollSocket s = table.get(tag);
                if (s == null) continue; // closed earlier in this round
                int events = epoll.readyEvents(i);
                if ((events & Epoll.EPOLLOUT) != 0) s.connection().onWritable();
                if ((events & (Epoll.EPOLLIN | Epoll.EPOLLHUP | Epoll.EPOLLERR)) != 0 && s.connection().wantsInput()) s.receive();
            }
        }
        if (!backlog.isEmpty()) {
            backlogNow.addAll(backlog);
            backlog.clear();
            for (int i = 0; i < backlogNow.size(); i++) backlogNow.get(i).continueRequests();
            backlogNow.clear();
        }
        for (int i = 0; i < dirty.size(); i++) {
            ServerConnection c = dirty.get(i);
            if (c.dirty()) c.flush();
        }
        dirty.clear();
    }

    /** Asks the loop to stop; it closes its connections on the way out. */
    void stop() {
        running = false;
        tasks.wake();
    }

    // ---------------------------------------------------------------- Acceptor.Loop

    @Override
    public int load() { return load.get(); }

    @Override
    public SyscallCounters newConnectionCounters() { return new SyscallCounters("connection", counters); }

    @Override
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
        long tag = table.add(t -> new EpollSocket(s, epoll, t, config.send()));
        EpollSocket es = table.get(tag);
        ServerConnection c = new ServerConnection(this, config, routes, tag, es, cred.pid(), cred.uid());
        es.attach(c);
        try {
            epoll.add(s.fd(), Epoll.EPOLLIN, tag);
        } catch (ErrnoException e) {
            LOG.log(Level.ERROR, "cannot watch a new connection: {0}", e.getMessage());
            c.close("epoll_ctl failed");
        }
    }

    // ---------------------------------------------------------------- ConnectionHost

    @Override
    public void markDirty(ServerConnection c) { dirty.add(c); }

    @Override
    public void requestsLeft(ServerConnection c) { backlog.add(c); }

    @Override
    public void closed(ServerConnection c, String reason) {
        table.remove(c.tag);
        load.decrementAndGet();
        if (c.hasSubscriptions()) {
            subscribers.remove(c);
            subscribed = !subscribers.isEmpty();
        }
        log.closed(c, reason);
        if (acceptor != null) acceptor.connectionClosed();
    }

    @Override
    public void subscriptionsChanged(ServerConnection c) {
        subscribers.update(c);
        subscribed = !subscribers.isEmpty();
    }

    @Override
    public void publish(int evType, MemorySegment payload, long off, long len, int causePid) {
        fanout.publish(evType, payload, off, len, causePid);
    }

    @Override
    public MemorySegment scratch() { return scratch; }

    // ---------------------------------------------------------------- EventFanout.Loop

    @Override
    public boolean isCurrentThread() { return Thread.currentThread() == thread; }

    @Override
    public boolean hasSubscribers() { return subscribed; }

    @Override
    public void publishHere(int evType, MemorySegment payload, long off, long len, int causePid) {
        subscribers.publish(evType, payload, off, len, causePid);
    }

    @Override
    public void publishLater(int evType, MemorySegment payload, int causePid) {
        tasks.submit(() -> subscribers.publish(evType, payload, 0, payload.byteSize(), causePid));
    }

    /** Open connections' statistics; loop thread only. */
    List<ConnectionStats> openStats() {
        List<ConnectionStats> out = new ArrayList<>();
        table.forEach(s -> out.add(ConnectionLog.stats(s.connection(), "open")));
        return out;
    }

    /** Frees the loop's memory once its thread ended. */
    void close() {
        tasks.close();
        epoll.close();
        if (arena.scope().isAlive()) arena.close();
    }
}
