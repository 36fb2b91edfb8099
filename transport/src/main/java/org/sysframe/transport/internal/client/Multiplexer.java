package org.sysframe.transport.internal.client;

import org.sysframe.unix.Epoll;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.EventFd;
import org.sysframe.unix.Self;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.SyscallCounts;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The client's own thread for a pool of epoll connections ({@code ClientOptions.connections} over 1):
 * one platform daemon, {@code sysframe-client(<socket>)}, in place of a {@link Standby} thread per
 * connection. It holds the I/O role of every connection whose futures or passengers wait (as a
 * standby does, and leaving it as soon as a caller that may do the I/O waits), and waits for all of
 * them in one level-triggered {@code epoll_wait}: an answer read, it sends what its answer let through
 * before it looks again. Against a server that answers one request per read, with a request in flight
 * on each connection, it rarely sleeps: a wake-up per answer, a context switch each, is what a thread
 * per connection costs (the C load generator over several connections from one thread is the model).
 *
 * <p>A connection's descriptor is in the set only while this thread holds its role (one
 * {@code epoll_ctl} when it takes it, one when it leaves). It is woken through an eventfd in its set,
 * which a thread signals (a {@code write}) only while this one sleeps: a request queued for it, a caller
 * that wants the role, a close; it takes the signals with a {@code read}. Its syscalls count into the
 * client's ({@code counters()}), kinds apart from the connections' sends and receives. A
 * connection's listener of events keeps its standby's thread (which takes the role only idly).
 */
public final class Multiplexer {
    private static final long WAKE_TAG = -1;

    private final String name;
    private final AtomicReferenceArray<Conduit> conduits;
    /** This thread's syscalls and its wake-ups' (any thread's), adding into the client's. */
    private final SyscallCounters counters;
    private final Object startLock = new Object();
    private Epoll epoll;              // the thread's, once started
    private EventFd wakeUp;
    // The thread's own view of the slots: the conduit whose role it holds there, and the descriptor it registered.
    private final Conduit[] held;
    private final int[] heldFd;
    /** Its wake-up's write, for a holder of a connection's lock to make once it let the lock go. */
    private final CallLock.Signal signal = this::signal;
    private Thread thread;            // under startLock
    private volatile int tid;
    private volatile boolean pending; // a wake-up asked for since the thread's turn began
    private volatile boolean sleeping;
    private volatile boolean stopped;

    /** For slots connections of socket name; its syscalls add into counters (the client's). */
    public Multiplexer(String name, int slots, SyscallCounters counters) {
        this.name = name;
        this.conduits = new AtomicReferenceArray<>(slots);
        this.counters = SyscallCounters.summing("client I/O thread (" + name + ")", counters);
        this.held = new Conduit[slots];
        this.heldFd = new int[slots];
    }

    /** Connection slot's conduit from now on (a pool's first, or one connected anew in a broken one's place). */
    public void attach(int slot, Conduit c) {
        c.standby.mux = this;
        conduits.set(slot, c);
        wake();
    }

    /** The thread's Linux thread id (0 before it started). */
    int tid() { return tid; }

    /** This thread's own syscalls (its epoll_wait, its wake-ups' write and read), part of the client's. */
    public SyscallCounts counts() { return counters.snapshot(); }

    /** Starts the thread (once); IllegalStateException when its epoll instance or eventfd cannot be made. */
    void start() {
        synchronized (startLock) {
            if (thread != null || stopped) return;
            try {
                wakeUp = EventFd.open(counters);
                epoll = new Epoll(held.length + 1, counters);
                epoll.add(wakeUp.fd(), Epoll.EPOLLIN, WAKE_TAG);
            } catch (ErrnoException e) {
                throw new IllegalStateException("client(" + name + "): cannot start its I/O thread: " + e.getMessage(),
                        e);
            }
            thread = Thread.ofPlatform().daemon().name("sysframe-client(" + name + ")").unstarted(this::run);
            thread.start();
        }
    }

    /** Any thread: the I/O thread is to look at every connection again (written only while it sleeps). */
    void wake() {
        pending = true;
        if (sleeping) signal();
    }

    /**
     * As {@link #wake()}, from a holder of lock: the write, if the thread sleeps, just after the holder lets the lock
     * go (its waiters do not spin across it). The thread, sleeping, stays asleep until then; awake, it sees pending.
     */
    void wake(CallLock lock) {
        pending = true;
        if (sleeping) lock.signalAfterUnlock(signal);
    }

    private void signal() {
        try {
            wakeUp.signal(); // false once closed: the thread is ending
        } catch (ErrnoException e) {
            throw new IllegalStateException("client(" + name + "): cannot wake its I/O thread: " + e.getMessage(), e);
        }
    }

    /** The client closed: the thread ends once it holds no connection's role. */
    public void stop() {
        stopped = true;
        wake();
    }

    private void run() {
        tid = Self.tid();
        try {
            while (true) {
                pending = false;
                boolean any = false;
                for (int i = 0; i < held.length; i++) any |= turn(i);
                if (stopped && !any) return;
                sleeping = true;
                int n = 0;
                // Holding roles, a look at least every slice (a wake-up is what ends a wait early; the slice bounds
                // what a missed one could cost); holding none, nothing to look at until a wake-up.
                if (!pending) n = epoll.await(any ? (int) Driver.SLICE_MILLIS : -1);
                sleeping = false;
                for (int k = 0; k < n; k++) {
                    long tag = epoll.readyTag(k);
                    if (tag == WAKE_TAG) wakeUp.take();
                    else receive((int) tag);
                }
            }
        } catch (ErrnoException e) {
            for (Conduit c : held) if (c != null) c.failAll(e);
        } finally {
            for (int i = 0; i < held.length; i++) leave(i);
            close();
        }
    }

    /** Slot i's turn: takes or leaves its role as the work says, then sends what waits. Whether it holds the role. */
    private boolean turn(int i) {
        Conduit now = conduits.get(i);
        if (held[i] != null && held[i] != now) leave(i); // replaced: the old one ended
        Conduit c = now;
        if (c == null) return false;
        boolean leave = false;
        c.lock.lock();
        try {
            boolean over = c.closed || c.broken != null;
            boolean wanted = !over && c.standby.hasWork() && c.waiting.firstDriver() == null;
            if (held[i] == null) {
                if (!wanted || c.holder != null) return false;
                c.take(Thread.currentThread(), Conduit.STANDBY);
                held[i] = c;
            } else {
                leave = !wanted;
            }
        } finally {
            c.lock.unlock();
        }
        if (leave) {
            leave(i);
            return false;
        }
        if (heldFd[i] == 0) register(i, c);
        try {
            c.flushQueue();
            c.pump.drainBuffered(c.router);
        } catch (ErrnoException e) {
            c.receiveFailed(e);
        } catch (RuntimeException e) {
            c.receiveCrashed(e);
        }
        return held[i] != null;
    }

    /** Puts slot i's descriptor in the set (fd + 1 kept: 0 is none). */
    private void register(int i, Conduit c) {
        int fd = c.link.readableFd();
        try {
            epoll.add(fd, Epoll.EPOLLIN | Epoll.EPOLLRDHUP, i);
            heldFd[i] = fd + 1;
        } catch (ErrnoException e) {
            c.receiveFailed(e); // closed under it: the connection ended
        }
    }

    /** Leaves slot i's role, its descriptor out of the set (unless it was closed: the kernel took it out). */
    private void leave(int i) {
        Conduit c = held[i];
        if (c == null) return;
        if (heldFd[i] != 0) {
            if (c.link.readableFd() == heldFd[i] - 1) {
                try {
                    epoll.remove(heldFd[i] - 1);
                } catch (ErrnoException gone) {
                    // closed meanwhile: no longer in the set
                }
            }
            heldFd[i] = 0;
        }
        held[i] = null;
        c.release();
    }

    /**
     * Slot i's socket is readable: what is there, handed to its callers. What their answers let through is
     * sent by the turn that follows the wait (every held slot's), once, not here too.
     */
    private void receive(int i) {
        Conduit c = held[i];
        if (c == null) return;
        try {
            c.pump.receiveAvailable(c.router);
        } catch (ErrnoException e) {
            c.receiveFailed(e);
        } catch (RuntimeException e) {
            c.receiveCrashed(e);
        }
    }

    private void close() {
        synchronized (startLock) {
            stopped = true;
            epoll.close();
            wakeUp.close();
        }
    }
}
