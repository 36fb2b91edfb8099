package org.sysframe.transport.internal.server;

import org.sysframe.transport.ServerConfig;
import org.sysframe.transport.internal.io.InputBuffer;

import org.sysframe.unix.PageMemory;

import java.util.ArrayDeque;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * One loop's clock and timer: request and idle timeouts, memory given back, log summaries, and the
 * connections that wait for the memory budget. The clock is read at most once per turn, when the
 * turn first needs it ({@link #now()}): the time of everything the turn does after. A turn that needs
 * no time (the timer not running, no request in part, no idle timeout: a loop answering whole requests
 * with the defaults) reads no clock; a spinning loop turns once per request. The timer runs only while
 * needed: a connection has a request in part, a large buffer or a wait for memory, an idle timeout is
 * set, a warning count waits for its line, or many connections closed since malloc was last asked to
 * give memory back. Loop thread only.
 */
final class LoopTimer {
    /** Closes after which the loop's next timer check asks malloc to give freed memory back. */
    private static final int TRIM_AFTER_CLOSES = 256;

    /** Retries of a memory wait are at least this often (the budget may be freed by another loop). */
    private static final long MEMORY_RETRY_NANOS = 10_000_000L;

    private final ServerLimits limits;
    private final ConnectionTable<?> table;
    private final IntConsumer trimPools;
    private final long checkNanos;
    private final boolean idleTimeout;
    private final ArrayDeque<ServerConnection> memoryWaiters = new ArrayDeque<>();
    private final Consumer<LoopSocket> checker = s -> s.connection().checkTimers(this.now);
    private long now = System.nanoTime();
    private boolean fresh; // now was read in this turn
    private int timedCount;
    private int closedSinceTrim;
    private boolean armed;
    private long nextCheck;

    /** trimPools frees the loop's idle buffers past the count it is given. */
    LoopTimer(ServerConfig config, ServerLimits limits, ConnectionTable<?> table, IntConsumer trimPools) {
        this.limits = limits;
        this.table = table;
        this.trimPools = trimPools;
        this.checkNanos = config.checkIntervalNanos();
        this.idleTimeout = !config.idleTimeout().isZero();
    }

    /**
     * The start of a turn (right after the driver's wait): the clock is to be read again when needed,
     * waiting connections get the memory freed meanwhile, and the timer check runs when it is due.
     */
    void startOfTurn() {
        fresh = false;
        if (!memoryWaiters.isEmpty()) retryMemoryWaiters();
        if (!needed()) {
            armed = false;
            return;
        }
        arm();
        if (now() - nextCheck >= 0) {
            table.forEach(checker);
            if (!memoryWaiters.isEmpty()) retryMemoryWaiters();
            limits.flushLogs(false);
            if (closedSinceTrim >= TRIM_AFTER_CLOSES) {
                // Many connections went: keep few of their buffers, and give the freed ones back to the
                // kernel, not only to malloc.
                trimPools.accept(LoopBuffers.TRIM_KEEP);
                PageMemory.trimMalloc();
                closedSinceTrim = 0;
            }
            nextCheck = now + checkNanos;
        }
    }

    private boolean needed() {
        return timedCount > 0 || !memoryWaiters.isEmpty() || (idleTimeout && table.size() > 0) || limits.logPending()
                || closedSinceTrim >= TRIM_AFTER_CLOSES;
    }

    private void arm() {
        if (armed) return;
        armed = true;
        nextCheck = now() + checkNanos;
    }

    /** How long the loop may sleep for the timer's sake, in ns (-1: as long as it likes). */
    long waitNanos() {
        if (!needed()) return -1;
        long wait = armed ? Math.max(1, nextCheck - now) : checkNanos;
        return memoryWaiters.isEmpty() ? wait : Math.min(wait, MEMORY_RETRY_NANOS);
    }

    private void retryMemoryWaiters() {
        while (!memoryWaiters.isEmpty()) {
            ServerConnection c = memoryWaiters.peekFirst();
            if (!c.isClosed() && c.waitsForMemory() && !limits.memory.fits(InputBuffer.LARGE)) return;
            memoryWaiters.pollFirst();
            if (!c.retryMemory()) {
                memoryWaiters.addFirst(c); // another loop took the room first
                return;
            }
        }
    }

    /** Connections that wait for the memory budget. */
    int memoryWaiterCount() {
        int n = 0;
        for (ServerConnection c : memoryWaiters) if (!c.isClosed() && c.waitsForMemory()) n++;
        return n;
    }

    /** This turn's time (System.nanoTime()), read at its first use in the turn. */
    long now() {
        if (!fresh) {
            now = System.nanoTime();
            fresh = true;
        }
        return now;
    }

    /** A connection now needs (+1) or no longer needs (-1) the timer. */
    void timed(int delta) {
        timedCount += delta;
        if (delta > 0) arm();
    }

    /** c waits for the memory budget to take its large request: its retry is called when there is room. */
    void waitForMemory(ServerConnection c) {
        memoryWaiters.addLast(c);
        arm();
    }

    /** A connection of the loop closed. */
    void connectionClosed() { closedSinceTrim++; }
}
