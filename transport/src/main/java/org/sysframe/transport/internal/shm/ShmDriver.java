package org.sysframe.transport.internal.shm;

import org.sysframe.transport.ConnectionStats;
import org.sysframe.transport.FlushMode;
import org.sysframe.transport.internal.io.InputBuffer;
import org.sysframe.transport.internal.io.Outlet;
import org.sysframe.transport.internal.io.OutputBatch;
import org.sysframe.transport.internal.io.Waiter;
import org.sysframe.transport.internal.server.ConnectionLog;
import org.sysframe.transport.internal.server.LoopDriver;
import org.sysframe.transport.internal.server.LoopSocket;
import org.sysframe.transport.internal.server.ServerConnection;
import org.sysframe.transport.internal.server.ServerLoop;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.Futex;
import org.sysframe.unix.IovArray;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;

import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The server's side of one shared-memory channel: the driver of a loop thread of its own (a
 * {@link ServerLoop}, so the channel's connection is a {@link ServerConnection} like any other: the
 * same routes, handlers, limits, deferred batches, subscriptions and events) that takes requests from
 * the request ring into the connection's input buffer and writes answers and events into the answer
 * ring.
 *
 * <p>Why a thread per channel, not channels polled by the socket loops: a socket loop that sleeps
 * sleeps in epoll_wait, which a futex wake does not end, and one that spins makes an epoll_wait(0)
 * per look; either would cost the calls a syscall that the channel exists to avoid. A thread of its
 * own spins on the ring with no syscall, or sleeps on the ring's futex word; the price is a thread
 * per channel, which is why channels are asked for, not the default.
 *
 * <p>A bad index or length read from the segment closes the channel and its connection with one
 * logged line (WARNING, {@code org.sysframe.server}); the connection of its socket is closed on that
 * socket's own loop, so that the client sees it end. The channel ends when that connection ends (its
 * loop's {@code stop()}).
 */
final class ShmDriver implements LoopDriver<ShmDriver.Channel> {
    /**
     * Empty looks at the rings per turn while spinning: the turn's own work (clock, timers, tasks) once per so many.
     */
    private static final int LOOKS_PER_TURN = 64;
    /** How every error about the segment's contents begins ({@link ShmRing}). */
    private static final String BAD = "shared memory: ";

    private final ServerLoop<Channel> loop;
    private final ServerLoop<?> host;
    private final ShmServer.Slot slot; // its share of the server's channels and memory budget
    private final ShmSegment segment;
    private final ShmRing in;
    private final ShmRing out;
    private final ServerConnection socketSide; // the connection of the socket, its host loop's
    private final int peerPid;
    private final int peerUid;
    private final Waiter waiter;
    private final Arena kickArena = Arena.ofShared();
    private final Futex kick;
    private final Steps steps = new Steps();
    private Channel channel;
    private ErrnoException corrupt;

    private ShmDriver(ServerLoop<Channel> loop, int channel, ServerLoop<?> host, ShmSegment segment,
                      ServerConnection socketSide, ShmServer.Slot slot) {
        this.loop = loop;
        this.host = host;
        this.slot = slot;
        this.segment = segment;
        this.in = segment.requests();
        this.out = segment.answers();
        this.socketSide = socketSide;
        this.peerPid = socketSide.peerPid();
        this.peerUid = socketSide.peerUid();
        this.waiter = new Waiter(slot.waitMode(), loop.counters());
        boolean neverSleeps = !slot.waitMode().blocks(); // spin, yield
        in.consumerNeverSleeps(neverSleeps);
        out.producerNeverSleeps(neverSleeps);
        loop.thread().setName("sysframe-shm-" + channel + " pid " + peerPid + " " + loop.config().socketPath());
        this.kick = new Futex(new SyscallCounters("shared-memory wakeup (any thread)"), kickArena);
    }

    /**
     * The loop of channel number channel, serving segment for the connection socketSide of host with
     * the host's routes and limits; on the host's loop index, so on its CPU. Not started: {@link #begin}.
     */
    static ServerLoop<Channel> newLoop(int channel, ServerLoop<?> host, ShmSegment segment, ServerConnection socketSide,
                                       ShmServer.Slot slot) throws ErrnoException {
        return new ServerLoop<>(host.index(), host.config(), host.routes(), host.limits(),
                loop -> new ShmDriver(loop, channel, host, segment, socketSide, slot));
    }

    /** Starts the thread of loop and waits until it serves; false (everything freed) when it could not start. */
    static boolean begin(ServerLoop<Channel> loop) {
        return ((ShmDriver) loop.driver()).begin();
    }

    private boolean begin() {
        // A failure of this thread is logged by the loop and ends the channel with its connection: the server goes on.
        loop.connect(null, host.fanout(), failure -> { });
        host.fanout().add(loop);
        loop.thread().start();
        try {
            Throwable failure = loop.tasks().awaitStarted();
            if (failure == null) return true;
            ServerLoop.LOG.log(Level.WARNING, "shared-memory channel of pid=" + peerPid + " did not start: "
                    + failure.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            loop.stop();
        }
        return false;
    }

    /**
     * Wakes the loop's thread wherever it sleeps (any thread): on the request ring for requests, or on
     * the answer ring for room. Each word is cleared first, so a sleep that begins after this returns at
     * once: the thread's sleeps have no bound of their own.
     */
    @Override
    public synchronized void wakeup() {
        if (!kickArena.scope().isAlive()) return;
        in.consumerAwake();
        out.producerAwake();
        try {
            kick.wake(in.memory(), in.consumerWord(), 1);
            kick.wake(out.memory(), out.producerWord(), 1);
        } catch (ErrnoException e) {
            ServerLoop.LOG.log(Level.ERROR, "cannot wake a shared-memory channel: " + e.getMessage());
        }
    }

    @Override
    public void open() {
        loop.adoptChannel(tag -> channel = new Channel(tag), peerPid, peerUid);
    }

    @Override
    public int await(long bound) throws ErrnoException {
        return waiter.once(steps, bound < 0 ? Waiter.NO_BOUND : bound, LOOKS_PER_TURN);
    }

    /** Runs the waiting tasks; gives the connection the ring's bytes, and room to write when the answer ring has it. */
    @Override
    public void handle(int ready) {
        if (loop.tasks().hasQueued()) loop.tasks().runAll();
        ServerConnection c = channel.connection;
        if (c == null || c.isClosed()) return;
        try {
            if (corrupt != null) throw corrupt;
            if (channel.writable && out.room() > 0) c.onWritable();
            if (!c.isClosed() && c.wantsInput() && !channel.inputPaused) {
                InputBuffer input = c.input();
                input.ready();
                long n = in.take(input.segment(), input.end(), input.free());
                if (n > 0) {
                    if (in.producerWaits()) channel.futex.wake(in.memory(), in.producerWord(), 1);
                    input.produced(n);
                    c.onInput();
                }
            }
        } catch (ErrnoException e) {
            c.close(e.getMessage()); // logged by closed()
        }
    }

    /** Publishes what the turn wrote. */
    @Override
    public void endOfTurn() throws ErrnoException { channel.publishTurn(); }

    /**
     * The channel's one connection closed: the loop ends. A close for a bad value read from the segment
     * (on whichever path it was read) is logged, once. The connection of the socket ends on its own
     * loop's thread: this thread never touches the socket (its descriptor may be closed there meanwhile,
     * and its number given to a new connection); the channel's record goes there too, beside the
     * socket's own: the server's statistics list both.
     */
    @Override
    public boolean unregister(Channel s, String reason) {
        int at = reason.indexOf(BAD);
        if (at >= 0) {
            String what = reason.substring(at);
            ServerLoop.LOG.log(Level.WARNING, "pid=" + peerPid + ": shared-memory channel closed: " + what);
        }
        loop.stop();
        host.tasks().submit(() -> socketSide.close("its shared-memory channel ended"));
        ConnectionStats stats = ConnectionLog.stats(s.connection, "shared-memory channel: " + reason);
        host.tasks().submit(() -> host.connectionLog().add(stats));
        return true;
    }

    @Override
    public void shutdown() {
        host.fanout().remove(loop);
        ShmServer.ended(loop);
        // Freed once the thread has ended (its last task run): by a short-lived thread of its own.
        Thread.ofVirtual().name("sysframe-shm-close").start(() -> {
            try {
                loop.tasks().awaitStopped(30);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            synchronized (this) {
                if (kickArena.scope().isAlive()) kickArena.close();
            }
            loop.close();
        });
    }

    @Override
    public void watchListener(int fd) {}

    @Override
    public void pauseListener(int fd, boolean pause) {}

    @Override
    public Channel newSocket(UnixSocket s, long tag) {
        throw new UnsupportedOperationException("a channel has no accepted sockets");
    }

    @Override
    public void register(Channel s) {}

    @Override
    public void close() {
        segment.close();
        slot.release();
    }

    /**
     * The waiter's steps: a look at the rings and the task queue (no syscall); a sleep on the request ring's futex
     * word.
     */
    private final class Steps implements Waiter.Steps {
        @Override
        public int poll() {
            if (!loop.isRunning() || loop.tasks().hasQueued() || corrupt != null) return 1;
            try {
                if (channel.writable) return out.room() > 0 ? 1 : 0;
                return in.available() > 0 ? 1 : 0;
            } catch (ErrnoException e) {
                corrupt = e;
                return 1;
            }
        }

        @Override
        public int block(long nanos) throws ErrnoException {
            if (nanos == 0) return poll();
            // No bound of its own: whatever must end the sleep wakes the word (a request's publish,
            // a task or the loop's stop() by wakeup()); a timer's bound, when one runs, is nanos.
            try {
                if (channel.writable) {
                    if (out.producerSleeps() == 0 && loop.isRunning() && !loop.tasks().hasQueued()) {
                        channel.futex.await(out.memory(), out.producerWord(), 1, nanos);
                    }
                    out.producerAwake();
                } else {
                    if (in.consumerSleeps() == 0 && loop.isRunning() && !loop.tasks().hasQueued()) {
                        channel.futex.await(in.memory(), in.consumerWord(), 1, nanos);
                    }
                    in.consumerAwake();
                }
            } catch (ErrnoException e) {
                if (e.getMessage().startsWith("shared memory")) {
                    corrupt = e;
                    return 1;
                }
                throw e;
            }
            return poll();
        }
    }

    /**
     * The channel as the connection's outlet: answers and events go into the answer ring. With the
     * deferred flush mode the ring is the turn's batch: what a turn wrote is published once, at its end
     * (one release store, and one wake-up when the client sleeps), and at once when the ring is full, so
     * that the client starts making room while the rest waits in the connection's queue; with the
     * immediate mode every write is published.
     */
    final class Channel implements LoopSocket, Outlet.Direct {
        private final long tag;
        private final SyscallCounters counters = loop.newConnectionCounters();
        private final Futex futex = new Futex(counters, loop.arena());
        private final boolean perTurn = loop.config().flush() == FlushMode.DEFERRED;
        private ServerConnection connection;
        private boolean writable;
        private boolean inputPaused;
        private boolean unpublished;

        Channel(long tag) { this.tag = tag; }

        @Override
        public boolean batchesTurns() { return perTurn; }

        @Override
        public ServerConnection connection() { return connection; }

        @Override
        public void attach(ServerConnection c) { connection = c; }

        @Override
        public long write(MemorySegment header, int hlen, MemorySegment payload, long off,
                long len) throws ErrnoException {
            long n = out.put(header, 0, hlen);
            if (n == hlen && len > 0) n += out.put(payload, off, len);
            wrote(n == hlen + len);
            return n;
        }

        @Override
        public void gather(OutputBatch batch) throws ErrnoException {
            IovArray iov = batch.iov();
            long want = iov.remaining();
            long n = out.put(iov, 0, want);
            wrote(n == want);
            iov.advance(n);
        }

        @Override
        public long send(MemorySegment seg, long off, long len) throws ErrnoException {
            long n = out.put(seg, off, len);
            wrote(n == len);
            return n;
        }

        /** After a put: published now (immediate mode, or a full ring), else at the end of the turn. */
        private void wrote(boolean all) throws ErrnoException {
            if (perTurn && all) unpublished = true;
            else publish();
        }

        /** The end of a turn: publishes what the turn wrote. */
        void publishTurn() throws ErrnoException {
            if (unpublished) publish();
        }

        private void publish() throws ErrnoException {
            unpublished = false;
            if (out.publish()) futex.wake(out.memory(), out.consumerWord(), 1);
        }

        @Override
        public void wantWritable(boolean on) { writable = on; }

        @Override
        public void pauseInput(boolean paused) { inputPaused = paused; }

        @Override
        public SyscallCounters counters() { return counters; }

        @Override
        public void close() {}
    }
}
