package org.sysframe.transport.internal.client;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.Self;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.SyscallKind;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client's lock: its waiters' yields are sched_yield syscalls on platform threads, and the client's
 * counters hold exactly as many as the kernel counted on those threads.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CallLockTest {
    static final int WAITERS = 4;

    @NeedsKernelCounter
    @Test
    void everyYieldOfAWaitingPlatformThreadIsCountedAsTheKernelCountsIt() throws Exception {
        SyscallCounters counters = SyscallCounters.summing("lock");
        CallLock lock = new CallLock(counters);
        AtomicIntegerArray tids = new AtomicIntegerArray(WAITERS);
        CountDownLatch started = new CountDownLatch(WAITERS), go = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(WAITERS), exit = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < WAITERS; i++) {
            int me = i;
            Thread t = Thread.ofPlatform().name("waiter " + i).start(() -> {
                try {
                    tids.set(me, Self.tid());
                    started.countDown();
                    go.await(); // a futex wait, not a yield
                    lock.lock(); // spins, then yields while the test holds the lock
                    lock.unlock();
                    done.countDown();
                    exit.await(); // alive while the kernel's counts are read
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            threads.add(t);
        }
        assertTrue(started.await(30, TimeUnit.SECONDS));
        List<KernelSyscallCounter> kernel = new ArrayList<>();
        try {
            for (int i = 0; i < WAITERS; i++) {
                kernel.add(KernelSyscallCounter.forThread(tids.get(i), EnumSet.of(SyscallKind.SCHED_YIELD)));
            }
            lock.lock();
            go.countDown();
            // The waiters spin 100 times each, then yield again and again: held until they yielded a few times.
            long until = System.nanoTime() + 30_000_000_000L;
            while (counters.snapshot().get(SyscallKind.SCHED_YIELD) < WAITERS && System.nanoTime() - until < 0) {
                Thread.sleep(1);
            }
            lock.unlock();
            assertTrue(done.await(30, TimeUnit.SECONDS));
            long yields = 0;
            for (KernelSyscallCounter k : kernel) yields += k.read().get(SyscallKind.SCHED_YIELD);
            assertTrue(yields >= WAITERS, "the waiters yielded while the lock was held: " + yields);
            assertEquals(yields, counters.snapshot().get(SyscallKind.SCHED_YIELD), "the library's count of them");
            assertEquals(yields, counters.snapshot().total(), "nothing else counted");
        } finally {
            exit.countDown();
            for (Thread t : threads) t.join();
            for (KernelSyscallCounter k : kernel) k.close();
        }
    }

    @Test
    void aVirtualThreadsYieldIsNoSyscallAndIsNotCounted() throws Exception {
        SyscallCounters counters = SyscallCounters.summing("lock");
        CallLock lock = new CallLock(counters);
        lock.lock();
        CountDownLatch trying = new CountDownLatch(1);
        Thread v = Thread.ofVirtual().start(() -> {
            trying.countDown();
            lock.lock(); // spins, then yields (unmounts) while the test holds the lock
            lock.unlock();
        });
        assertTrue(trying.await(30, TimeUnit.SECONDS));
        Thread.sleep(20); // past its spins: it yields meanwhile
        assertTrue(v.isAlive(), "the virtual waiter got the lock the test holds");
        lock.unlock();
        v.join();
        assertEquals(0, counters.snapshot().total());
    }

    /**
     * A virtual thread that holds the lock and leaves its carrier (here a park; in the client, a monitor it waited for
     * under the lock) gets a carrier back while more virtual threads than there are carriers wait for the lock: they
     * give their carriers up for a while, not only yield them, so that their turns on the carriers cannot keep the
     * holder out (they did: a pool of 256 virtual callers hung, its holder runnable and never run).
     */
    @Test
    void aVirtualHolderOffItsCarrierGetsOneBackWhileVirtualWaitersWait() throws Exception {
        CallLock lock = new CallLock(SyscallCounters.summing("lock"));
        int waiters = 8 * Runtime.getRuntime().availableProcessors();
        CountDownLatch held = new CountDownLatch(1);
        Thread holder = Thread.ofVirtual().start(() -> {
            lock.lock();
            held.countDown();
            LockSupport.parkNanos(50_000_000); // off its carrier, the lock held, while the waiters take the carriers
            lock.unlock();
        });
        assertTrue(held.await(30, TimeUnit.SECONDS));
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                lock.lock();
                lock.unlock();
            }));
        }
        holder.join(TimeUnit.SECONDS.toMillis(20));
        assertFalse(holder.isAlive(), "the holder never got a carrier back to let the lock go");
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(20));
            assertFalse(t.isAlive(), "a waiter never got the lock");
        }
    }

    @Test
    void aReentryFailsInsteadOfSpinningForever() {
        CallLock lock = new CallLock(SyscallCounters.summing("lock"));
        lock.lock();
        assertThrows(IllegalStateException.class, lock::lock);
        lock.unlock();
        assertTrue(lock.tryLock());
        lock.unlock();
    }

    @Test
    void aHoldersSignalRunsOnceJustAfterItLetTheLockGoAndAnotherThreadsAtOnce() throws Exception {
        CallLock lock = new CallLock(SyscallCounters.summing("lock"));
        List<String> seen = new ArrayList<>();
        // The signal tries the lock: free when it runs after the unlock, taken when it runs under the hold.
        CallLock.Signal s = () -> {
            boolean free = lock.tryLock();
            if (free) lock.unlock();
            seen.add(free ? "free" : "held");
        };
        lock.lock();
        lock.signalAfterUnlock(s);
        lock.signalAfterUnlock(s); // the same signal again in the hold: still one
        assertEquals(List.of(), seen);
        lock.unlock();
        assertEquals(List.of("free"), seen);
        lock.lock();
        lock.unlock(); // a hold without a signal signals nothing
        assertEquals(List.of("free"), seen);

        // A second, other signal in one hold runs at once; so does one from a thread that does not hold the lock.
        List<String> other = new ArrayList<>();
        lock.lock();
        lock.signalAfterUnlock(s);
        lock.signalAfterUnlock(() -> other.add(lock.tryLock() ? "free" : "held"));
        assertEquals(List.of("held"), other);
        Thread t = Thread.ofPlatform().start(() -> lock.signalAfterUnlock(() -> other.add("at once")));
        t.join();
        assertEquals(List.of("held", "at once"), other);
        lock.unlock();
        assertEquals(List.of("free", "free"), seen);
    }

    @Test
    void aParkedThreadAHolderUnparksWakesOnceTheLockIsLetGo() throws Exception {
        CallLock lock = new CallLock(SyscallCounters.summing("lock"));
        CountDownLatch parked = new CountDownLatch(1);
        boolean[] go = new boolean[1];
        Thread t = Thread.ofPlatform().start(() -> {
            parked.countDown();
            while (true) {
                lock.lock();
                boolean mine = go[0];
                lock.unlock();
                if (mine) return;
                LockSupport.park(this); // no timeout: only the deferred unpark ends this wait
            }
        });
        assertTrue(parked.await(30, TimeUnit.SECONDS));
        lock.lock();
        go[0] = true;
        lock.unparkAfterUnlock(t);
        lock.unparkAfterUnlock(null); // nothing to wake: ignored
        lock.unlock();
        t.join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(t.isAlive(), "the unpark deferred to the unlock was lost");
    }
}
