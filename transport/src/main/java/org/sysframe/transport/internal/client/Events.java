package org.sysframe.transport.internal.client;

import org.sysframe.transport.internal.io.FdPoller;
import org.sysframe.transport.wire.EventHeader;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.concurrent.locks.LockSupport;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * The events a client received and nobody took yet, copied, in arrival order, at most {@value #MAX}
 * (a server flooding events cannot grow the heap without bound: past it they are dropped and
 * counted). A thread waiting for one when nobody holds the I/O role takes it <em>idly</em>: it waits
 * for the socket to become readable in the JVM's poller (no syscall of the client's; on the shared
 * memory channel, a look at the ring every {@value #IDLE_LOOK_MICROS} us), reads what came, and
 * leaves the role as soon as a caller wants it.
 */
public final class Events {
    /** At most this many events are kept. */
    public static final int MAX = 4096;
    static final long IDLE_LOOK_MICROS = 200;

    /** An event as kept: its type and a copy of its payload. */
    public record Kept(int type, byte[] payload) {}

    private final Conduit conduit;
    private final ArrayDeque<Kept> kept = new ArrayDeque<>();
    private final ArrayDeque<Thread> waiters = new ArrayDeque<>();
    long received, dropped; // under the conduit's lock
    /** Set (and the idle holder unparked) when a caller wants the role an idle holder has. */
    volatile boolean nudged;

    Events(Conduit conduit) {
        this.conduit = conduit;
    }

    /** The router: one more event (on the holder's thread). */
    void arrived(int type, MemorySegment buffer, long offset, long length) {
        byte[] copy = buffer.asSlice(offset, length).toArray(JAVA_BYTE);
        conduit.lock.lock();
        try {
            received++;
            conduit.bytesReceived += EventHeader.SIZE + length;
            if (kept.size() >= MAX) {
                dropped++;
                return;
            }
            kept.add(new Kept(type, copy));
            Thread w = waiters.peek();
            conduit.lock.unparkAfterUnlock(w);
            conduit.standby.eventArrived();
        } finally {
            conduit.lock.unlock();
        }
    }

    /** Under the conduit's lock: events kept and not taken yet. */
    int keptUnlocked() { return kept.size(); }

    /** Events kept and not taken yet. */
    public int pending() {
        conduit.lock.lock();
        try {
            return kept.size();
        } finally {
            conduit.lock.unlock();
        }
    }

    /** The oldest event kept, or null. */
    public Kept poll() {
        conduit.lock.lock();
        try {
            return kept.poll();
        } finally {
            conduit.lock.unlock();
        }
    }

    /**
     * The oldest event kept, or the next one to come by deadline (a System.nanoTime() instant): null
     * when none came by then. ENOTCONN once the client is closed or broken; EINTR when interrupted.
     */
    public Kept await(long deadline) throws ErrnoException {
        Thread me = Thread.currentThread();
        while (true) {
            boolean idle = false;
            conduit.lock.lock();
            try {
                Kept k = kept.poll();
                if (k != null) {
                    waiters.remove(me);
                    return k;
                }
                conduit.usable();
                if (deadline - System.nanoTime() <= 0) {
                    waiters.remove(me);
                    return null;
                }
                if (conduit.holder == null && !conduit.roleWanted()) {
                    waiters.remove(me);
                    conduit.holder = me;
                    conduit.holderMode = Conduit.IDLE;
                    nudged = false;
                    idle = true;
                } else if (!waiters.contains(me)) {
                    waiters.add(me);
                }
            } finally {
                conduit.lock.unlock();
            }
            if (me.isInterrupted()) {
                drop(me);
                throw new ErrnoException("client(" + conduit.name + ")", Errno.EINTR,
                        "interrupted while waiting for an event");
            }
            if (idle) {
                idleWait(deadline);
            } else {
                LockSupport.parkNanos(this, Math.max(1, deadline - System.nanoTime()));
            }
        }
    }

    private void drop(Thread t) {
        conduit.lock.lock();
        try {
            waiters.remove(t);
        } finally {
            conduit.lock.unlock();
        }
    }

    /**
     * The idle holder: waits until the socket is readable, a caller wants the role, or deadline; reads
     * what came; leaves the role.
     */
    void idleWait(long deadline) {
        try {
            int fd = conduit.link.readableFd();
            while (!nudged && !conduit.closed && deadline - System.nanoTime() > 0) {
                boolean ready;
                if (fd >= 0) {
                    ready = FdPoller.get().await(fd, FdPoller.READABLE, deadline, () -> nudged);
                } else {
                    ready = true; // the shared-memory ring: look, then sleep a little
                }
                if (nudged || conduit.closed || Thread.currentThread().isInterrupted()) break;
                // Readable: a message has started (nobody else reads); the rest of it has the receive timeout to come.
                long timeout = conduit.receiveTimeoutNanos();
                long by = fd < 0 || timeout <= 0 ? System.nanoTime() : System.nanoTime() + timeout;
                boolean got = ready && conduit.pump.pumpBy(conduit.router, by, timeout);
                if (got) {
                    conduit.pump.drainBuffered(conduit.router);
                    break;
                }
                if (fd < 0) LockSupport.parkNanos(this, IDLE_LOOK_MICROS * 1000);
            }
        } catch (ErrnoException e) {
            conduit.receiveFailed(e);
        } catch (RuntimeException | Error e) {
            conduit.receiveCrashed(e);
            throw e;
        } finally {
            conduit.release();
        }
    }

    /** Under the conduit's lock: wakes every waiter (the client failed or closed). */
    void wakeAll() {
        for (Thread t : waiters) LockSupport.unpark(t);
    }
}
