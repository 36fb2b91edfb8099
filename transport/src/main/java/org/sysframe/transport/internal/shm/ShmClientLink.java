package org.sysframe.transport.internal.shm;

import org.sysframe.transport.WaitMode;
import org.sysframe.transport.internal.io.InPlaceSink;
import org.sysframe.transport.internal.io.InPlaceSource;
import org.sysframe.transport.internal.io.Waiter;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.EventFd;
import org.sysframe.unix.Futex;
import org.sysframe.unix.IovArray;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

/**
 * A client's byte path over a shared segment: a message is written in place into the request ring
 * ({@link InPlaceSink}: its payload copied once) and read in place from the answer ring
 * ({@link InPlaceSource}: the caller copies its payload once, out of the ring), and neither makes a
 * syscall unless a side sleeps: the client's sleep is a futex wait on the ring's sleeping word (in
 * slices of {@value #SLICE_MILLIS} ms), which the server wakes; the server's loop sleeps in its epoll
 * set, which the client wakes with a write to the channel's eventfd; each side wakes the other only
 * when the ring's word says it sleeps. The socket carries no data any more: a look at it
 * ({@code recv(MSG_PEEK | MSG_DONTWAIT)}, counted) after each sleep slice that brought nothing, and
 * every {@value #LOOK_MILLIS} ms of one wait while spinning (the clock read every
 * {@value #SPINS_PER_LOOK} empty looks: a call answered sooner costs none), says whether the server is
 * gone (EOF).
 * A full request ring is back-pressure: the send waits for room within the send timeout, then fails
 * with ETIMEDOUT. A virtual thread never waits in a futex (it would pin its carrier): its sleep is a
 * park of at most {@value #VIRTUAL_NAP_NANOS} ns, then a look. One thread at a time; nothing
 * allocated per call.
 */
public final class ShmClientLink implements InPlaceSource, InPlaceSink {
    static final long SLICE_MILLIS = 20;
    /** A virtual thread's sleep: a park of at most this long (a futex wait would pin its carrier), then a look. */
    static final long VIRTUAL_NAP_NANOS = 50_000;
    private static final long SLICE_NANOS = SLICE_MILLIS * 1_000_000L;
    static final int SPINS_PER_LOOK = 1024;
    static final long LOOK_MILLIS = 50;
    private static final long LOOK_NANOS = LOOK_MILLIS * 1_000_000L;
    private static final int MSG_PEEK = 0x2;

    private final ShmSegment segment;
    private final ShmRing out;
    private final ShmRing in;
    private final UnixSocket socket;
    private final SyscallCounters counters;
    private final long timeoutNanos;
    private final long sendTimeoutMillis;
    private final Arena arena = Arena.ofShared();
    private final Futex futex;
    private final EventFd bell; // the server's loop sleeps in its epoll set: a write here wakes it
    private final MemorySegment peek;
    private final Waiter recvWaiter;
    private final Waiter sendWaiter;
    private final RecvSteps recvSteps = new RecvSteps();
    private final SendSteps sendSteps = new SendSteps();
    private long roomWanted = 1; // the room a send waits for: any, or a whole claim
    private int emptyLooks;
    private long lastLook;   // when the socket was last looked at (or the wait began)
    private boolean eof;
    // The receive in progress.
    private MemorySegment seg;
    private long off, len, result;

    public ShmClientLink(ShmSegment segment, EventFd bell, UnixSocket socket, WaitMode mode, long timeoutMillis,
            long sendTimeoutMillis) {
        this.segment = segment;
        this.bell = bell;
        this.out = segment.requests();
        this.in = segment.answers();
        this.socket = socket;
        this.counters = socket.counters();
        this.timeoutNanos = timeoutMillis * 1_000_000L;
        this.sendTimeoutMillis = sendTimeoutMillis;
        this.futex = new Futex(counters, arena);
        this.peek = arena.allocate(1);
        this.recvWaiter = new Waiter(mode, counters, Waiter.Looks.MEMORY);
        this.sendWaiter = new Waiter(mode, counters, Waiter.Looks.MEMORY);
        in.consumerNeverSleeps(!mode.blocks()); // spin, yield
        out.producerNeverSleeps(!mode.blocks());
    }

    /** The segment (tests write into it as a hostile server would). */
    public ShmSegment segment() { return segment; }

    // ---------------------------------------------------------------- sending

    @Override
    public long sendUntilFull(MemorySegment src, long srcOff, long n) throws ErrnoException {
        long done = 0;
        long deadline = 0;
        while (true) {
            done += out.put(src, srcOff + done, n - done);
            if (out.publish()) bell.signal();
            if (done == n) return n;
            if (deadline == 0) deadline = sendDeadline();
            awaitRoom(deadline, done, n);
        }
    }

    @Override
    public long sendmsg(IovArray iov) throws ErrnoException {
        long total = iov.remaining();
        long done = 0;
        long deadline = 0;
        while (true) {
            done += out.put(iov, done, total - done);
            if (out.publish()) bell.signal();
            if (done == total) return total;
            if (deadline == 0) deadline = sendDeadline();
            awaitRoom(deadline, done, total);
        }
    }

    @Override
    public long claimLimit() { return out.capacity(); }

    @Override
    public MemorySegment memory() { return out.memory(); }

    @Override
    public long claim(long n) throws ErrnoException {
        long at = out.claim(n);
        if (at >= 0) return at;
        long deadline = sendDeadline();
        roomWanted = n;
        try {
            do {
                awaitRoom(deadline, 0, n);
            } while ((at = out.claim(n)) < 0);
        } finally {
            roomWanted = 1;
        }
        return at;
    }

    @Override
    public void commit(long n) throws ErrnoException {
        out.commit(n);
        if (out.publish()) bell.signal();
    }

    private long sendDeadline() {
        return System.nanoTime() + (sendTimeoutMillis == 0 ? Long.MAX_VALUE / 2 : sendTimeoutMillis * 1_000_000L);
    }

    /**
     * Waits for room in the request ring until deadline: ETIMEDOUT naming what was taken, EPIPE when the server is
     * gone.
     */
    private void awaitRoom(long deadline, long sent, long total) throws ErrnoException {
        long now = System.nanoTime();
        emptyLooks = 0;
        lastLook = 0;
        if (deadline - now <= 0 || sendWaiter.await(sendSteps, now, deadline - now) == 0) {
            throw new ErrnoException("send(" + socket.name() + ", shared memory)", Errno.ETIMEDOUT, "the server took "
                    + sent + " of " + total
                    + " bytes within the send timeout of " + sendTimeoutMillis + " ms (it does not read)");
        }
        if (eof) throw new ErrnoException("send(" + socket.name() + ", shared memory)", Errno.EPIPE,
                "the server closed the connection");
    }

    // ---------------------------------------------------------------- receiving

    @Override
    public long recv(MemorySegment dst, long dstOff, long n) throws ErrnoException {
        if (timeoutNanos <= 0) return receive(dst, dstOff, n, 0, Waiter.NO_BOUND);
        // the wait's first clock reading starts the timeout
        return receive(dst, dstOff, n, Waiter.UNSTARTED, timeoutNanos);
    }

    @Override
    public long recvBy(MemorySegment dst, long dstOff, long n, long deadline, long now) throws ErrnoException {
        long end = timeoutNanos > 0 && now + timeoutNanos - deadline < 0 ? now + timeoutNanos : deadline;
        return receive(dst, dstOff, n, now, Math.max(0, end - now));
    }

    @Override
    public long tryRecv(MemorySegment dst, long dstOff, long n) throws ErrnoException {
        long got = take(dst, dstOff, n);
        return got > 0 ? got : UnixSocket.WOULD_BLOCK;
    }

    @Override
    public long readLimit() { return in.capacity(); }

    @Override
    public long readAt() { return in.readAt(); }

    @Override
    public void release(long n) throws ErrnoException {
        in.release(n);
        if (in.producerWaits()) bell.signal();
    }

    @Override
    public long more(long have) throws ErrnoException { return recv(null, 0, have); }

    @Override
    public long moreBy(long have, long deadline, long now) throws ErrnoException {
        return recvBy(null, 0, have, deadline, now);
    }

    @Override
    public long tryMore(long have) throws ErrnoException {
        long got = look(null, 0, have);
        return got > 0 ? got : UnixSocket.WOULD_BLOCK;
    }

    /**
     * One look at the answer ring: a receive's copy out of it (at most n bytes into dst at dstOff), or, in place
     * (dst null), how many bytes are there beyond the n the reader has.
     */
    private long look(MemorySegment dst, long dstOff, long n) throws ErrnoException {
        if (dst != null) return take(dst, dstOff, n);
        return in.availableBeyond(n);
    }

    private long receive(MemorySegment dst, long dstOff, long n, long start, long nanos) throws ErrnoException {
        if (eof) return 0;
        emptyLooks = 0;
        lastLook = 0;
        seg = dst;
        off = dstOff;
        len = n;
        result = UnixSocket.WOULD_BLOCK;
        try {
            recvWaiter.await(recvSteps, start, nanos);
            return result;
        } finally {
            seg = null;
        }
    }

    private long take(MemorySegment dst, long dstOff, long n) throws ErrnoException {
        long got = in.take(dst, dstOff, n);
        if (got > 0 && in.producerWaits()) bell.signal();
        return got;
    }

    /** Whether the server closed the socket (EOF on a peek): remembered once seen. */
    private boolean serverGone() throws ErrnoException {
        if (eof) return true;
        long n;
        try {
            n = socket.recv(peek, 0, 1, MSG_PEEK | UnixSocket.MSG_DONTWAIT);
        } catch (ErrnoException e) {
            if (e.errno() != Errno.ECONNRESET) throw e;
            n = 0;
        }
        if (n == 0) eof = true;
        return eof;
    }

    /**
     * A spinning side's look at the socket: the clock is read every SPINS_PER_LOOK empty looks, and the
     * socket looked at once LOOK_MILLIS passed since the wait began or the last look.
     */
    private boolean goneWhileSpinning() throws ErrnoException {
        if (++emptyLooks < SPINS_PER_LOOK) return false;
        emptyLooks = 0;
        long now = System.nanoTime();
        if (lastLook == 0) {
            lastLook = now;
            return false;
        }
        if (now - lastLook < LOOK_NANOS) return false;
        lastLook = now;
        return serverGone();
    }

    private final class RecvSteps implements Waiter.Steps {
        @Override
        public int poll() throws ErrnoException {
            long got = look(seg, off, len);
            if (got > 0) {
                result = got;
                return 1;
            }
            if (goneWhileSpinning()) {
                result = 0;
                return 1;
            }
            return 0;
        }

        @Override
        public int block(long nanos) throws ErrnoException {
            if (nanos == 0) return poll();
            if (Thread.currentThread().isVirtual()) {
                LockSupport.parkNanos(nanos < 0 ? VIRTUAL_NAP_NANOS : Math.min(nanos, VIRTUAL_NAP_NANOS));
            } else if (in.consumerSleeps() <= (seg == null ? len : 0)) {
                futex.await(in.memory(), in.consumerWord(), 1, nanos < 0 ? SLICE_NANOS : Math.min(nanos, SLICE_NANOS));
            }
            in.consumerAwake();
            long got = look(seg, off, len);
            if (got > 0) {
                result = got;
                return 1;
            }
            if (serverGone()) {
                result = 0;
                return 1;
            }
            return 0;
        }
    }

    private final class SendSteps implements Waiter.Steps {
        @Override
        public int poll() throws ErrnoException {
            if (out.room() >= roomWanted) return 1;
            return goneWhileSpinning() ? 1 : 0;
        }

        @Override
        public int block(long nanos) throws ErrnoException {
            if (nanos == 0) return poll();
            if (Thread.currentThread().isVirtual()) {
                LockSupport.parkNanos(nanos < 0 ? VIRTUAL_NAP_NANOS : Math.min(nanos, VIRTUAL_NAP_NANOS));
            } else if (out.producerSleeps() < roomWanted) {
                futex.await(out.memory(), out.producerWord(), 1, nanos < 0 ? SLICE_NANOS
                        : Math.min(nanos, SLICE_NANOS));
            }
            out.producerAwake();
            if (out.room() >= roomWanted) return 1;
            return serverGone() ? 1 : 0;
        }
    }

    @Override
    public SyscallCounters counters() { return counters; }

    @Override
    public String name() { return socket.name(); }

    /** Unmaps the segment, closes the eventfd and frees the link's memory (not the socket). */
    @Override
    public void close() {
        segment.close();
        bell.close();
        if (arena.scope().isAlive()) arena.close();
    }
}
