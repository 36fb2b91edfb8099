package org.sysframe.transport.internal.uring;

import org.sysframe.transport.ServerConfig;
import org.sysframe.transport.internal.io.Waiter;
import org.sysframe.transport.internal.server.Acceptor;
import org.sysframe.transport.internal.server.Routes;
import org.sysframe.transport.internal.server.ServerConnection;
import org.sysframe.transport.internal.server.ServerLimits;
import org.sysframe.transport.internal.server.ServerLoop;

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
 * The io_uring I/O driver of one event-loop thread. One turn is one io_uring_enter that submits every
 * SQE prepared since the last one (the answers of the previous turn, re-armed receives, cancels) and
 * waits for at least one completion; then every completion ready is handled (new connections from the
 * multishot ACCEPT of loop 0, received bytes from the multishot RECVs, finished SENDs, the task
 * queue's wake-up seen by a multishot POLL_ADD), then the connections with requests left and the
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
 * <p>Counting: the loop's {@code SyscallCounters} count every io_uring_enter (and the task queue's
 * recv); SQEs by opcode and CQEs are in {@link #uringCounters()}. A connection's own counters see no
 * enter (one enter serves every connection of the turn): the loop total is the truth.
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
public final class UringLoop extends ServerLoop<UringSocket> implements UringSocket.Host {
    static final int BUFFERS = 256;
    /** Completions handled per turn at most: the turn's other work (backlog, batches) must come too. */
    private static final int REAP_BOUND = 1024;
    static final int BUFFER_SIZE = 16 * 1024;
    private static final long STOP_DRAIN_NANOS = 5_000_000_000L;
    /** Bound of a wait that counts on SENDs completing in it: a guard, never reached when they do. */
    private static final long SAFETY_NANOS = 5_000_000_000L;

    private final UringCounters uringCounters = new UringCounters();
    private final boolean spins;
    private final Waiter waiter;
    private final Steps steps = new Steps();
    /** Completions a sleep of this turn waits for: the SENDs submitted with it and one more (see turn()). */
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

    public UringLoop(int index, ServerConfig config, Routes routes, ServerLimits limits) throws ErrnoException {
        super(index, config, routes, limits);
        this.waiter = new Waiter(config.waitMode(), counters);
        this.spins = waiter.spins();
    }

    public UringCounters uringCounters() { return uringCounters; }

    /** Buffers of the ring held by completions and not recycled (loop thread; 0 between turns). */
    public int buffersOutstanding() { return buffers == null ? 0 : buffers.outstanding(); }

    @Override
    protected void watch() throws ErrnoException {
        // Spinning: COOP_TASKRUN | TASKRUN_FLAG, so that the kernel flags a completion to post instead of
        // interrupting the spinning thread for it (an IPI each: p50 ~28 us a round trip against ~11 us,
        // measured with the client's spin); the spin runs the flagged work with one io_uring_enter.
        int flags = IoUring.SETUP_SINGLE_ISSUER
                | (spins ? IoUring.SETUP_COOP_TASKRUN | IoUring.SETUP_TASKRUN_FLAG : IoUring.SETUP_DEFER_TASKRUN);
        uring = new IoUring(config.uringEntries(), config.uringCompletions(), flags, counters, uringCounters);
        uring.registerRingFd();
        buffers = new BufferRing(uring, index, BUFFERS, BUFFER_SIZE);
        io = new UringRing(uring, buffers, this);
        armWake();
    }

    private void armWake() {
        io.sqe().prepPollAdd(tasks.wakeFd(), Sqe.POLLIN, true).userData(UserData.of(UserData.WAKE, 0));
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
        if (!pause && !acceptArmed && running) armAccept();
    }

    @Override
    protected void turn() throws ErrnoException {
        if (acceptor != null) acceptor.retryIfDue();
        boolean poll = hasBacklog() || !writableSoon.isEmpty() || !pumpSoon.isEmpty();
        long limit = listenerPaused || !lingering.isEmpty() ? 100_000_000L : 0;
        if (!lingering.isEmpty()) checkLingering(false);
        long timer = timerWaitNanos();
        if (timer >= 0) limit = limit == 0 ? timer : Math.min(limit, timer);
        // The SENDs submitted now complete within this enter (MSG_DONTWAIT): wait for them and, when
        // nothing more is due after them (no connection waits for room to send more), the next arrival.
        int sendsPrepared = io.takeSendsPrepared();
        waitFor = spins ? 1 : Math.max(1, Math.min(sendsPrepared + (io.anyWaitingForRoom() ? 0 : 1), uring.cqEntries()));
        waiter.once(steps, poll ? 0 : limit == 0 ? Waiter.NO_BOUND : limit);
        startOfTurn();
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
        endOfTurn();
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
                    if (running) armWake();
                }
                tasks.runAll();
            }
            case UserData.ACCEPT -> {
                if (!more) {
                    io.lastCompletion();
                    acceptArmed = false;
                }
                if (res >= 0) {
                    if (running) acceptor.accepted(res);
                    else new UnixSocket(res, "late", counters).close();
                } else if (res != -org.sysframe.unix.Errno.ECANCELED && running) {
                    // Once the loop stops, the listener is closed under the ACCEPT: its EBADF is the stop, not news.
                    acceptor.acceptFailed(new ErrnoException("accept", -res));
                }
                if (!acceptArmed && !listenerPaused && running) armAccept();
            }
            case UserData.STOP -> io.lastCompletion();
            case UserData.SEND_SHORT -> { } // the linked NOP of a short SEND: only here to end the wait
            default -> {
                UringSocket s = table.get(UserData.data(ud));
                if (s != null) {
                    s.complete(kind, res, flags);
                } else {
                    // Cannot happen: a socket stays in the table until its last completion. Keep the books right anyway.
                    if (!more) io.lastCompletion();
                    if ((flags & Cqe.F_BUFFER) != 0) {
                        buffers.taken(flags >>> 16);
                        buffers.recycle(flags >>> 16);
                    }
                    LOG.log(Level.ERROR, "completion of kind {0} for an unknown connection", kind);
                }
            }
        }
    }

    /**
     * A backlogged connection had its turn: bytes it held back are given to it next turn, so that a
     * connection has at most two request budgets per turn, as with epoll (what arrived, what was left).
     */
    @Override
    protected void continued(ServerConnection c) {
        UringSocket s = table.get(c.tag);
        if (s != null && !c.isClosed()) pumpSoon.add(s);
    }

    @Override
    protected UringSocket newSocket(UnixSocket s, long tag) { return new UringSocket(s, tag, io); }

    @Override
    protected void attach(UringSocket s, ServerConnection c) { s.attach(c); }

    @Override
    protected void watchConnection(UringSocket s) { s.armReceive(); }

    @Override
    protected void forget(ServerConnection c) {
        // The socket leaves the table with its last completion (finished), not before.
    }

    @Override
    public void writableSoon(UringSocket s) { writableSoon.add(s); }

    @Override
    public void finished(UringSocket s) { table.remove(s.tag()); }

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

    /** Cancels everything still armed (the connections cancelled theirs when they closed) and reaps until all completed. */
    @Override
    protected void shutdown() {
        if (uring == null) return;
        try {
            checkLingering(true);
            io.sqe().prepCancel(0, 0, Sqe.ASYNC_CANCEL_ALL | Sqe.ASYNC_CANCEL_ANY).userData(UserData.of(UserData.STOP, 0));
            long deadline = System.nanoTime() + STOP_DRAIN_NANOS;
            while (io.inFlight() > 0 && System.nanoTime() < deadline) {
                uring.submit(1, 50_000_000L);
                reap();
            }
        } catch (ErrnoException | RuntimeException e) {
            LOG.log(Level.ERROR, "server loop " + index + ": stopping the ring failed", e);
        }
        if (io.inFlight() > 0) {
            LOG.log(Level.ERROR, "server loop {0}: {1} io_uring operations did not complete: their memory is kept", index, io.inFlight());
            uring = null; // not freed: the kernel may still use it
            return;
        }
        buffers.close();
        uring.close();
    }

    @Override
    protected void trimPools(int keep) {
        super.trimPools(keep);
        io.areas.trim(keep);
    }

    @Override
    protected void closeDriver() {
        // Freed by shutdown() on the loop thread once every operation completed; a loop that failed
        // to start may have made part of it.
        if (uring != null && (io == null || io.inFlight() == 0)) {
            if (buffers != null) buffers.close();
            if (io != null) io.areas.close();
            uring.close();
        }
    }
}
