package org.sysframe.transport.support;

import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.GroutClient;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A client on its own thread: GroutClient is thread-confined (its arena belongs to the thread that
 * connected), and a connect that waits in a listen backlog must not hold up the test.
 */
public final class OwnedClient implements AutoCloseable {
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "owned-client");
        t.setDaemon(true);
        return t;
    });
    public final Future<GroutClient> client;

    public OwnedClient(ClientOptions o) {
        client = thread.submit(() -> GroutClient.connect(o));
    }

    public GroutClient awaitConnected() throws Exception {
        return client.get(60, TimeUnit.SECONDS);
    }

    public void ping(int seed, int len) throws Exception {
        GroutClient c = awaitConnected();
        thread.submit(() -> {
            Pings.ping(c, seed, len);
            return null;
        }).get(60, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws Exception {
        if (client.isDone() && !client.isCancelled() && !thread.isShutdown()) {
            thread.submit(() -> {
                try {
                    client.get().close();
                } catch (ExecutionException connectFailed) {
                    // nothing to close
                }
                return null;
            }).get(60, TimeUnit.SECONDS);
        }
        thread.shutdownNow(); // a connect still waiting is left to its receive timeout (daemon thread)
    }
}
