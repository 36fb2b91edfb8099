package org.sysframe.transport.internal.server;

import org.sysframe.transport.ServerConfig;
import org.sysframe.transport.internal.io.LogLimiter;
import org.sysframe.transport.internal.io.MemoryBudget;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the loops of one server share to bound it as a whole: the {@link MemoryBudget} and one
 * {@link LogLimiter} per kind of warning a peer can provoke at will.
 */
public final class ServerLimits {
    public final MemoryBudget memory;
    /** The server's requests, error answers and bytes (every loop counts into a cell of its own). */
    public final ServerCounts counts = new ServerCounts();
    /** Shared-memory channels open now (each takes its segment's bytes from {@link #memory} too). */
    public final AtomicInteger channels = new AtomicInteger();
    /** Shared-memory channels open now by peer uid (only uids with one or more). */
    private final Map<Integer, Integer> channelsByUid = new HashMap<>();
    /** Channels open now whose thread never sleeps (spin, yield): at most {@link #spinningChannelLimit}. */
    private int spinningChannels;
    private final int spinningChannelLimit;
    final LogLimiter refusedUid;
    /** accept failed with EMFILE, ENFILE or ENOMEM (accepting paused). */
    final LogLimiter acceptFailed;
    final LogLimiter badHello;
    final LogLimiter oversize;
    final LogLimiter requestTimeout;
    final LogLimiter idleTimeout;
    final LogLimiter slowReader;
    final LogLimiter overBudget;
    final LogLimiter handlerFailed;
    /** SHM_OPEN refused at the channel limit, the uid's limit, the budget, or because the connection has a channel. */
    public final LogLimiter channelRefused;
    /** A channel asked to spin (or yield) spins then sleeps: the spinning channels' limit is reached. */
    public final LogLimiter channelSleeps;
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
        channelSleeps = new LogLimiter("shared-memory channel spins then sleeps", n, interval);
        acceptFailed = new LogLimiter("accept failed (out of descriptors or memory)", n, interval);
        all = new LogLimiter[] {refusedUid, badHello, oversize, requestTimeout, idleTimeout, slowReader, overBudget,
                handlerFailed,
            channelRefused, channelSleeps, acceptFailed};
        spinningChannelLimit = spinningChannelLimit(config);
    }

    /**
     * How many channels may spin at once (each makes the loop serving it spin): one per CPU the loops
     * are pinned to ({@code cpus}), else one fewer than the CPUs this process may run on (at least 1),
     * so that spinning loops always leave a CPU to the rest of the process.
     */
    public static int spinningChannelLimit(ServerConfig config) {
        int[] cpus = config.cpus();
        if (cpus.length > 0) return (int) Arrays.stream(cpus).distinct().count();
        return Math.max(1, Runtime.getRuntime().availableProcessors() - 1);
    }

    /** Takes one of uid's channels; false when uid has max open already. */
    public synchronized boolean takeChannelOfUid(int uid, int max) {
        int n = channelsByUid.getOrDefault(uid, 0);
        if (n >= max) return false;
        channelsByUid.put(uid, n + 1);
        return true;
    }

    /** Gives one of uid's channels back. */
    public synchronized void giveChannelOfUid(int uid) {
        int n = channelsByUid.getOrDefault(uid, 0);
        if (n <= 1) channelsByUid.remove(uid);
        else channelsByUid.put(uid, n - 1);
    }

    /** Channels open now by uid's connections. */
    public synchronized int channelsOfUid(int uid) { return channelsByUid.getOrDefault(uid, 0); }

    /** A channel whose thread would never sleep may spin: true (counted) while fewer than the limit do. */
    public synchronized boolean takeSpinning() {
        if (spinningChannels >= spinningChannelLimit) return false;
        spinningChannels++;
        return true;
    }

    /** A spinning channel ended. */
    public synchronized void giveSpinning() { spinningChannels--; }

    /** Channels spinning now (tests). */
    public synchronized int spinningChannels() { return spinningChannels; }

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
