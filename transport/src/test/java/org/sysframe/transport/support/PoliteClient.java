package org.sysframe.transport.support;

import org.sysframe.testsupport.Awaits;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.Response;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** A well-behaved client on its own thread: pings with varying payloads, checking every echo, until stopped. */
public final class PoliteClient implements AutoCloseable {
    public final AtomicLong pings = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread;

    /** Starts pinging path at once, payloads of 0..maxLen bytes varied by seed. */
    public PoliteClient(String path, String name, int seed, int maxLen) {
        thread = new Thread(() -> run(path, seed, maxLen), name);
        thread.setDaemon(true);
        thread.start();
    }

    private void run(String path, int seed, int maxLen) {
        ClientOptions o = ClientOptions.defaults().socketPath(path).receiveTimeoutMillis(RawSockets.RECV_TIMEOUT_MS);
        try (GroutClient c = GroutClient.connect(o); Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(maxLen + 1L, 8);
            for (long n = 0; !stop.get(); n++) {
                int len = (int) ((n * 97 + seed) % (maxLen + 1));
                int s = (int) n * 17 + seed;
                for (int i = 0; i < len; i++) p.set(JAVA_BYTE, i, Payloads.uniqueByte(s, i));
                Response r = c.call(GroutApi.PING, p, 0, len);
                if (r.status() != 0 || r.length() != len
                        || MemorySegment.mismatch(r.buffer(), r.offset(), r.offset() + len, p, 0, len) != -1) {
                    throw new AssertionError(Thread.currentThread().getName() + ": ping " + n + " of " + len
                            + " bytes answered wrongly: " + r);
                }
                pings.incrementAndGet();
            }
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        }
    }

    /** Fails with what made the client fail, if anything did. */
    public void checkAlive() {
        Throwable t = failure.get();
        if (t != null) throw new AssertionError("well-behaved client failed: " + t, t);
    }

    /** Waits for n more pings than since (each one a full turn of the server's loop for this client). */
    public void awaitPings(long since, long n) {
        Awaits.awaitUntil(() -> {
            checkAlive();
            return pings.get() >= since + n;
        }, Awaits.HANG_GUARD, () -> thread.getName() + " at " + pings.get() + " pings, waiting for " + (since + n));
    }

    /** Stops, joins, and rethrows what failed; returns the pings done. */
    public long finish() throws InterruptedException {
        stop.set(true);
        thread.join(Awaits.HANG_GUARD.toMillis());
        assertFalse(thread.isAlive(), thread.getName() + " did not stop");
        checkAlive();
        return pings.get();
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        thread.join(5_000);
    }
}
