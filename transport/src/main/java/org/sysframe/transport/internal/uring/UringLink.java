package org.sysframe.transport.internal.uring;

import org.sysframe.transport.WaitMode;
import org.sysframe.transport.internal.io.FdPoller;
import org.sysframe.transport.internal.io.ClientLink;
import org.sysframe.transport.internal.io.Waiter;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.IovArray;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;
import org.sysframe.unix.internal.uring.Cqe;
import org.sysframe.unix.internal.uring.IoUring;
import org.sysframe.unix.internal.uring.Sqe;
import org.sysframe.unix.uring.UringCounters;
import org.sysframe.unix.uring.UringCounts;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The io_uring backend's client path. A send is queued as a SEND (or SENDMSG) SQE on the socket,
 * registered as fixed file 0, and costs nothing yet; the receive that waits for the answer is a RECV
 * SQE, and one io_uring_enter submits both and waits for both completions. Sends queued back to back
 * are linked (IOSQE_IO_LINK), so they reach the socket in order; they carry UnixSocket.MSG_WAITALL, so a short
 * send means the peer went away.
 *
 * <p>Waiting, through the transport's one {@link Waiter}: {@link WaitMode.Kind#BLOCK} waits inside
 * io_uring_enter for the send and receive completions together: one io_uring_enter per round trip.
 * The spinning modes submit without waiting and then look at the CQ tail and the ring's task-work flag
 * from user space: when the kernel flags work queued for this thread (the answer arrived), one more
 * io_uring_enter runs it and posts the completion, so a spinning round trip costs one or two enters
 * and no empty syscall; sched_yield after each empty look for YIELD, and one waiting enter once the
 * spin budget of SPIN_THEN_BLOCK passed. The receive timeout bounds the whole wait. The ring is
 * SINGLE_ISSUER without DEFER_TASKRUN, so the kernel posts completions as they happen (see the
 * constructor for why not DEFER_TASKRUN). SQPOLL (an option) lets a kernel thread take the SQEs, so
 * that a spinning client makes no syscall per call; it burns a core of its own.
 *
 * <p>One thread at a time (the client's I/O role moves from thread to thread): the ring is not
 * SINGLE_ISSUER, its fd is not registered (a registration belongs to one thread), and it is not
 * COOP_TASKRUN (the kernel must post a completion whatever the thread that submitted does once it left
 * the role); each thread waits for every completion of what it submitted before it leaves.
 *
 * <p>A receive timeout cancels the receive (ASYNC_CANCEL) and waits for it to end before returning, so
 * the kernel never writes into the buffer afterwards. Owner thread only; nothing allocated per call.
 *
 * <p>On a virtual thread no wait happens inside io_uring_enter, which
 * would pin the carrier (JEP 425): io_uring_enter only submits (no GETEVENTS), and the thread parks in
 * the JVM's {@link FdPoller} on the ring's fd, which is readable when completions are in the CQ; the
 * CQ is then read from user space. A call costs exactly one io_uring_enter (plus the poller's
 * epoll_ctl pair when it had to wait). Such a thread may run on another carrier after each park. A receive the kernel
 * cancelled because the carrier that submitted it exited is submitted again. An interrupt ends the wait with EINTR, the
 * receive cancelled first.
 */
public final class UringLink implements ClientLink {
    private static final long RECV = UserData.of(UserData.RECV, 0);
    private static final long CANCEL = UserData.of(UserData.CANCEL, 0);
    private static final int FIXED = 0;          // the socket's index among the registered files

    private final UnixSocket socket;
    private final WaitMode mode;
    private final long timeoutNanos;
    private final long sendTimeoutMillis;
    private final UringCounters uringCounters = new UringCounters();
    private final IoUring ring;
    private final Waiter waiter;
    private final Waiter blocking; // a non-waiting receive (tryRecv) still waits for its completion
    private final Steps steps = new Steps();
    private int sendsInFlight;     // SEND/SENDMSG SQEs prepared whose completion has not been seen
    private boolean lastIsSend;    // the SQE prepared last is a send, not submitted yet
    private boolean recvDone = true; // no receive in flight
    private int recvResult;
    private int sendErrno;         // the first failed send since the last check
    private long sendShortBy;

    public UringLink(UnixSocket socket, WaitMode mode, long timeoutMillis, long sendTimeoutMillis,
            boolean sqpoll) throws ErrnoException {
        this.socket = socket;
        this.mode = mode;
        this.timeoutNanos = timeoutMillis * 1_000_000L;
        this.sendTimeoutMillis = sendTimeoutMillis;
        // Not DEFER_TASKRUN: with it, a wait for the send's and the receive's completions together does
        // not wake for a send that the kernel must retry in parts (its retry is deferred work that the
        // waiter only runs once as many items are queued as it waits for): a send larger than the
        // socket buffer then stalls (seen on 6.18 with SO_SNDBUF 4096 and 20,000 bytes).
        // Not COOP_TASKRUN | TASKRUN_FLAG either, though a spinner gains by them (the kernel flags the work
        // instead of interrupting the spinner: docs/results.md):
        // the work would wait for the thread that submitted, which may have left the role and parked.
        int flags = sqpoll ? IoUring.SETUP_SQPOLL : 0;
        this.ring = new IoUring(64, 0, flags, socket.counters(), uringCounters);
        this.waiter = new Waiter(mode, socket.counters(), Waiter.Looks.MOSTLY_MEMORY);
        this.blocking = new Waiter(WaitMode.BLOCK, socket.counters(), Waiter.Looks.MOSTLY_MEMORY);
        try {
            ring.registerFiles(socket.fd());
        } catch (ErrnoException e) {
            ring.close();
            throw e;
        }
    }

    private static long address(MemorySegment seg, long off, long len) {
        Objects.checkFromIndexSize(off, len, seg.byteSize());
        if (!seg.isNative()) throw new IllegalArgumentException("a heap segment cannot be handed to the kernel");
        return seg.address() + off;
    }

    private Sqe nextSend() throws ErrnoException {
        if (sendsInFlight > 0 && ring.pending() == 0) {
            // The previous sends went out already: they cannot be linked to any more, so let them finish first.
            flush();
        }
        if (lastIsSend) ring.flagLast(Sqe.IO_LINK);
        lastIsSend = true;
        sendsInFlight++;
        return ring.nextSqe();
    }

    @Override
    public long sendUntilFull(MemorySegment seg, long off, long len) throws ErrnoException {
        long addr = address(seg, off, len);
        nextSend().prepSend(FIXED, addr, (int) len, UnixSocket.MSG_NOSIGNAL | UnixSocket.MSG_WAITALL)
                .flags(Sqe.FIXED_FILE).userData(UserData.of(UserData.SEND, len));
        return len;
    }

    @Override
    public long sendmsg(IovArray iov) throws ErrnoException {
        long len = iov.remaining();
        nextSend().prepSendmsg(FIXED, iov.pendingMsghdr().address(), UnixSocket.MSG_NOSIGNAL | UnixSocket.MSG_WAITALL)
                .flags(Sqe.FIXED_FILE).userData(UserData.of(UserData.SEND, len));
        return len;
    }

    @Override
    public long recv(MemorySegment seg, long off, long len) throws ErrnoException {
        return receive(seg, off, len, 0, true, 0, 0);
    }

    @Override
    public long recvBy(MemorySegment seg, long off, long len, long deadline, long now) throws ErrnoException {
        return receive(seg, off, len, 0, true, deadline, now);
    }

    @Override
    public long tryRecv(MemorySegment seg, long off, long len) throws ErrnoException {
        return receive(seg, off, len, UnixSocket.MSG_DONTWAIT, false, 0, 0);
    }

    private long receive(MemorySegment seg, long off, long len, int flags, boolean wait, long deadline,
            long now) throws ErrnoException {
        long addr = address(seg, off, len);
        lastIsSend = false;
        ring.nextSqe().prepRecv(FIXED, addr, (int) len, flags).flags(Sqe.FIXED_FILE).userData(RECV);
        recvDone = false;
        boolean done = awaitCompletions(wait && mode.kind() != WaitMode.Kind.BLOCK, deadline, now);
        while (done && Thread.currentThread().isVirtual() && recvResult == -Errno.ECANCELED) {
            // Not ours: the carrier that submitted it exited (the kernel cancels a thread's requests then). Again.
            ring.nextSqe().prepRecv(FIXED, addr, (int) len, flags).flags(Sqe.FIXED_FILE).userData(RECV);
            recvDone = false;
            done = awaitCompletions(wait && mode.kind() != WaitMode.Kind.BLOCK, deadline, System.nanoTime());
        }
        checkSends();
        if (!done && sendsInFlight > 0 && !recvDone && !endedAtDeadline(deadline, now)) {
            // The request never left in full within the receive timeout: the server does not read. Its answer cannot
            // come.
            cancelReceive();
            throw cancelSends(timeoutNanos / 1_000_000L);
        }
        // Sends still in flight stay so (an answer came first, or the caller's own deadline ended the wait): the next
        // receive, send or flush waits for them, within the send timeout.
        if (!done && !recvDone) return cancelReceive();
        if (recvResult == -Errno.EAGAIN && !wait) return UnixSocket.WOULD_BLOCK;
        if (recvResult < 0) throw new ErrnoException("recv(" + socket.name() + ")", -recvResult);
        return recvResult;
    }

    /** Whether a wait begun at now ended at the caller's deadline, sooner than the receive timeout. */
    private boolean endedAtDeadline(long deadline, long now) {
        return deadline != 0 && (timeoutNanos == 0 || deadline - now < timeoutNanos);
    }

    /**
     * Until the receive and every send completed: true, or false when the receive timeout (or the
     * deadline, a System.nanoTime() instant when not 0; now: the caller's reading) expired first.
     * The spinning modes submit first without waiting, then the waiter looks at the CQ from user space.
     */
    private boolean awaitCompletions(boolean spin, long deadline, long now) throws ErrnoException {
        long start = deadline != 0 ? now : timeoutNanos > 0 || mode.kind() == WaitMode.Kind.SPIN_THEN_BLOCK
                ? System.nanoTime() : 0;
        // How long this wait may last from start: the receive timeout, or less to end by the deadline.
        long limit = timeoutNanos;
        if (deadline != 0 && (limit == 0 || deadline - start < limit)) limit = Math.max(1, deadline - start);
        boolean virtual = Thread.currentThread().isVirtual();
        if (spin || virtual) ring.submit(0, 0);
        Waiter w = spin ? waiter : blocking;
        if (!virtual) return w.await(steps, start, limit == 0 ? Waiter.NO_BOUND : limit) > 0;
        if (start == 0) start = System.nanoTime();
        try {
            return w.await(steps, start, limit == 0 ? Waiter.NO_BOUND : limit) > 0;
        } catch (ErrnoException e) {
            if (e.errno() != Errno.EINTR || recvDone) throw e;
            cancelReceive(); // the kernel must not write into the buffer once the caller has its error
            throw e;
        }
    }

    private boolean done() { return recvDone && sendsInFlight == 0; }

    /**
     * The waiter's steps on the ring: a look reads the CQ (running the work the kernel flagged first); a sleep is a
     * waiting enter.
     */
    private final class Steps implements Waiter.Steps {
        @Override
        public int poll() throws ErrnoException {
            if (ring.taskWorkPending()) ring.runTaskWork();
            reap();
            return done() ? 1 : 0;
        }

        @Override
        public int block(long nanos) throws ErrnoException {
            if (Thread.currentThread().isVirtual()) {
                reap();
                if (done()) return 1;
                if (nanos == 0) return 0;
                parkUntilCompletion(nanos == Waiter.NO_BOUND ? Long.MAX_VALUE : nanos, true);
                reap();
                return done() ? 1 : 0;
            }
            ring.submit((recvDone ? 0 : 1) + sendsInFlight, nanos == Waiter.NO_BOUND ? 0 : Math.max(1, nanos));
            reap();
            return done() ? 1 : 0;
        }
    }

    /**
     * A virtual thread's wait for completions: submits what is prepared (without waiting), and parks in
     * the JVM's poller until the CQ holds a completion or nanos passed; the caller reaps. With
     * interruptible, an interrupt ends it with EINTR; without, the interrupt status is kept for later
     * and the wait goes on (a cancellation's completion must be waited for).
     */
    private void parkUntilCompletion(long nanos, boolean interruptible) throws ErrnoException {
        if (ring.pending() > 0) ring.submit(0, 0);
        if (ring.ready() > 0) return;
        long now = System.nanoTime();
        long deadline = nanos == Long.MAX_VALUE || now + nanos < now ? Long.MAX_VALUE : now + nanos;
        boolean wasInterrupted = !interruptible && Thread.interrupted();
        try {
            FdPoller.get().await(ring.fd(), FdPoller.READABLE, deadline);
        } finally {
            if (wasInterrupted) Thread.currentThread().interrupt();
        }
        if (interruptible && Thread.currentThread().isInterrupted()) {
            throw new ErrnoException("recv(" + socket.name() + ")", Errno.EINTR, "the waiting thread was interrupted");
        }
    }

    /**
     * io_uring_enter that submits and waits for min completions up to nanos (0: no limit); on a virtual thread a park
     * instead.
     */
    private void submitAndWait(int min, long nanos) throws ErrnoException {
        if (!Thread.currentThread().isVirtual()) {
            ring.submit(min, nanos);
            return;
        }
        parkUntilCompletion(nanos == 0 ? Long.MAX_VALUE : nanos, false);
    }

    private void reap() throws ErrnoException {
        for (Cqe c; (c = ring.peek()) != null; ring.advance()) {
            long ud = c.userData();
            int res = c.res();
            int kind = UserData.kind(ud);
            if (kind == UserData.SEND) {
                sendsInFlight--;
                long expected = UserData.data(ud);
                if (res != expected && sendErrno == 0) {
                    sendErrno = res < 0 ? -res : Errno.ECONNRESET;
                    sendShortBy = res < 0 ? 0 : expected - res;
                }
            } else if (kind == UserData.RECV) {
                recvDone = true;
                recvResult = res;
            }
        }
    }

    private void checkSends() throws ErrnoException {
        if (sendErrno == 0) return;
        int err = sendErrno;
        long shortBy = sendShortBy;
        sendErrno = 0;
        throw new ErrnoException("send(" + socket.name() + ")", err,
                shortBy > 0 ? "the peer took all but " + shortBy + " bytes and went away" : "io_uring SEND failed");
    }

    /** Cancels the receive in flight and waits until it ended; WOULD_BLOCK (the timeout expired). */
    private long cancelReceive() throws ErrnoException {
        ring.nextSqe().prepCancel(RECV, 0, 0).userData(CANCEL);
        while (!recvDone) {
            submitAndWait(1, 0);
            reap();
        }
        return recvResult > 0 ? recvResult : UnixSocket.WOULD_BLOCK;
    }

    /** Submits the sends prepared and waits until they completed, at most the send timeout (then ETIMEDOUT). */
    @Override
    public void flush() throws ErrnoException {
        lastIsSend = false;
        long limit = sendTimeoutMillis * 1_000_000L, start = limit > 0 ? System.nanoTime() : 0;
        while (sendsInFlight > 0) {
            long left = limit == 0 ? 0 : limit - (System.nanoTime() - start);
            if (limit > 0 && left <= 0) throw cancelSends(sendTimeoutMillis);
            submitAndWait(sendsInFlight, left);
            reap();
        }
        checkSends();
    }

    /**
     * Cancels every send still in flight (nothing else is: the receive was ended first) and waits for
     * them, at most a second; the send timeout's error (the client is then broken: part of a request
     * may have left).
     */
    private ErrnoException cancelSends(long waitedMillis) throws ErrnoException {
        ring.nextSqe().prepCancel(0, 0, Sqe.ASYNC_CANCEL_ALL | Sqe.ASYNC_CANCEL_ANY).userData(CANCEL);
        long end = System.nanoTime() + 1_000_000_000L;
        while (sendsInFlight > 0 && System.nanoTime() - end < 0) {
            submitAndWait(1, 100_000_000L);
            reap();
        }
        sendErrno = 0;
        return new ErrnoException("send(" + socket.name() + ")", Errno.ETIMEDOUT,
                "the server did not take the request's bytes within " + waitedMillis + " ms (it does not read)");
    }

    @Override
    public UringCounts uringCounts() { return uringCounters.snapshot(); }

    @Override
    public SyscallCounters counters() { return socket.counters(); }

    @Override
    public String name() { return socket.name(); }

    @Override
    public int readableFd() { return socket.fd(); }

    /**
     * Frees the ring. A receive still in flight (the client failed out of step, e.g. a send error seen
     * while it waited) is cancelled and waited for first, at most a second: the kernel must not write
     * into the client's buffer once it is freed.
     */
    @Override
    public void close() {
        try {
            if (!recvDone) {
                ring.nextSqe().prepCancel(RECV, 0, 0).userData(CANCEL);
                long deadline = System.nanoTime() + 1_000_000_000L;
                while (!recvDone && System.nanoTime() < deadline) {
                    submitAndWait(1, 100_000_000L);
                    reap();
                }
            }
        } catch (ErrnoException e) {
            // closing anyway: the ring's own teardown cancels what is left
        }
        ring.close();
    }
}
