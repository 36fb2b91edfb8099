package org.sysframe.transport.support;

import org.sysframe.transport.Backend;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;

import java.io.IOException;

/**
 * Every test server starts here, so that the whole suite can run against servers with several event
 * loops: {@code -Dsysframe.test.loops=N} gives every server that does not choose its loops N of them.
 * Against either backend: in the behaviour suite ({@link EachBackend}) every server started here
 * without a backend of its own runs on the invocation's backend (the default of
 * {@link Backend#configuredDefault()}); a test of epoll's own counts pins epoll ({@link #startEpoll}).
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
        return GroutServer.start(options.loops(1));
    }

    public static GroutServer start(ServerOptions options) throws IOException {
        if (LOOPS != 1 && options.freeze().loops() == 1) options.loops(LOOPS);
        return GroutServer.start(options);
    }

    /**
     * A server on epoll whatever the default backend, for a test of epoll's own counts
     * (epoll_wait, recvfrom, writev per request); its io_uring counterpart states its backend too.
     */
    public static GroutServer startEpoll(ServerOptions options) throws IOException {
        if (LOOPS != 1 && options.freeze().loops() == 1) options.loops(LOOPS);
        return GroutServer.start(options.backend(Backend.EPOLL));
    }
}
