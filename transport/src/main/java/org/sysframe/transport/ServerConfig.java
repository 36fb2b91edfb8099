package org.sysframe.transport;

import org.sysframe.unix.Self;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The settings a running {@link GroutServer} uses, frozen from {@link ServerOptions} when it starts:
 * changing the options afterwards changes nothing in the server. See {@link ServerOptions} for each
 * setting's meaning and default.
 */
public record ServerConfig(
        String socketPath, int mode, Set<Integer> allowedUids, boolean allowAnyUid,
        SendFraming send, FlushMode flush, int highWater,
        int apiVersion, int maxIfaces, boolean emptyHelloResponse,
        int readBuffer, int maxQueuedOutput, int backlog, int socketBufferSize, int loops,
        WaitMode waitMode, int[] cpus, int maxRequestsPerTurn, Backend backend,
        Duration requestTimeout, Duration idleTimeout, long memoryBudget,
        int logLinesPerInterval, Duration logInterval, int uringEntries, int uringCompletions,
        int sharedMemoryRing, WaitMode sharedMemoryWait, int sharedMemoryChannels, int sharedMemoryChannelsPerUid,
        int requestsPerRead) {

    private static final int OWN_UID = Self.uid();

    /**
     * Checks every setting by the rules {@link ServerOptions} applies (IllegalArgumentException, NullPointerException).
     */
    public ServerConfig {
        Objects.requireNonNull(socketPath);
        Rules.mode(mode);
        allowedUids = Rules.uids("allowedUids", allowedUids, "allowAnyUid", allowAnyUid);
        Objects.requireNonNull(send);
        Objects.requireNonNull(flush);
        Rules.highWater(highWater);
        Rules.maxIfaces(maxIfaces);
        Rules.readBuffer(readBuffer);
        Rules.maxQueuedOutput(maxQueuedOutput, highWater);
        Rules.socketBufferSize(socketBufferSize);
        Rules.loops(loops);
        Objects.requireNonNull(waitMode);
        cpus = Rules.cpus(cpus);
        Rules.maxRequestsPerTurn(maxRequestsPerTurn);
        Objects.requireNonNull(backend);
        Rules.requestTimeout(requestTimeout);
        Rules.idleTimeout(idleTimeout);
        Rules.memoryBudget(memoryBudget);
        Rules.logLimit(logLinesPerInterval, logInterval);
        Rules.uringRing(uringEntries, uringCompletions);
        Rules.ring(sharedMemoryRing, true);
        Rules.channels("shared-memory channels", sharedMemoryChannels);
        Rules.channels("shared-memory channels per uid", sharedMemoryChannelsPerUid);
        Rules.requestsPerRead(requestsPerRead);
    }

    /**
     * Nanoseconds between two timer checks of a loop (while one is needed): a quarter of the shorter
     * of the request and idle timeouts, at least 10 ms, at most 1 s.
     */
    public long checkIntervalNanos() {
        long t = requestTimeout.toNanos();
        if (!idleTimeout.isZero()) t = Math.min(t, idleTimeout.toNanos());
        return Math.max(10_000_000L, Math.min(1_000_000_000L, t / 4));
    }

    /** This configuration on another backend (what {@link Backend#AUTO} resolves to at start). */
    ServerConfig withBackend(Backend b) {
        return new ServerConfig(socketPath, mode, allowedUids, allowAnyUid, send, flush, highWater, apiVersion,
                maxIfaces,
                emptyHelloResponse, readBuffer, maxQueuedOutput, backlog, socketBufferSize, loops, waitMode, cpus,
                        maxRequestsPerTurn, b,
                requestTimeout, idleTimeout, memoryBudget, logLinesPerInterval, logInterval, uringEntries,
                        uringCompletions, sharedMemoryRing, sharedMemoryWait, sharedMemoryChannels,
                sharedMemoryChannelsPerUid, requestsPerRead);
    }

    /** Whether the server offers shared-memory channels ({@link ServerOptions#sharedMemory}). */
    public boolean sharedMemory() { return sharedMemoryRing > 0; }

    /**
     * How a shared-memory channel waits: {@link ServerOptions#sharedMemoryWaitMode}, else the loops' wait
     * mode.
     */
    public WaitMode channelWaitMode() { return sharedMemoryWait != null ? sharedMemoryWait : waitMode; }

    /** The CPUs the loops are pinned to, loop i to {@code cpus[i % cpus.length]}; empty: not pinned. */
    @Override
    public int[] cpus() { return cpus.clone(); }

    /** The CPU loop i is pinned to, or -1. */
    public int cpuOfLoop(int i) { return cpus.length == 0 ? -1 : cpus[i % cpus.length]; }

    /** True for a name in the abstract namespace ({@code @name}), which has no file and no file mode. */
    public boolean isAbstract() { return socketPath.startsWith("@"); }

    /**
     * Whether a peer of this uid may connect (see {@link ServerOptions#allowedUids},
     * {@link ServerOptions#allowAnyUid}).
     */
    public boolean admits(int uid) {
        if (allowAnyUid) return true;
        if (allowedUids == null) return !isAbstract() || uid == OWN_UID;
        return allowedUids.contains(uid);
    }

    /** Who may connect, as one phrase for start-up lines: the file mode, or the uids of an abstract name. */
    public String access() {
        if (allowAnyUid) return isAbstract() ? "abstract name, any uid may connect" : "mode 0"
                + Integer.toOctalString(mode);
        if (isAbstract()) return "abstract name, no file mode: "
                + onlyUids(allowedUids == null ? Set.of(OWN_UID) : allowedUids) + " may connect";
        String m = "mode 0" + Integer.toOctalString(mode);
        return allowedUids == null ? m : m + ", " + onlyUids(allowedUids);
    }

    private static String onlyUids(Set<Integer> uids) {
        SortedSet<Integer> sorted = new TreeSet<>(uids);
        return "only uid" + (sorted.size() > 1 ? "s " : " ")
                + sorted.stream().map(String::valueOf).collect(Collectors.joining(", "));
    }

    @Override
    public String toString() {
        return "socket " + socketPath + " (" + access() + "), send " + send + ", flush "
                + flush.name().toLowerCase(Locale.ROOT) + ", api " + apiVersion
                        + (loops > 1 ? ", " + loops + " loops" : "")
                + (waitMode.kind() != WaitMode.Kind.BLOCK ? ", wait " + waitMode : "")
                + (cpus.length > 0 ? ", cpus " + Arrays.toString(cpus) : "")
                + (backend != Backend.EPOLL ? ", backend " + backend : "")
                + (requestsPerRead > 0 ? ", requests per read " + requestsPerRead + " (Grout's api.c emulation)" : "");
    }
}
