package org.sysframe.transport.internal.server;

import org.sysframe.transport.ServerConfig;
import org.sysframe.transport.internal.io.LogLimiter;
import org.sysframe.transport.internal.io.MemoryBudget;

/**
 * What the loops of one server share to bound it as a whole: the {@link MemoryBudget} and one
 * {@link LogLimiter} per kind of warning a peer can provoke at will.
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
public final class ServerLimits {
    public final MemoryBudget memory;
    /** Shared-memory channels open now (each takes its segment's bytes from {@link #memory} too). */
    public final java.util.concurrent.atomic.AtomicInteger channels = new java.util.concurrent.atomic.AtomicInteger();
    final LogLimiter refusedUid;
    final LogLimiter badHello;
    final LogLimiter oversize;
    final LogLimiter requestTimeout;
    final LogLimiter idleTimeout;
    final LogLimiter slowReader;
    final LogLimiter overBudget;
    final LogLimiter handlerFailed;
    /** SHM_OPEN refused at the channel limit or the budget. */
    public final LogLimiter channelRefused;
    private final LogLimiter[] all;

    public ServerLimits(ServerConfig config) {
        this.memory = new MemoryBudget(config.memoryBudget());
        int n = config.logLinesPerInterval();
        long interval = config.logInterval().toNanos();
        refusedUid = new LogLimiter("refused connection (not an allowed uid)", n, interval);
        badHello = new LogLimiter("GR_HELLO with another api_version", n, interval);
        oversize = new LogLimiter("request payload_len over GR_API_MAX_MSG_LEN", n, interval);
        requestTimeout = new LogLimiter("request not complete within the request timeout", n, interval);
        idleTimeout = new LogLimiter("connection idle past the idle timeout", n, interval);
        slowReader = new LogLimiter("slow reader", n, interval);
        overBudget = new LogLimiter("output over the server's memory budget", n, interval);
        handlerFailed = new LogLimiter("handler failed", n, interval);
        channelRefused = new LogLimiter("shared-memory channel refused", n, interval);
        all = new LogLimiter[] {refusedUid, badHello, oversize, requestTimeout, idleTimeout, slowReader, overBudget, handlerFailed, channelRefused};
    }

    /** Whether a limiter holds a count to log (a loop's timer should run to log it in time). */
    boolean logPending() {
        for (LogLimiter l : all) if (l.pending()) return true;
        return false;
    }

    /** Logs the summaries of intervals that are over (all: every count still held, at stop). */
    void flushLogs(boolean everything) {
        for (LogLimiter l : all) l.flush(everything);
    }
}
