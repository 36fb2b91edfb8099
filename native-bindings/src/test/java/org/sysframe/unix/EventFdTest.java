package org.sysframe.unix;

import org.junit.jupiter.api.Test;
import org.sysframe.testsupport.ProcessProbe;
import org.sysframe.unix.internal.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
    @Test
    void aCloseWhileOthersSignalNeverLetsASignalReachTheNextFileUnderItsNumber() throws Exception {
        // Two threads signal without pause while this one closes the eventfd and at once opens another,
        // which takes the lowest free number: the closed one's. A signal that read the number before the
        // close and wrote after it would land in the new one: without the signals' count that holds the
        // close back, in 13 and 15 rounds of 2,000. 1,000 rounds.
        SyscallCounters counters = SyscallCounters.summing("eventfd race");
        int landed = 0, reused = 0;
        for (int round = 0; round < 1000; round++) {
            EventFd e = EventFd.open(counters);
            AtomicBoolean stop = new AtomicBoolean();
            CountDownLatch going = new CountDownLatch(2);
            Thread[] threads = new Thread[2];
            for (int t = 0; t < threads.length; t++) {
                threads[t] = Thread.ofPlatform().start(() -> {
                    going.countDown();
                    try {
                        while (!stop.get()) e.signal();
                    } catch (ErrnoException x) {
                        throw new AssertionError(x);
                    }
                });
            }
            going.await();
            int number = e.fd();
            e.close();
            try (EventFd next = EventFd.open(counters)) {
                if (next.fd() == number) reused++;
                stop.set(true);
                for (Thread t : threads) t.join();
                landed += next.take() > 0 ? 1 : 0;
            }
        }
        assertEquals(0, landed, "rounds in which a signal reached the next eventfd (its number reused in "
                + reused + " of 1,000)");
    }

    @Test
    void edgeTriggeredEverySignalIsAnEventWithoutATake() throws Exception {
        SyscallCounters counters = new SyscallCounters("eventfd test");
        try (EventFd e = EventFd.open(counters); Epoll epoll = new Epoll(4, new SyscallCounters("epoll"))) {
            epoll.add(e.fd(), Epoll.EPOLLIN | Epoll.EPOLLET, 9);
            for (int i = 0; i < 3; i++) {
                assertTrue(e.signal());
                assertEquals(1, epoll.await(1000), "signal " + i + ": an event, though nothing was taken");
                assertEquals(9, epoll.readyTag(0));
                assertEquals(0, epoll.await(0), "reported once: no event until the next signal");
            }
            assertEquals(0, counters.get(SyscallKind.READ));
        }
    }

    @Test
    void anAdoptedDescriptorMustBeAnEventfdAndSignalsAtAFullCounterAreGiven() throws Exception {
        long before = ProcessProbe.openFds();
        UnixSocket[] pair = UnixSocket.pair();
        int fd = pair[0].fd();
        ErrnoException e = assertThrows(ErrnoException.class,
                () -> EventFd.adopt(fd, new SyscallCounters("test")));
        assertEquals(Errno.EPROTO, e.errno());
        assertTrue(e.getMessage().contains("not an eventfd"), e.getMessage());
        pair[1].close();
        try (EventFd mine = EventFd.open(new SyscallCounters("mine"));
             Arena a = Arena.ofConfined()) {
            // the peer's copy of the descriptor, as SCM_RIGHTS would give it
            MemorySegment cs = Errno.newCallState(a);
            int dup = LibC.fcntl(cs, mine.fd(), 0 /* F_DUPFD */, 0);
            assertTrue(dup >= 0);
            try (EventFd theirs = EventFd.adopt(dup, new SyscallCounters("theirs"))) {
                MemorySegment max = a.allocate(8);
                max.set(ValueLayout.JAVA_LONG, 0, 0xfffffffffffffffeL);
                assertEquals(8, LibC.write(cs, mine.fd(), max, 8), "the counter at its maximum");
                assertTrue(theirs.signal(), "EAGAIN: the counter is readable, the signal is given");
                assertEquals(0xfffffffffffffffeL, mine.take());
            }
        }
        assertEquals(before, ProcessProbe.openFds(), "the refused descriptor was closed, the adopted one too");
    }
}
