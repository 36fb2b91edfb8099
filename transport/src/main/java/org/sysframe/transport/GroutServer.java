package org.sysframe.transport;

import org.sysframe.unix.Epoll;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.Self;
import org.sysframe.unix.SocketFile;
import org.sysframe.unix.PeerCredentials;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * A Grout-style API server: one epoll event-loop thread serving every connection on an AF_UNIX
 * socket, with the framing of {@link ServerOptions}. Handlers run on the loop thread and must not
 * block.
 *
 * <p>Start-up refuses a path where a live server answers, and removes a stale socket file; the file
 * is created with the configured mode (0600 by default) before anyone can connect. {@link #close()}
 * stops accepting, closes every connection, frees every buffer and removes the socket file.
 *
 * <p>Syscall accounting: {@link #counters()} totals every counted call of the loop thread
 * (epoll_wait, and every connection's recv and sends); {@link #loopThreadId()} is the thread to give
 * {@link org.sysframe.unix.KernelSyscallCounter#forThread(int)} for the kernel's count.
 */
public final class GroutServer implements AutoCloseable {
    private static final Logger LOG = System.getLogger("org.sysframe.server");
    private static final long LISTENER = -1;
    private static final long WAKEUP = -2;
    private static final int MAX_CLOSED_STATS = 10_000;

    private final ServerOptions options;
    private final HandlerRegistry handlers;
    private final SyscallCounters loopCounters;
    private final UnixSocket listener;
    private final Epoll epoll;
    private final UnixSocket wakeRead;
    private final UnixSocket wakeWrite;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment wakeBuf = arena.allocate(64);
    private final MemorySegment scratch = arena.allocate(64, 8);
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final CountDownLatch started = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Thread thread;
    private final List<ServerConnection> dirty = new ArrayList<>();
    private final List<ServerConnection> subscribers = new ArrayList<>();
    private final List<ConnectionStats> closedStats = new ArrayList<>();

    private ServerConnection[] slots = new ServerConnection[64];
    private int highestSlot; // slots below it have been used; free ones are in freeSlots
    private int[] generations = new int[64];
    private final IntStack freeSlots = new IntStack();
    private volatile boolean running = true;
    private volatile int loopTid;
    private volatile int connectionCount;
    private boolean acceptPaused;
    private long acceptPausedAt;
    private boolean acceptFailureLogged;
    private Throwable failure;

    /** Device and inode of the socket file this server bound; null for an abstract name. */
    private final SocketFile.Id socketFile;

    private GroutServer(ServerOptions options, UnixSocket listener, Epoll epoll, UnixSocket[] wake) {
        this.options = options;
        this.socketFile = boundFile(options.socketPath());
        this.loopCounters = epoll.counters();
        this.handlers = options.handlers().copy();
        this.listener = listener;
        this.epoll = epoll;
        this.wakeRead = wake[0];
        this.wakeWrite = wake[1];
        this.thread = new Thread(this::run, "sysframe-server " + options.socketPath());
        this.thread.setDaemon(true);
    }

    /** Binds, listens and starts the event loop; returns once it runs. */
    public static GroutServer start(ServerOptions options) throws IOException {
        String path = options.socketPath();
        if (options.allowAnyUid() && options.allowedUids() != null) {
            throw new IllegalArgumentException("allowAnyUid and allowedUids " + options.allowedUids() + " both set: choose one");
        }
        if (options.loops() != 1) throw new UnsupportedOperationException("several loops: not yet");
        if (!path.startsWith("@")) claimPath(path);
        UnixSocket listener = UnixSocket.listen(path, options.mode(), options.backlog(), true);
        Epoll epoll = null;
        UnixSocket[] wake = null;
        try {
            SyscallCounters loop = new SyscallCounters("server loop");
            epoll = new Epoll(256, loop);
            wake = UnixSocket.pair(loop, new SyscallCounters("server wakeup (any thread)"));
            wake[0].setNonBlocking(true);
            wake[1].setNonBlocking(true);
        } catch (IOException e) {
            listener.close();
            if (epoll != null) epoll.close();
            UnixSocket.unlink(path);
            throw e;
        }
        GroutServer s = new GroutServer(options, listener, epoll, wake);
        s.thread.start();
        try {
            s.started.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            s.close();
            throw new IOException("interrupted while starting", e);
        }
        if (s.failure != null) {
            s.close();
            throw new IOException("server loop failed to start", s.failure);
        }
        return s;
    }

    /**
     * Makes path free for bind: nothing there is fine; a socket nobody answers on is removed (only
     * that socket file, see {@link SocketFile#removeIfSame}); a live server is EADDRINUSE; anything
     * that is not a socket is EEXIST and is left exactly as it was.
     */
    private static void claimPath(String path) throws ErrnoException {
        SocketFile.Id stale = SocketFile.socketAt(path);
        if (stale == null) return;
        try {
            UnixSocket.connect(path).close();
            throw new ErrnoException("bind(" + path + ")", Errno.EADDRINUSE, "a live server already answers on this path");
        } catch (ErrnoException e) {
            if (e.errno() == Errno.ENOENT) return; // gone meanwhile
            if (e.errno() != Errno.ECONNREFUSED) throw e;
        }
        if (SocketFile.removeIfSame(path, stale)) {
            LOG.log(Level.INFO, "removed the stale socket file {0} (a socket nobody answered on)", path);
        } else if (SocketFile.socketAt(path) != null) {
            throw new ErrnoException("bind(" + path + ")", Errno.EADDRINUSE, "another socket took this path while the stale one was checked");
        }
    }

    /** (st_dev, st_ino) of this server's socket file, or null for an abstract name. */
    private static SocketFile.Id boundFile(String path) {
        if (path.startsWith("@")) return null;
        try {
            return SocketFile.socketAt(path);
        } catch (ErrnoException e) {
            return null;
        }
    }

    public ServerOptions options() { return options; }

    HandlerRegistry handlers() { return handlers; }

    Epoll epoll() { return epoll; }

    /** 64 bytes of loop-thread scratch memory for built-in replies. */
    MemorySegment scratch() { return scratch; }

    public String socketPath() { return options.socketPath(); }

    /** Kernel thread id of the event loop, for {@code KernelSyscallCounter.forThread}. */
    public int loopThreadId() { return loopTid; }

    /** Every counted syscall of the event-loop thread. */
    public SyscallCounters counters() { return loopCounters; }

    /** Number of event-loop threads ({@link ServerOptions#loops(int)}). */
    public int loopCount() { return 1; }

    /** Kernel thread id of loop i (0 &lt;= i &lt; {@link #loopCount()}). */
    public int loopThreadId(int i) {
        java.util.Objects.checkIndex(i, loopCount());
        return loopTid;
    }

    /** Every counted syscall of loop i's thread. */
    public SyscallCounters loopCounters(int i) {
        java.util.Objects.checkIndex(i, loopCount());
        return loopCounters;
    }

    /** Connections open now. */
    public int connectionCount() { return connectionCount; }

    /** Runs task on the event-loop thread (for example, to publish events from elsewhere). */
    public void execute(Runnable task) {
        tasks.add(task);
        wake();
    }

    /** Runs a computation on the loop thread and waits for its result. */
    public <T> T call(Supplier<T> what) throws IOException {
        if (stopped.getCount() == 0) throw new IllegalStateException("server closed: its loop runs no more tasks");
        CompletableFuture<T> f = new CompletableFuture<>();
        execute(() -> f.complete(what.get()));
        try {
            return f.get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("server loop did not answer", e);
        }
    }

    /** Statistics of the connections that closed (the latest 10,000), read on the loop thread. */
    public List<ConnectionStats> closedConnections() throws IOException {
        if (stopped.getCount() == 0) return List.copyOf(closedStats); // the loop is gone: its last writes are visible
        return call(() -> List.copyOf(closedStats));
    }

    /** Statistics of the open connections, read on the loop thread (none once closed). */
    public List<ConnectionStats> openConnections() throws IOException {
        if (stopped.getCount() == 0) return List.of();
        return call(() -> {
            List<ConnectionStats> out = new ArrayList<>();
            for (ServerConnection c : slots) if (c != null) out.add(stats(c, "open"));
            return out;
        });
    }

    /**
     * Publishes an event to every subscriber of evType (or of every type), except those that asked to
     * suppress their own events when causePid is their pid. Loop thread only (from a handler, or via
     * {@link #execute}); use 0 as causePid for events no client caused.
     */
    public void publish(int evType, MemorySegment payload, long off, long len, int causePid) {
        if (Thread.currentThread() != thread) throw new IllegalStateException("publish from the event-loop thread (use execute)");
        if (len > GroutApi.MAX_MSG_LEN) throw new IllegalArgumentException("event payload " + len + " over GR_API_MAX_MSG_LEN");
        for (int i = 0; i < subscribers.size(); i++) {
            ServerConnection c = subscribers.get(i);
            if (c.wants(evType, causePid)) {
                c.sendEvent(evType, payload, off, len);
                if (c.isClosed() && (i >= subscribers.size() || subscribers.get(i) != c)) i--; // it left the list: same index again
            }
        }
    }

    void subscribed(ServerConnection c) {
        if (!subscribers.contains(c)) subscribers.add(c);
    }

    void unsubscribed(ServerConnection c) {
        subscribers.remove(c);
    }

    void markDirty(ServerConnection c) { dirty.add(c); }

    void log(Level level, String format, Object... args) {
        if (LOG.isLoggable(level)) LOG.log(level, String.format(format, args));
    }

    private void run() {
        loopTid = Self.tid();
        try {
            epoll.add(listener.fd(), Epoll.EPOLLIN, LISTENER);
            epoll.add(wakeRead.fd(), Epoll.EPOLLIN, WAKEUP);
        } catch (ErrnoException e) {
            failure = e;
            started.countDown();
            stopped.countDown();
            return;
        }
        started.countDown();
        try {
            loop();
        } catch (Throwable t) {
            failure = t;
            LOG.log(Level.ERROR, "server loop failed", t);
        } finally {
            shutdown();
            stopped.countDown();
        }
    }

    private void loop() throws ErrnoException {
        while (running) {
            // While accepting is paused for lack of descriptors, look again every 100 ms: descriptors may
            // be freed by code other than this server's connections.
            int n = epoll.await(acceptPaused ? 100 : -1);
            if (acceptPaused && System.nanoTime() - acceptPausedAt >= 100_000_000L) pauseAccepting(false);
            for (int i = 0; i < n; i++) {
                long tag = epoll.readyTag(i);
                int events = epoll.readyEvents(i);
                if (tag == LISTENER) {
                    acceptAll();
                } else if (tag == WAKEUP) {
                    drainWakeups();
                } else {
                    ServerConnection c = connection(tag);
                    if (c == null) continue; // closed earlier in this round
                    if ((events & Epoll.EPOLLOUT) != 0) c.onWritable();
                    if ((events & (Epoll.EPOLLIN | Epoll.EPOLLHUP | Epoll.EPOLLERR)) != 0) c.onReadable();
                }
            }
            flushDirty();
        }
    }

    private void flushDirty() {
        for (int i = 0; i < dirty.size(); i++) {
            ServerConnection c = dirty.get(i);
            if (c.dirty()) c.flush();
        }
        dirty.clear();
    }

    private ServerConnection connection(long tag) {
        int slot = (int) tag;
        int gen = (int) (tag >>> 32);
        if (slot < 0 || slot >= slots.length || generations[slot] != gen) return null;
        return slots[slot];
    }

    private void acceptAll() {
        while (running) {
            UnixSocket s;
            try {
                s = listener.accept(new SyscallCounters("connection", loopCounters));
            } catch (ErrnoException e) {
                if (e.errno() == Errno.EMFILE || e.errno() == Errno.ENFILE || e.errno() == Errno.ENOMEM) {
                    // Once per episode: the retries every 100 ms while it lasts are not news.
                    log(acceptFailureLogged ? Level.DEBUG : Level.WARNING,
                            "accept failed (%s): pausing accepts, retried every 100 ms and when a connection closes", e.getMessage());
                    acceptFailureLogged = true;
                    pauseAccepting(true);
                } else {
                    LOG.log(Level.ERROR, "accept failed: {0}", e.getMessage());
                }
                return;
            }
            if (s == null) return;
            acceptFailureLogged = false;
            PeerCredentials cred;
            try {
                cred = s.peerCredentials();
                if (options.socketBufferSize() > 0) {
                    s.setSendBufferSize(options.socketBufferSize());
                    s.setReceiveBufferSize(options.socketBufferSize());
                }
            } catch (ErrnoException e) {
                LOG.log(Level.WARNING, "dropping a connection whose credentials cannot be read: {0}", e.getMessage());
                s.close();
                continue;
            }
            if (!options.admits(cred.uid())) {
                log(Level.WARNING, "refused connection from uid %d (pid %d): not an allowed uid", cred.uid(), cred.pid());
                s.close();
                continue;
            }
            int slot = freeSlots.isEmpty() ? nextNewSlot() : freeSlots.pop();
            int gen = ++generations[slot];
            long tag = ((long) gen << 32) | slot;
            ServerConnection c = new ServerConnection(this, tag, s, cred.pid(), cred.uid());
            try {
                epoll.add(s.fd(), Epoll.EPOLLIN, tag);
            } catch (ErrnoException e) {
                LOG.log(Level.ERROR, "cannot watch a new connection: {0}", e.getMessage());
                generations[slot]++;
                freeSlots.push(slot);
                c.close("epoll_ctl failed");
                continue;
            }
            slots[slot] = c;
            connectionCount++;
        }
    }

    private int nextNewSlot() {
        if (highestSlot == slots.length) {
            slots = java.util.Arrays.copyOf(slots, slots.length * 2);
            generations = java.util.Arrays.copyOf(generations, generations.length * 2);
        }
        return highestSlot++;
    }

    private void pauseAccepting(boolean pause) {
        if (pause == acceptPaused) return;
        try {
            epoll.modify(listener.fd(), pause ? 0 : Epoll.EPOLLIN, LISTENER);
            acceptPaused = pause;
            acceptPausedAt = System.nanoTime();
        } catch (ErrnoException e) {
            LOG.log(Level.ERROR, "cannot {0} accepting: {1}", pause ? "pause" : "resume", e.getMessage());
        }
    }

    /** Called by a connection once it closed: frees its slot and records its totals. */
    void closed(ServerConnection c, String reason) {
        int slot = (int) c.tag;
        if (slot >= 0 && slot < slots.length && slots[slot] == c) {
            slots[slot] = null;
            generations[slot]++;
            freeSlots.push(slot);
            connectionCount--;
        }
        if (c.hasSubscriptions()) subscribers.remove(c);
        if (closedStats.size() == MAX_CLOSED_STATS) closedStats.remove(0);
        closedStats.add(stats(c, reason));
        log(Level.DEBUG, "pid=%d: connection closed (%s)", c.peerPid(), reason);
        if (acceptPaused) pauseAccepting(false);
    }

    private static ConnectionStats stats(ServerConnection c, String reason) {
        return new ConnectionStats(c.peerPid(), c.peerUid(), c.requests(), c.counters().snapshot(), reason);
    }

    private void drainWakeups() {
        try {
            while (wakeRead.recv(wakeBuf, 0, wakeBuf.byteSize(), 0) > 0) {
                // drained
            }
        } catch (ErrnoException e) {
            LOG.log(Level.ERROR, "wakeup socket failed: {0}", e.getMessage());
        }
        Runnable t;
        while ((t = tasks.poll()) != null) {
            try {
                t.run();
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "task failed on the server loop", e);
            }
        }
    }

    private synchronized void wake() {
        try (Arena a = Arena.ofConfined()) {
            wakeWrite.send(a.allocate(1), 0, 1, UnixSocket.MSG_DONTWAIT); // EAGAIN: a wakeup is already pending
        } catch (ErrnoException e) {
            if (running) LOG.log(Level.ERROR, "cannot wake the server loop: {0}", e.getMessage());
        }
    }

    private void shutdown() {
        for (ServerConnection c : slots) {
            if (c != null) c.close("server shutdown");
        }
        listener.close();
        // Remove the file only if it is still ours: it may have been deleted and bound again by another server.
        if (socketFile != null) {
            try {
                if (!SocketFile.removeIfSame(options.socketPath(), socketFile)) {
                    LOG.log(Level.INFO, "{0} is no longer this server''s socket file: left in place", options.socketPath());
                }
            } catch (ErrnoException e) {
                LOG.log(Level.WARNING, "cannot remove {0}: {1}", options.socketPath(), e.getMessage());
            }
        }
        wakeRead.close();
        epoll.close();
    }

    /** Stops accepting, closes every connection, frees every buffer, removes the socket file. Idempotent. */
    @Override
    public void close() {
        if (running) {
            running = false;
            wake();
        }
        try {
            if (Thread.currentThread() != thread && !stopped.await(30, TimeUnit.SECONDS)) {
                LOG.log(Level.ERROR, "server loop did not stop within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            wakeWrite.close();
        }
        if (arena.scope().isAlive() && stopped.getCount() == 0) arena.close();
    }

    /** A small stack of ints for free connection slots (no boxing). */
    private static final class IntStack {
        private int[] items = new int[16];
        private int size;

        boolean isEmpty() { return size == 0; }

        int pop() { return items[--size]; }

        void push(int v) {
            if (size == items.length) items = java.util.Arrays.copyOf(items, size * 2);
            items[size++] = v;
        }
    }
}
