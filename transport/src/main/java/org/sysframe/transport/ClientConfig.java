package org.sysframe.transport;

import org.sysframe.transport.wire.MessageSpecs;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The settings a connected {@link GroutClient} uses, frozen from {@link ClientOptions} at connect:
 * changing the options afterwards changes nothing in the client. See {@link ClientOptions} for each
 * setting's meaning and default. The message sizes are a private copy.
 */
public record ClientConfig(String socketPath, int apiVersion, String version, SendFraming send, RecvFraming recv,
                           long receiveTimeoutMillis, MessageSpecs specs, int socketBufferSize, WaitMode waitMode,
                           int cpu, Backend backend, boolean sqpoll, Set<Integer> serverUids, boolean anyServerUid,
                           long connectTimeoutMillis, long sendTimeoutMillis, boolean sharedMemory,
                           int maxInFlight, int connections) {
    /**
     * Checks every setting by the rules {@link ClientOptions} applies (IllegalArgumentException, NullPointerException).
     */
    public ClientConfig {
        Objects.requireNonNull(socketPath);
        Rules.helloVersion(version);
        Objects.requireNonNull(send);
        Objects.requireNonNull(recv);
        Rules.timeoutMillis("timeout", receiveTimeoutMillis);
        specs = specs.copy();
        Rules.socketBufferSize(socketBufferSize);
        Objects.requireNonNull(waitMode);
        Rules.clientCpu(cpu);
        Objects.requireNonNull(backend);
        serverUids = Rules.uids("serverUids", serverUids, "anyServerUid", anyServerUid);
        Rules.timeoutMillis("connect timeout", connectTimeoutMillis);
        Rules.timeoutMillis("send timeout", sendTimeoutMillis);
        Rules.maxInFlight(maxInFlight);
        Rules.connections(connections);
    }

    /** Whether a server running as uid is accepted (see {@link ClientOptions#serverUids}); ownUid is this process's. */
    public boolean acceptsServer(int uid, int ownUid) {
        if (anyServerUid) return true;
        if (serverUids != null) return serverUids.contains(uid);
        return !socketPath.startsWith("@") || uid == ownUid || uid == 0;
    }

    /** The servers accepted, as an error says it, e.g. {@code uid 1000 or root}, {@code uids 5, 7}, {@code any uid}. */
    public String acceptedServers(int ownUid) {
        if (anyServerUid || (serverUids == null && !socketPath.startsWith("@"))) return "any uid";
        if (serverUids == null) return ownUid == 0 ? "uid 0" : "uid " + ownUid + " or root";
        List<String> uids = new TreeSet<>(serverUids).stream().map(String::valueOf).toList();
        return (uids.size() == 1 ? "uid " : "uids ") + String.join(", ", uids);
    }

    /** A copy of the declared message sizes (the client's own copy cannot be changed). */
    @Override
    public MessageSpecs specs() { return specs.copy(); }

    @Override
    public String toString() {
        return "socket " + socketPath + ", api " + apiVersion + ", send " + send + ", recv " + recv
                + (receiveTimeoutMillis > 0 ? ", timeout " + receiveTimeoutMillis + " ms" : "")
                + (waitMode.kind() != WaitMode.Kind.BLOCK ? ", wait " + waitMode : "")
                        + (cpu >= 0 ? ", cpu " + cpu : "")
                + (backend != Backend.EPOLL ? ", backend " + backend + (sqpoll ? " (sqpoll)" : "") : "")
                + (sharedMemory ? ", shared memory" : "")
                + (maxInFlight != ClientOptions.MAX_IN_FLIGHT ? ", at most " + maxInFlight + " in flight" : "")
                + (connections != 1 ? ", " + connections + " connections" : "")
                + (anyServerUid ? ", any server uid" : serverUids != null ? ", server uids "
                        + new TreeSet<>(serverUids) : "");
    }
}
