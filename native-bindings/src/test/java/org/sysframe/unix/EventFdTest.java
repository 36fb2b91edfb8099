package org.sysframe.unix;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An eventfd in an epoll set: signals wake the waiter, one take takes them all; every call counted exactly. */
class EventFdTest {
    @Test
    void signalsWakeAnEpollWaitAndOneTakeTakesThemAll() throws Exception {
        SyscallCounters counters = SyscallCounters.summing("eventfd test");
        try (EventFd e = EventFd.open(counters); Epoll epoll = new Epoll(4, new SyscallCounters("epoll"))) {
            epoll.add(e.fd(), Epoll.EPOLLIN, 7);
            assertEquals(0, epoll.await(0), "nothing signalled: not readable");
            assertTrue(e.signal());
            assertTrue(e.signal());
            assertEquals(1, epoll.await(1000));
            assertEquals(7, epoll.readyTag(0));
            assertEquals(2, e.take(), "both signals, in one read");
            assertEquals(0, epoll.await(0), "taken: not readable any more");
            assertEquals(0, e.take(), "nothing to take: an empty read, not a wait");
            assertEquals(2, counters.get(SyscallKind.WRITE));
            assertEquals(2, counters.get(SyscallKind.READ));
            assertEquals(1, counters.emptySnapshot().get(SyscallKind.READ));
            e.close();
            assertEquals(-1, e.fd());
            assertFalse(e.signal(), "closed: a signal says so, without a syscall");
            assertEquals(2, counters.get(SyscallKind.WRITE));
        }
    }

    @Test
    void manyThreadsSignalAtOnceAndEveryWriteIsCounted() throws Exception {
        SyscallCounters counters = SyscallCounters.summing("eventfd test");
        try (EventFd e = EventFd.open(counters)) {
            Thread[] threads = new Thread[8];
            for (int t = 0; t < threads.length; t++) {
                threads[t] = Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < 1000; i++) {
                        try {
                            e.signal();
                        } catch (ErrnoException x) {
                            throw new AssertionError(x);
                        }
                    }
                });
            }
            for (Thread t : threads) t.join();
            assertEquals(8000, e.take());
            assertEquals(8000, counters.get(SyscallKind.WRITE));
        }
    }
}
