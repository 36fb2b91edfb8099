package org.sysframe.transport.internal.io;

import org.sysframe.transport.WaitMode;

import org.sysframe.unix.Epoll;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.Self;
import org.sysframe.unix.SyscallCounters;

/**
 * How an event loop waits in epoll as its {@link WaitMode} says: sleep in epoll_wait, poll with
 * epoll_wait(0) and never sleep, poll and yield the CPU between empty polls, or poll until the spin
 * budget has passed since the last event and then sleep. Empty polls are counted as empty epoll_waits.
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
public final class LoopWaiter {
    private final Epoll epoll;
    private final WaitMode mode;
    private final SyscallCounters counters;
    private long idleSince; // SPIN_THEN_BLOCK: when polling first found nothing; 0 while events come

    public LoopWaiter(Epoll epoll, WaitMode mode, SyscallCounters counters) {
        this.epoll = epoll;
        this.mode = mode;
        this.counters = counters;
    }

    /** Waits for events; sleepLimitMillis bounds a sleep (-1: none). Returns how many are ready. */
    public int await(int sleepLimitMillis) throws ErrnoException {
        switch (mode.kind()) {
            case BLOCK:
                return epoll.await(sleepLimitMillis);
            case SPIN:
                return epoll.await(0);
            case YIELD: {
                int n = epoll.await(0);
                if (n == 0) Self.yield(counters);
                return n;
            }
            default: {
                int n = epoll.await(0);
                if (n > 0) {
                    idleSince = 0;
                    return n;
                }
                long now = System.nanoTime();
                if (idleSince == 0) idleSince = now;
                if (now - idleSince < mode.spinNanos()) return 0;
                idleSince = 0;
                return epoll.await(sleepLimitMillis);
            }
        }
    }
}
