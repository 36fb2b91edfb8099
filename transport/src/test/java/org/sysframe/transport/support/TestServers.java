package org.sysframe.transport.support;

import org.sysframe.transport.Backend;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;

import java.io.IOException;

/**
 * Every test server starts here, so that the whole suite can run against servers with several event
 * loops: {@code -Dsysframe.test.loops=N} gives every server that does not choose its loops N of them,
 * and against either backend: {@code -Dsysframe.test.backend=io_uring} runs every server that does not
 * pin its backend ({@link #startEpoll}) on io_uring.
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
        return GroutServer.start(withBackend(options.loops(1)));
    }

    /** The backend of servers that leave the default (epoll), from -Dsysframe.test.backend (epoll, io_uring, auto). */
    public static final Backend BACKEND = Backend.parse(System.getProperty("sysframe.test.backend", "epoll"));

    public static GroutServer start(ServerOptions options) throws IOException {
        if (LOOPS != 1 && options.freeze().loops() == 1) options.loops(LOOPS);
        return GroutServer.start(withBackend(options));
    }

    /**
     * A server on epoll whatever -Dsysframe.test.backend says, for a test of epoll's own counts
     * (epoll_wait, recvfrom, writev per request); its io_uring counterpart states its backend too.
     */
    public static GroutServer startEpoll(ServerOptions options) throws IOException {
        if (LOOPS != 1 && options.freeze().loops() == 1) options.loops(LOOPS);
        return GroutServer.start(options.backend(Backend.EPOLL));
    }

    private static ServerOptions withBackend(ServerOptions options) {
        return options.freeze().backend() == Backend.EPOLL ? options.backend(BACKEND) : options;
    }
}
