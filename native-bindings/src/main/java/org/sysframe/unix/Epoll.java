package org.sysframe.unix;

import org.sysframe.unix.internal.LibC;
import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * An epoll instance with its ready-event array, level-triggered, owned by one event-loop thread.
 * Each registered descriptor carries a 64-bit tag of the caller's choice (epoll_data.u64).
 */
public final class Epoll implements AutoCloseable {
    // epoll_data sits at offset 4: an 8-byte value with 4-byte alignment.
    private static final ValueLayout.OfLong DATA_LAYOUT = JAVA_LONG.withByteAlignment(4);

    /**
     * {@code struct epoll_event} (sys/epoll.h): packed on x86-64, so {@code data} sits at offset 4,
     * 12 bytes in all.
     */
    public static final StructLayout EVENT = MemoryLayout.structLayout(
            JAVA_INT.withName("events"),
            DATA_LAYOUT.withName("data")).withByteAlignment(4);

    /** Readable: the descriptor is available for read operations (end of stream included). */
    public static final int EPOLLIN = 0x001;
    /** Writable: the descriptor is available for write operations. */
    public static final int EPOLLOUT = 0x004;
    /** An error condition on the descriptor; always reported, whether asked for or not. */
    public static final int EPOLLERR = 0x008;
    /** Hang-up on the descriptor; always reported, whether asked for or not. */
    public static final int EPOLLHUP = 0x010;
    /** The stream peer closed its end or shut down its writing half. */
    public static final int EPOLLRDHUP = 0x2000;
    /** Edge-triggered: an event when the descriptor's state changes (an eventfd: each write), not while it is ready. */
    public static final int EPOLLET = 1 << 31;
    static final int EPOLL_CLOEXEC = 0x80000;
    static final int EPOLL_CTL_ADD = 1;
    static final int EPOLL_CTL_DEL = 2;
    static final int EPOLL_CTL_MOD = 3;

    private static final long EVENT_SIZE = EVENT.byteSize();
    private static final long DATA = EVENT.byteOffset(MemoryLayout.PathElement.groupElement("data"));

    private final int epfd;
    private final Arena arena;
    private final MemorySegment callState;
    private final MemorySegment events;
    private final MemorySegment ctlEvent;
    private final int capacity;
    private final SyscallCounters counters;

    /** A new epoll instance able to report capacity ready descriptors per wait. */
    public Epoll(int capacity, SyscallCounters counters) throws ErrnoException {
        this.arena = Arena.ofShared(); // closed once, by close(), possibly from a thread that stops the loop
        this.callState = Errno.newCallState(arena);
        this.capacity = capacity;
        this.counters = counters;
        this.events = arena.allocate(EVENT_SIZE * capacity, 8);
        this.ctlEvent = arena.allocate(EVENT);
        int fd = LibC.epollCreate1(callState, EPOLL_CLOEXEC);
        if (fd < 0) {
            int err = Errno.read(callState);
            arena.close();
            throw new ErrnoException("epoll_create1", err);
        }
        this.epfd = fd;
    }

    /** Registers fd with the interest mask (EPOLLIN, EPOLLOUT, ...) and the tag its events report. */
    public void add(int fd, int interest, long tag) throws ErrnoException {
        ctl(EPOLL_CTL_ADD, fd, interest, tag, "ADD");
    }

    /** Replaces the interest mask and the tag of the registered fd. */
    public void modify(int fd, int interest, long tag) throws ErrnoException {
        ctl(EPOLL_CTL_MOD, fd, interest, tag, "MOD");
    }

    /** Unregisters fd. */
    public void remove(int fd) throws ErrnoException { ctl(EPOLL_CTL_DEL, fd, 0, 0, "DEL"); }

    private void ctl(int op, int fd, int interest, long tag, String opName) throws ErrnoException {
        ctlEvent.set(JAVA_INT, 0, interest);
        ctlEvent.set(DATA_LAYOUT, DATA, tag);
        if (LibC.epollCtl(callState, epfd, op, fd, ctlEvent) < 0) {
            throw new ErrnoException("epoll_ctl(" + opName + ", fd " + fd + ")", Errno.read(callState));
        }
    }

    /**
     * Waits up to timeoutMs (-1: forever) and returns how many descriptors are ready (0 on timeout or
     * when a signal interrupted the wait: the loop simply waits again). Counted as one epoll_wait, and
     * as an empty one when it returned no event.
     */
    public int await(int timeoutMs) throws ErrnoException {
        int n = LibC.epollWait(callState, epfd, events, capacity, timeoutMs);
        counters.increment(SyscallKind.EPOLL_WAIT);
        if (n > 0) return n;
        if (n == 0) {
            counters.incrementEmpty(SyscallKind.EPOLL_WAIT);
            return 0;
        }
        int err = Errno.read(callState);
        if (err == Errno.EINTR) return 0;
        throw new ErrnoException("epoll_wait", err);
    }

    /** The ready mask (EPOLLIN, EPOLLOUT, ...) of the i-th ready descriptor of the last wait. */
    public int readyEvents(int i) { return events.get(JAVA_INT, i * EVENT_SIZE); }

    /** The tag of the i-th ready descriptor of the last wait. */
    public long readyTag(int i) { return events.get(DATA_LAYOUT, i * EVENT_SIZE + DATA); }

    /** The counters each {@link #await} is counted in. */
    public SyscallCounters counters() { return counters; }

    @Override
    public void close() {
        LibC.close(callState, epfd);
        arena.close();
    }
}
