package org.sysframe.transport;

import org.sysframe.transport.internal.epoll.EpollDriver;
import org.sysframe.transport.internal.jfr.ConnectionEvent;
import org.sysframe.transport.internal.jfr.Jfr;
import org.sysframe.transport.internal.server.Acceptor;
import org.sysframe.transport.internal.server.EventFanout;
import org.sysframe.transport.internal.server.Routes;
import org.sysframe.transport.internal.server.ServerCounts;
import org.sysframe.transport.internal.server.ServerLimits;
import org.sysframe.transport.internal.server.ServerLoop;
import org.sysframe.transport.internal.server.ServerSocketPath;
import org.sysframe.transport.internal.shm.ShmSegment;
import org.sysframe.transport.internal.shm.ShmServer;
import org.sysframe.transport.internal.uring.UringDriver;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SocketFile;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.UnixSocket;
import org.sysframe.unix.uring.UringCounts;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;

/**
 * A Grout-style API server on an AF_UNIX socket: one acceptor and {@link ServerConfig#loops()}
 * event-loop threads on the configured {@link Backend} (epoll by default, or io_uring), each serving the connections
 * handed to it, with the framing of its {@link ServerConfig} (frozen from {@link ServerOptions} at start). Handlers run
 * on the loop threads and must not block.
 *
 * <p>Start-up checks the path ({@link GroutApi#checkSocketPath}), refuses a path where a live server
 * answers (EADDRINUSE) or that holds anything but a socket (EEXIST, left untouched), and reclaims a
 * socket file nobody answers on; the socket is then bound, given the configured mode and made to listen
 * in a private directory and moved to the path without replacing anything
 * ({@link UnixSocket#listen}), so the mode is never set through a path another user can swap, and the
 * start fails, saying what is there, unless the path then holds that socket with that mode. {@link #close()} stops
 * every loop, closes every connection, frees every buffer and removes the socket file if it is still its own.
 *
 * <p>Syscall accounting: {@link #loopCounters(int)} totals every counted call of one loop thread
 * (epoll_wait, wakeups, and its connections' recv and sends; with io_uring, its io_uring_enter calls,
 * which no connection's own counters see since one enter serves every connection of a turn);
 * {@link #loopUringCounts(int)} gives an io_uring loop's SQEs by opcode and CQEs;
 * {@link #loopThreadId(int)} is the thread to give
 * {@link org.sysframe.unix.KernelSyscallCounter#forThread(int)} for the kernel's count.
 */
public final class GroutServer implements AutoCloseable {
    private static final Logger LOG = System.getLogger("org.sysframe.server");

    private final ServerConfig config;
    private final ServerLoop<?>[] loops;
    private final SocketFile.Id socketFile;
    private volatile boolean closed;
    private volatile Throwable failure;
    private final CountDownLatch closeDone = new CountDownLatch(1);

    private GroutServer(ServerConfig config, ServerLoop<?>[] loops, SocketFile.Id socketFile) {
        this.config = config;
        this.loops = loops;
        this.socketFile = socketFile;
    }

    /** Freezes options, binds, listens and starts the event loops; returns once they run. */
    public static GroutServer start(ServerOptions options) throws IOException {
        ServerConfig config = options.freeze();
        Jfr.watch();
        GroutApi.checkSocketPath(config.socketPath());
        if (config.backend() != Backend.EPOLL) config =
                config.withBackend(config.backend().resolve("server(" + config.socketPath() + ")"));
        if (config.allowAnyUid() && config.allowedUids() != null) {
            throw new IllegalArgumentException("allowAnyUid and allowedUids " + config.allowedUids()
                    + " both set: choose one");
        }
        String path = config.socketPath();
        if (!config.isAbstract()) ServerSocketPath.claim(path);
        UnixSocket listener = UnixSocket.listen(path, config.mode(), config.backlog(), true);
        SocketFile.Id file = listener.boundFile();
        String shutOut = ServerSocketPath.allowedButShutOut(config);
        if (shutOut != null) LOG.log(Level.WARNING, shutOut);
        if (config.sharedMemory()) {
            long segment = ShmSegment.sizeFor(config.sharedMemoryRing());
            long fit = config.memoryBudget() / segment;
            if (fit < config.sharedMemoryChannels()) {
                LOG.log(Level.WARNING,
                        String.format("%d shared-memory channels of %d bytes each allowed, but the memory budget of %d "
                        + "bytes"
                        + " holds %d: the budget refuses the rest", config.sharedMemoryChannels(), segment,
                                config.memoryBudget(), fit));
            }
        }
        ServerLoop<?>[] loops = new ServerLoop<?>[config.loops()];
        try {
            Routes routes = options.routes();
            if (config.sharedMemory()) routes.channelOpener(ShmServer.OPENER);
            ServerLimits limits = new ServerLimits(config);
            for (int i = 0; i < loops.length; i++) {
                boolean uring = config.backend() == Backend.IO_URING;
                loops[i] = uring ? new ServerLoop<>(i, config, routes, limits, UringDriver::new)
                        : new ServerLoop<>(i, config, routes, limits, EpollDriver::new);
            }
        } catch (ErrnoException e) {
            for (ServerLoop<?> l : loops) if (l != null) l.close();
            listener.close();
            ServerSocketPath.release(path, file);
            throw e;
        }
        Acceptor acceptor = new Acceptor(listener, config, loops);
        EventFanout fanout = new EventFanout(loops);
        GroutServer s = new GroutServer(config, loops, file);
        for (ServerLoop<?> l : loops) l.connect(l.index() == 0 ? acceptor : null, fanout, s::loopFailed);
        for (ServerLoop<?> l : loops) l.thread().start();
        try {
            for (ServerLoop<?> l : loops) {
                Throwable failure = l.tasks().awaitStarted();
                if (failure != null) {
                    s.close();
                    throw new IOException("server loop " + l.index() + " failed to start: " + failure.getMessage(),
                            failure);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            s.close();
            throw new IOException("interrupted while starting", e);
        }
        Recorded.SERVERS.add(s);
        return s;
    }

    /**
     * The running servers the periodic flight-recorder event {@code org.sysframe.ConnectionSyscalls}
     * reports on. The event is registered when the recorder initializes (a listener costs nothing
     * before that; registering the event itself would start the recorder's machinery in every JVM).
     */
    private static final class Recorded {
        static final Set<GroutServer> SERVERS = ConcurrentHashMap.newKeySet();
        private static final AtomicBoolean REGISTERED = new AtomicBoolean();

        static {
            FlightRecorder.addListener(new FlightRecorderListener() {
                @Override
                public void recorderInitialized(FlightRecorder recorder) {
                    if (REGISTERED.compareAndSet(false, true)) FlightRecorder.addPeriodicEvent(
                            ConnectionEvent.Periodic.class, Recorded::emit);
                }
            });
        }

        private static void emit() {
            for (GroutServer s : SERVERS) {
                List<ConnectionStats> open;
                try {
                    open = s.openConnections();
                } catch (IOException | IllegalStateException e) {
                    continue; // closing: its connections' totals come with ConnectionClosed
                }
                for (ConnectionStats c : open) {
                    ConnectionEvent.Periodic e = new ConnectionEvent.Periodic();
                    e.socket = s.socketPath();
                    e.peerPid = c.peerPid();
                    e.peerUid = c.peerUid();
                    e.requests = c.requests();
                    e.syscalls = c.syscalls().total();
                    e.syscallsByKind = c.syscalls().toString();
                    e.commit();
                }
            }
        }
    }

    /**
     * Null while the socket path holds this server's socket file with its configured mode (always for
     * an abstract name), else one phrase saying what is there instead, e.g. {@code /run/grout.sock is
     * not this socket file any more: it is now a symbolic link to /etc/shadow}. Start-up checked it;
     * ask again before claiming the mode (another user who can write the directory may have moved
     * the socket since).
     */
    public String socketFileProblem() {
        return socketFile == null ? null : SocketFile.mismatch(config.socketPath(), socketFile, config.mode());
    }

    /** The settings this server runs with. */
    public ServerConfig config() { return config; }

    /** The socket path this server listens on, as configured. */
    public String socketPath() { return config.socketPath(); }

    /** Number of event-loop threads. */
    public int loopCount() { return loops.length; }

    /** Kernel thread id of loop i (0 &lt;= i &lt; {@link #loopCount()}), for {@code KernelSyscallCounter.forThread}. */
    public int loopThreadId(int i) { return loops[i].threadId(); }

    /** Every counted syscall of loop i's thread. */
    public SyscallCounters loopCounters(int i) { return loops[i].counters(); }

    /**
     * SQEs by opcode and CQEs of loop i's io_uring since it started ({@link UringCounts#ZERO} for an epoll
     * loop). Beside {@link #loopCounters(int)}, which has the loop's io_uring_enter calls.
     */
    public UringCounts loopUringCounts(int i) {
        return loops[i].driver() instanceof UringDriver u ? u.uringCounters().snapshot() : UringCounts.ZERO;
    }

    /** The backend the loops run on ({@link Backend#AUTO} resolved at start). */
    public Backend backend() { return config.backend(); }

    /** Buffers of loop i's provided buffer ring not given back to the kernel (0 for epoll), read on the loop. Tests. */
    int loopBuffersOutstanding(int i) throws IOException {
        return loops[i].driver() instanceof UringDriver u ? loops[i].tasks().call(u::buffersOutstanding) : 0;
    }

    /** Kernel thread id of loop 0 (the only loop by default), which also accepts. */
    public int loopThreadId() { return loopThreadId(0); }

    /** Every counted syscall of loop 0's thread (the only loop by default). */
    public SyscallCounters counters() { return loopCounters(0); }

    /** Every loop thread's counts added up. */
    public SyscallCounts totalCounts() {
        SyscallCounts total = SyscallCounts.ZERO;
        for (ServerLoop<?> l : loops) total = total.plus(l.counters().snapshot());
        return total;
    }

    /** The loops' shared limits: memory budget, warnings' rate limits (tests). */
    ServerLimits limits() { return loops[0].limits(); }

    /** Connections waiting for the memory budget, across loops (tests). */
    int memoryWaiters() throws IOException {
        int n = 0;
        for (ServerLoop<?> l : loops) n += l.tasks().call(l::memoryWaiterCount);
        return n;
    }

    /** The requests, error answers and frame bytes so far, over every loop and channel (live sums, read at once). */
    public ServerStats stats() {
        ServerCounts c = limits().counts;
        return new ServerStats(c.requests(), c.errors(), c.bytesReceived(), c.bytesSent());
    }

    /** Connections open now, on every loop. */
    public int connectionCount() {
        int n = 0;
        for (ServerLoop<?> l : loops) n += l.connectionCount();
        return n;
    }

    /**
     * Shared-memory channels open now, each holding its segment (never over
     * {@link ServerOptions#sharedMemoryChannels}); 0 without {@link ServerOptions#sharedMemory}.
     */
    public int channelCount() { return Math.min(limits().channels.get(), config.sharedMemoryChannels()); }

    /** Runs task on loop 0's thread (for example, to publish events from elsewhere). */
    public void execute(Runnable task) { loops[0].tasks().submit(task); }

    /** Runs a computation on loop 0's thread and waits for its result. */
    public <T> T call(Supplier<T> what) throws IOException { return loops[0].tasks().call(what); }

    /**
     * Statistics of the connections that closed (the latest 10,000 per loop), loop by loop. A client on
     * a shared-memory channel has two, on the loop that served both: its socket's (GR_HELLO, SHM_OPEN)
     * and its channel's (the rest; the reason starts with {@code shared-memory channel: }).
     */
    public List<ConnectionStats> closedConnections() throws IOException {
        List<ConnectionStats> out = new ArrayList<>();
        for (ServerLoop<?> l : loops) {
            // A stopped loop's last writes are visible once its thread ended.
            out.addAll(l.tasks().isStopped() ? l.connectionLog().closedConnections()
                    : l.tasks().call(() -> l.connectionLog().closedConnections()));
        }
        return out;
    }

    /** Statistics of the open connections, shared-memory channels included, read on their loops (none once closed). */
    public List<ConnectionStats> openConnections() throws IOException {
        List<ConnectionStats> out = new ArrayList<>();
        for (ServerLoop<?> l : loops) if (!l.tasks().isStopped()) out.addAll(l.tasks().call(l::openStats));
        return out;
    }

    /**
     * Publishes an event to every subscriber of evType (or of every type) on every loop, except those
     * that asked to suppress their own events when causePid is their pid. From a loop thread only (a
     * handler, or a task given to {@link #execute}); use 0 as causePid for events no client caused.
     */
    public void publish(int evType, MemorySegment payload, long off, long len, int causePid) {
        if (len > GroutApi.MAX_MSG_LEN) throw new IllegalArgumentException("event payload " + len
                + " over GR_API_MAX_MSG_LEN");
        for (ServerLoop<?> l : loops) {
            if (l.isCurrentThread()) {
                l.publish(evType, payload, off, len, causePid);
                return;
            }
        }
        throw new IllegalStateException("publish from an event-loop thread (use execute)");
    }

    /**
     * On a loop thread whose loop an unexpected throwable ended (logged there with its stack trace): the
     * server stops as a whole, from a thread of its own, rather than serve on half-alive.
     */
    private void loopFailed(Throwable t) {
        LOG.log(Level.ERROR, "a loop of the server on " + config.socketPath() + " failed: the server stops");
        synchronized (this) {
            if (failure == null) failure = t;
        }
        Thread stop = new Thread(this::close, "sysframe-server-stop " + config.socketPath());
        stop.setDaemon(true);
        stop.start();
    }

    /**
     * What ended one of the server's loops and so stopped the server (logged at ERROR with its stack
     * trace when it happened), or null while it runs or once stopped by {@link #close()}.
     */
    public Throwable failure() { return failure; }

    /**
     * Waits until the server stopped, by {@link #close()} or because a loop failed ({@link #failure()}):
     * its connections closed and its socket file removed. True when it stopped within the timeout.
     */
    public boolean awaitStop(Duration timeout) throws InterruptedException {
        return closeDone.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Stops every loop, closes every connection, frees every buffer, removes the socket file. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) return;
            closed = true;
        }
        try {
            stopAll();
        } finally {
            closeDone.countDown();
        }
    }

    private void stopAll() {
        Recorded.SERVERS.remove(this);
        for (ServerLoop<?> l : loops) l.stop();
        boolean all = true;
        for (ServerLoop<?> l : loops) {
            try {
                if (!l.isCurrentThread() && !l.tasks().awaitStopped(30)) {
                    LOG.log(Level.ERROR, "server loop {0} did not stop within 30 s", l.index());
                    all = false;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                all = false;
            }
        }
        ServerSocketPath.release(config.socketPath(), socketFile);
        if (!all) return; // a loop still runs: its memory stays
        for (ServerLoop<?> l : loops) if (!l.isCurrentThread()) l.close();
    }
}
