package org.sysframe.transport.internal.uring;

import org.sysframe.transport.ServerConfig;
import org.sysframe.transport.internal.io.Waiter;
import org.sysframe.transport.internal.server.LoopChannels;
import org.sysframe.transport.internal.server.LoopDriver;
import org.sysframe.transport.internal.server.ServerConnection;
import org.sysframe.transport.internal.server.ServerLoop;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.UnixSocket;
import org.sysframe.unix.internal.uring.BufferRing;
import org.sysframe.unix.internal.uring.Cqe;
import org.sysframe.unix.internal.uring.IoUring;
import org.sysframe.unix.internal.uring.Sqe;
import org.sysframe.unix.uring.UringCounters;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;

/**
 * The io_uring I/O driver of one event loop. One turn is one io_uring_enter that submits every
 * SQE prepared since the last one (the answers of the previous turn, re-armed receives, cancels) and
 * waits for at least one completion; then every completion ready is handled (new connections from the
 * multishot ACCEPT of loop 0, received bytes from the multishot RECVs, finished SENDs, the task
 * queue's wake-up seen by a multishot POLL_ADD), then the loop's connections with requests left and
 * deferred batches, whose SENDs go out with the next turn's enter. With one client doing ping-pong
 * that is exactly one io_uring_enter per request.
 *
 * <p>Ring: {@link ServerConfig#uringEntries()} SQEs (256), {@link ServerConfig#uringCompletions()}
 * CQEs (512) (a full CQ loses nothing: the kernel keeps
 * the overflow and {@link IoUring#peek()} flushes it), SINGLE_ISSUER, and DEFER_TASKRUN when the loop
 * blocks (completions are posted only when the loop asks, in its one enter). A spinning loop (wait
 * modes spin, spin:DURATION, yield) runs with COOP_TASKRUN | TASKRUN_FLAG instead and spins on the CQ
 * and the ring's task-work flag in user space, entering the kernel only to submit, to run flagged
 * work (which posts its completions) and, for spin:DURATION, to sleep once the budget passed: an
 * empty spin is no syscall at all. The ring, its fd registration and the buffer ring are made on the
 * loop thread (SINGLE_ISSUER binds the ring to it).
 *
 * <p>Memory: one provided buffer ring per loop, {@value #BUFFERS} buffers of {@value #BUFFER_SIZE}
 * bytes (4 MiB): a buffer is held only from the kernel's fill to this turn's copy into a connection's
 * input, so 256 cover 256 connections receiving in the same turn, and 16 KiB takes a typical request
 * batch in one completion; a dry ring only costs a re-armed receive (ENOBUFS). Per connection, while
 * bytes wait: its input buffer (lent by the loop's pool, as with epoll), a 64 KiB output area (lent
 * by the ring's pool from an answer's queueing to its SEND's completion), and bytes held back while it
 * does not read; an idle connection holds none of them.
 *
 * <p>Shared-memory channels: the loop looks at their rings in its turns (no syscall), and watches each
 * channel's eventfd with a multishot POLL_ADD ({@link ChannelPolls}; edge-triggered: a completion per
 * write of the client, the eventfd never read), which ends a sleep as a socket's completion does. A
 * spinning loop serving channels looks at its CQ in user space, as always; one whose ring defers its
 * task work (it blocks by itself, and spins only for a spinning channel) enters the kernel at a bounded rate
 * ({@link LoopChannels#socketsDue()}) to have its sockets' completions posted.
 *
 * <p>Counting: the loop's {@code SyscallCounters} count every io_uring_enter (and the task queue's
 * recv); SQEs by opcode and CQEs are in {@link #uringCounters()}. A connection's own counters see no
 * enter (one enter serves every connection of the turn): the loop total is the truth.
 */
public final class UringDriver implements LoopDriver<UringSocket>, UringSocket.Host {
    static final int BUFFERS = 256;
    /** Completions handled per turn at most: the turn's other work (backlog, batches) must come too. */
    private static final int REAP_BOUND = 1024;
    static final int BUFFER_SIZE = 16 * 1024;
    private static final long STOP_DRAIN_NANOS = 5_000_000_000L;
    /** Bound of a wait that counts on SENDs completing in it: a guard, never reached when they do. */
    private static final long SAFETY_NANOS = 5_000_000_000L;
    /** How often lingering sockets are looked at, at least. */
    private static final long LINGER_CHECK_NANOS = 100_000_000L;

    private final ServerLoop<UringSocket> loop;
    private final UringCounters uringCounters = new UringCounters();
    private final boolean spins;
    private final Waiter waiter;
    private final Steps steps = new Steps();
    private final LoopChannels channels;
    private final ChannelSteps channelSteps = new ChannelSteps();
    private ChannelPolls channelPolls;
    /** Completions a sleep of this turn waits for: the SENDs submitted with it and one more (see await()). */
    private int waitFor = 1;
    private final List<UringSocket> writableSoon = new ArrayList<>();
    private final List<UringSocket> writableNow = new ArrayList<>();
    private final List<UringSocket> sendSoon = new ArrayList<>();
    private final List<UringSocket> lingering = new ArrayList<>();
    private final List<UringSocket> pumpSoon = new ArrayList<>();
    private final List<UringSocket> pumpNow = new ArrayList<>();
    private IoUring uring;
    private BufferRing buffers;
    private UringRing io;
    private int listenerFd = -1;
    private boolean acceptArmed;
    private boolean listenerPaused;

    /** The driver of loop; its ring is made on the loop's thread ({@link #open()}). */
    public UringDriver(ServerLoop<UringSocket> loop) {
        this.loop = loop;
        this.waiter = new Waiter(loop.config().waitMode(), loop.counters(), Waiter.Looks.MOSTLY_MEMORY);
        this.spins = waiter.spins();
        this.channels = loop.channels();
    }

    /** SQEs by opcode and CQEs of this loop's ring (any thread). */
    public UringCounters uringCounters() { return uringCounters; }

    /** Buffers of the ring held by completions and not recycled (loop thread; 0 between turns). */
    public int buffersOutstanding() { return buffers == null ? 0 : buffers.outstanding(); }

    @Override
    public void open() throws ErrnoException {
        // Spinning: COOP_TASKRUN | TASKRUN_FLAG, so that the kernel flags a completion to post instead of
        // interrupting the spinning thread for it (an IPI each, which multiplies a round trip's latency:
        // docs/results.md); the spin runs the flagged work with one io_uring_enter.
        int flags = IoUring.SETUP_SINGLE_ISSUER
                | (spins ? IoUring.SETUP_COOP_TASKRUN | IoUring.SETUP_TASKRUN_FLAG : IoUring.SETUP_DEFER_TASKRUN);
        ServerConfig config = loop.config();
        uring = new IoUring(config.uringEntries(), config.uringCompletions(), flags, loop.counters(), uringCounters);
        uring.registerRingFd();
        buffers = new BufferRing(uring, loop.index(), BUFFERS, BUFFER_SIZE);
        io = new UringRing(uring, buffers, this);
        channelPolls = new ChannelPolls(io);
        armWake();
    }

    private void armWake() {
        io.sqe().prepPollAdd(loop.tasks().wakeFd(), Sqe.POLLIN, true).userData(UserData.of(UserData.WAKE, 0));
    }

    @Override
    public void watchListener(int fd) {
        listenerFd = fd;
        armAccept();
    }

    private void armAccept() {
        acceptArmed = true;
        io.sqe().prepAccept(listenerFd, UnixSocket.SOCK_CLOEXEC, true).userData(UserData.of(UserData.ACCEPT, 0));
    }

    @Override
    public void pauseListener(int fd, boolean pause) {
        listenerPaused = pause;
        if (!pause && !acceptArmed && loop.isRunning()) armAccept();
    }

    /** 0 when sockets wait for their pump or writable call (next turn), else the lingering sockets' check. */
    @Override
    public long waitBound() {
        boolean poll = !writableSoon.isEmpty() || !pumpSoon.isEmpty();
        boolean linger = !lingering.isEmpty();
        if (linger) checkLingering(false);
        return poll ? 0 : linger ? LINGER_CHECK_NANOS : -1;
    }

    @Override
    public int await(long bound) throws ErrnoException {
        // The SENDs submitted now complete within this enter (MSG_DONTWAIT): wait for them and, when
        // nothing more is due after them (no connection waits for room to send more), the next arrival.
        int sendsPrepared = io.takeSendsPrepared();
        int due = sendsPrepared + (io.anyWaitingForRoom() ? 0 : 1);
        waitFor = spins ? 1 : Math.max(1, Math.min(due, uring.cqEntries()));
        if (channels.isEmpty()) return waiter.once(steps, bound < 0 ? Waiter.NO_BOUND : bound);
        return channels.waiter().once(channelSteps, bound < 0 ? Waiter.NO_BOUND : bound, LoopChannels.LOOKS_PER_TURN);
    }

    /** Watches a channel's eventfd: a multishot POLL_ADD, edge-triggered (the eventfd is never read). */
    @Override
    public void watchChannel(int fd) { channelPolls.arm(fd); }

    @Override
    public void unwatchChannel(int fd) { channelPolls.cancel(fd); }

    @Override
    public void handle(int ready) throws ErrnoException {
        reap();
        if (!pumpSoon.isEmpty()) {
            // Bytes held back while these connections had requests left: theirs next, after the arrivals.
            pumpNow.addAll(pumpSoon);
            pumpSoon.clear();
            for (int i = 0; i < pumpNow.size(); i++) pumpNow.get(i).pump();
            pumpNow.clear();
        }
        if (!writableSoon.isEmpty()) {
            writableNow.addAll(writableSoon);
            writableSoon.clear();
            for (int i = 0; i < writableNow.size(); i++) writableNow.get(i).writableNow();
            writableNow.clear();
        }
    }

    /** After the loop's deferred batches: their SENDs are prepared, for the next turn's enter. */
    @Override
    public void endOfTurn() {
        for (int i = 0; i < sendSoon.size(); i++) sendSoon.get(i).flushSend();
        sendSoon.clear();
    }

    /**
     * The waiter's steps on the ring. A look enters the kernel only to submit, or to run the work the
     * kernel flagged for this thread (a completion to post: spinning rings have TASKRUN_FLAG), and
     * otherwise reads the CQ from user space: an empty look is no syscall. A sleep is one enter that
     * submits and waits for {@link #waitFor} completions; bound 0 only gets the events
     * (DEFER_TASKRUN posts completions only then), and a wait for SENDs has a guard of its own.
     */
    private final class Steps implements Waiter.Steps {
        @Override
        public int poll() throws ErrnoException {
            if (uring.pending() > 0) uring.submit(0, 0);
            else if (uring.taskWorkPending()) uring.runTaskWork();
            return uring.ready();
        }

        @Override
        public int block(long nanos) throws ErrnoException {
            long timeout = nanos == 0 ? 1 : nanos > 0 ? nanos : waitFor > 1 ? SAFETY_NANOS : 0;
            uring.submit(waitFor, timeout);
            return uring.ready();
        }
    }

    /**
     * The waiter's steps while the loop serves channels: a look is the CQ's and the rings' (no syscall),
     * and a ring that defers its task work enters the kernel at a bounded rate for its completions; a
     * sleep first says so in each channel (its client then writes its eventfd after it published).
     */
    private final class ChannelSteps implements Waiter.Steps {
        @Override
        public int poll() throws ErrnoException {
            if (uring.pending() > 0) {
                uring.submit(0, 0);
            } else if (uring.taskWorkPending()) {
                uring.runTaskWork();
            } else if (!spins && channels.socketsDue()) {
                uring.runTaskWork(); // GETEVENTS for none: posts the deferred completions, with no wait
            }
            int n = uring.ready();
            return n > 0 ? n : channels.ready() ? 1 : 0;
        }

        @Override
        public int block(long nanos) throws ErrnoException {
            if (nanos == 0) return poll();
            if (!channels.sleep()) return 1;
            try {
                uring.submit(waitFor, nanos > 0 ? nanos : waitFor > 1 ? SAFETY_NANOS : 0);
            } finally {
                channels.awake();
            }
            int n = uring.ready();
            return n > 0 ? n : channels.ready() ? 1 : 0;
        }
    }

    private void reap() throws ErrnoException {
        for (int i = 0; i < REAP_BOUND; i++) {
            Cqe c = uring.peek();
            if (c == null) return;
            long ud = c.userData();
            int res = c.res();
            int flags = c.flags();
            uring.advance();
            dispatch(ud, res, flags);
        }
    }

    private void dispatch(long ud, int res, int flags) {
        int kind = UserData.kind(ud);
        boolean more = (flags & Cqe.F_MORE) != 0;
        switch (kind) {
            case UserData.WAKE -> {
                if (!more) {
                    io.lastCompletion();
                    if (loop.isRunning()) armWake();
                }
                loop.tasks().runAll();
            }
            case UserData.ACCEPT -> {
                if (!more) {
                    io.lastCompletion();
                    acceptArmed = false;
                }
                if (res >= 0) loop.accepted(res);
                else if (res != -Errno.ECANCELED) loop.acceptFailed(-res);
                if (!acceptArmed && !listenerPaused && loop.isRunning()) armAccept();
            }
            case UserData.STOP, UserData.CHANNEL_CANCEL -> io.lastCompletion();
            case UserData.CHANNEL -> {
                if (!more) channelPolls.ended(ud, loop.isRunning()); // with F_MORE it only ended a sleep
            }
            case UserData.SEND_SHORT -> { } // the linked NOP of a short SEND: only here to end the wait
            default -> {
                UringSocket s = loop.socket(UserData.data(ud));
                if (s != null) {
                    s.complete(kind, res, flags);
                } else {
                    // Cannot happen: a socket stays in the table until its last completion. Keep the books right
                    // anyway.
                    if (!more) io.lastCompletion();
                    if ((flags & Cqe.F_BUFFER) != 0) {
                        buffers.taken(flags >>> 16);
                        buffers.recycle(flags >>> 16);
                    }
                    ServerLoop.LOG.log(Level.ERROR, "completion of kind {0} for an unknown connection", kind);
                }
            }
        }
    }

    /**
     * A backlogged connection had its turn: bytes it held back are given to it next turn, so that a
     * connection has at most two request budgets per turn, as with epoll (what arrived, what was left).
     */
    @Override
    public void continued(ServerConnection c) {
        UringSocket s = loop.socket(c.tag);
        if (s != null && !c.isClosed()) pumpSoon.add(s);
    }

    @Override
    public UringSocket newSocket(UnixSocket s, long tag) { return new UringSocket(s, tag, io); }

    @Override
    public void register(UringSocket s) { s.armReceive(); }

    /** The socket leaves the table with its last completion ({@link #finished}), not before. */
    @Override
    public boolean unregister(UringSocket s, String reason) { return false; }

    @Override
    public void writableSoon(UringSocket s) { writableSoon.add(s); }

    @Override
    public void finished(UringSocket s) { loop.release(s.tag()); }

    @Override
    public void sendSoon(UringSocket s) { sendSoon.add(s); }

    @Override
    public void lingering(UringSocket s) { lingering.add(s); }

    /** Forgets the lingering sockets that finished; gives up on those past their time (all when stopping). */
    private void checkLingering(boolean all) {
        long now = System.nanoTime();
        for (int i = lingering.size() - 1; i >= 0; i--) {
            UringSocket s = lingering.get(i);
            if (!s.finished() && (all || now - s.lingerUntil() >= 0)) s.lingerExpired();
            if (s.finished()) lingering.remove(i);
        }
    }

    /**
     * Cancels everything still armed (the connections cancelled theirs when they closed) and reaps until all completed.
     */
    @Override
    public void shutdown() {
        if (uring == null) return;
        try {
            checkLingering(true);
            io.sqe().prepCancel(0, 0, Sqe.ASYNC_CANCEL_ALL | Sqe.ASYNC_CANCEL_ANY)
                    .userData(UserData.of(UserData.STOP, 0));
            long deadline = System.nanoTime() + STOP_DRAIN_NANOS;
            while (io.inFlight() > 0 && System.nanoTime() < deadline) {
                uring.submit(1, 50_000_000L);
                reap();
            }
        } catch (ErrnoException | RuntimeException e) {
            ServerLoop.LOG.log(Level.ERROR, "server loop " + loop.index() + ": stopping the ring failed", e);
        }
        if (io.inFlight() > 0) {
            ServerLoop.LOG.log(Level.ERROR, "server loop {0}: {1} io_uring operations did not complete: their memory is"
                    + " kept", loop.index(), io.inFlight());
            uring = null; // not freed: the kernel may still use it
            return;
        }
        buffers.close();
        uring.close();
    }

    @Override
    public void trim(int keep) { io.areas.trim(keep); }

    @Override
    public void close() {
        // Freed by shutdown() on the loop thread once every operation completed; a loop that failed
        // to start may have made part of it.
        if (uring != null && (io == null || io.inFlight() == 0)) {
            if (buffers != null) buffers.close();
            if (io != null) io.areas.close();
            uring.close();
        }
    }
}
