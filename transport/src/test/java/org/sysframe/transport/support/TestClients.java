package org.sysframe.transport.support;

import org.sysframe.transport.Backend;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.GroutClient;

import java.io.IOException;

/**
 * The behaviour suite's clients start here, so that they run over the transport of the invocation
 * ({@link EachBackend}): in the {@code epoll+shm} invocation the options made here ask for the
 * shared-memory channel, and {@link #connect} checks that the client got it.
 */
public final class TestClients {
    private TestClients() {}

    /** The defaults for path, asking for the shared-memory channel in the {@code epoll+shm} invocation. */
    public static ClientOptions options(String path) {
        return ClientOptions.defaults().socketPath(path).sharedMemory(BackendSuite.overSharedMemory());
    }

    /** Connects to path with {@link #options}. */
    public static GroutClient connect(String path) throws IOException {
        return connect(options(path));
    }

    /**
     * The id of a client's first request after connect: 2 on the socket (the hello was 1), 1 over the
     * channel, whose client numbers its requests anew.
     */
    public static int firstId(GroutClient c) { return c.sharedMemory() ? 1 : 2; }

    /**
     * Connects and checks the transport: a client on epoll whose options ask for the channel must be
     * over it (a server that refused would leave it on the socket, and the test would not test the
     * channel); any other client must be on the socket.
     */
    public static GroutClient connect(ClientOptions options) throws IOException {
        GroutClient c = GroutClient.connect(options);
        boolean wanted = options.freeze().sharedMemory() && c.backend() == Backend.EPOLL;
        if (c.sharedMemory() != wanted) {
            c.close();
            throw new AssertionError("client of " + options.freeze().socketPath()
                    + (wanted ? " stayed on the socket" : " is over shared memory")
                    + " (sharedMemory " + options.freeze().sharedMemory() + ", backend " + c.backend() + ")");
        }
        return c;
    }
}
