package org.sysframe.transport.support;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.Self;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Sends sig to the given threads in turn, every ~50 µs, until stopped; counts what it sent. */
public final class Signaller extends Thread {
    private final int sig;
    private final int pid = Self.pid();
    private volatile int[] targets = new int[0];
    private volatile boolean stop;
    public final AtomicLong sent = new AtomicLong();
    public final AtomicLong queueFull = new AtomicLong();
    volatile Throwable failure;

    public Signaller(int sig) {
        super("rt-signaller");
        this.sig = sig;
        setDaemon(true);
    }

    public void target(int... tids) { targets = tids.clone(); }

    @Override
    public void run() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            while (!stop) {
                for (int tid : targets) {
                    if (RtSignal.tgkill(cs, pid, tid, sig) == 0) {
                        sent.incrementAndGet();
                    } else if (Errno.read(cs) == Errno.EAGAIN) {
                        queueFull.incrementAndGet(); // RLIMIT_SIGPENDING reached: not sent
                    } else {
                        throw new ErrnoException("tgkill(" + tid + ")", Errno.read(cs));
                    }
                }
                LockSupport.parkNanos(50_000);
            }
        } catch (Throwable t) {
            failure = t;
        }
    }

    public void finish() throws InterruptedException {
        stop = true;
        join(10_000);
        assertFalse(isAlive(), "signaller did not stop");
        assertNull(failure, () -> "signaller failed: " + failure);
    }
}
