package org.sysframe.transport.support;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A virtual thread that beats every 5 ms until closed: while other virtual threads wait, its count
 * says whether the carriers stayed free (a wait that pins every carrier stops it).
 */
public final class Heartbeat implements AutoCloseable {
    private final AtomicLong beats = new AtomicLong();
    private volatile boolean stop;
    private final Thread thread;

    public Heartbeat() {
        thread = Thread.ofVirtual().name("heartbeat").start(() -> {
            while (!stop) {
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
                beats.incrementAndGet();
            }
        });
    }

    /** Beats so far. */
    public long beats() { return beats.get(); }

    /** Stops it and waits (at most 5 s) for its thread to end. */
    @Override
    public void close() throws InterruptedException {
        stop = true;
        thread.join(5000);
    }
}
