package org.sysframe.transport.support;

import org.sysframe.transport.Backend;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerConfig;
import org.sysframe.transport.ServerOptions;
import org.sysframe.transport.internal.shm.ShmSegment;

import java.io.IOException;

/**
 * Every test server starts here, so that the whole suite can run against servers with several event
 * loops: {@code -Dsysframe.test.loops=N} gives every server that does not choose its loops N of them.
 * Against either backend: in the behaviour suite ({@link EachBackend}) every server started here
 * without a backend of its own runs on the invocation's backend (the default of
 * {@link Backend#configuredDefault()}); a test of epoll's own counts pins epoll ({@link #startEpoll}). In
 * the suite's {@code epoll+shm} invocation every server started here offers shared-memory channels to
 * as many clients as a test makes ({@link #CHANNELS}).
 */
public final class TestServers {
    private TestServers() {}

    /** Event loops for servers whose options leave the default (1), from -Dsysframe.test.loops. */
    public static final int LOOPS = Integer.getInteger("sysframe.test.loops", 1);

    /**
     * A server on one loop whatever -Dsysframe.test.loops says, for a test of a one-loop property: an
     * event published by one connection reaches another connection of the same loop before the
     * publisher's answer; across loops it comes through the other loop's task queue, unordered against
     * that loop's own answers.
     */
    public static GroutServer startOneLoop(ServerOptions options) throws IOException {
        return GroutServer.start(overSuiteTransport(options.loops(1)));
    }

    public static GroutServer start(ServerOptions options) throws IOException {
        if (LOOPS != 1 && options.freeze().loops() == 1) options.loops(LOOPS);
        return GroutServer.start(overSuiteTransport(options));
    }

    /**
     * Channels a server of the {@code epoll+shm} invocation offers at once, in all and per uid: more than any test's
     * clients.
     */
    public static final int CHANNELS = 64;

    /**
     * In the {@code epoll+shm} invocation: the server offers channels (its own ring size, if it has one),
     * {@link #CHANNELS} of them for the test's one uid where the caps are the defaults, their segments'
     * bytes added to its memory budget, so that what the budget leaves for requests and answers stays
     * what the test chose. Elsewhere, options as they are.
     */
    static ServerOptions overSuiteTransport(ServerOptions options) {
        if (!BackendSuite.overSharedMemory()) return options;
        ServerConfig defaults = ServerOptions.defaults().freeze();
        ServerConfig c = options.freeze();
        if (!c.sharedMemory()) options.sharedMemory(true);
        if (c.sharedMemoryChannels() == defaults.sharedMemoryChannels()) options.sharedMemoryChannels(CHANNELS);
        if (c.sharedMemoryChannelsPerUid() == defaults.sharedMemoryChannelsPerUid()) options.sharedMemoryChannelsPerUid(
                CHANNELS);
        ServerConfig shm = options.freeze();
        return options.memoryBudget(c.memoryBudget()
                + shm.sharedMemoryChannels() * ShmSegment.sizeFor(shm.sharedMemoryRing()));
    }

    /**
     * A server on epoll whatever the default backend, for a test of epoll's own counts
     * (epoll_wait, recvfrom, writev per request); its io_uring counterpart states its backend too.
     */
    public static GroutServer startEpoll(ServerOptions options) throws IOException {
        if (LOOPS != 1 && options.freeze().loops() == 1) options.loops(LOOPS);
        return GroutServer.start(overSuiteTransport(options.backend(Backend.EPOLL)));
    }
}
