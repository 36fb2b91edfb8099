package org.sysframe.unix;

import org.sysframe.unix.internal.LibC;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An eventfd ({@code eventfd(2)}, non-blocking, close-on-exec): a thread that sleeps in an epoll set
 * with it is woken by another's {@link #signal}. A signal is one {@code write} of 8 bytes, counted as
 * {@link SyscallKind#WRITE}; {@link #take} one {@code read}, counted as {@link SyscallKind#READ}, that
 * takes every signal since the last take. A thread watching it with {@link Epoll#EPOLLET} needs no
 * take: each signal is an event of its own. Any thread may signal (give it {@link SyscallCounters#summing}
 * counters then); one thread takes.
 */
public final class EventFd implements AutoCloseable {
    private static final int EFD_CLOEXEC = 0x80000;
    private static final int EFD_NONBLOCK = 0x800;
    /** The descriptor, -1 once closed. */
    private final AtomicInteger fd;
    /**
     * Calls between their look at the descriptor and their syscall's return, plus {@link #CLOSING} once close was
     * asked: the descriptor is closed by close when none is in a call, else by the last call to return, so that a
     * call never reaches another file opened meanwhile under the same number.
     */
    private final AtomicInteger users = new AtomicInteger();
    private static final int CLOSING = Integer.MIN_VALUE;
    private final SyscallCounters counters;
    // Automatic: a signal still returning when another thread closes keeps its memory. The errno capture is shared by
    // the signalling threads: an error's number may be another's (none fails but on a descriptor not an eventfd).
    private final MemorySegment callState = Errno.newCallState(Arena.ofAuto());
    private final MemorySegment one = Arena.ofAuto().allocate(ValueLayout.JAVA_LONG);
    private final MemorySegment taken = Arena.ofAuto().allocate(ValueLayout.JAVA_LONG);

    private EventFd(int fd, SyscallCounters counters) {
        this.fd = new AtomicInteger(fd);
        this.counters = counters;
        one.set(ValueLayout.JAVA_LONG, 0, 1L);
    }

    /** A new eventfd whose calls are counted in counters. */
    public static EventFd open(SyscallCounters counters) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            int fd = LibC.eventfd(cs, 0, EFD_NONBLOCK | EFD_CLOEXEC);
            if (fd < 0) throw new ErrnoException("eventfd", Errno.read(cs));
            return new EventFd(fd, counters);
        }
    }

    /**
     * An eventfd a peer passed (SCM_RIGHTS), now this object's to close: checked to be an eventfd (a
     * pipe or a socket in its place could block a signal or take bytes meant for nobody) and made
     * non-blocking, so that no signal ever waits. On a refusal (EPROTO, saying why) fd is closed.
     */
    public static EventFd adopt(int fd, SyscallCounters counters) throws ErrnoException {
        EventFd e = new EventFd(fd, counters);
        try {
            String what;
            try {
                what = Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
            } catch (IOException | RuntimeException x) {
                throw new ErrnoException("eventfd", Errno.EPROTO, "descriptor " + fd + " cannot be looked at: " + x);
            }
            if (!what.equals("anon_inode:[eventfd]")) {
                throw new ErrnoException("eventfd", Errno.EPROTO, "the descriptor received is " + what
                        + ", not an eventfd");
            }
            UnixSocket.setNonBlocking(fd, "eventfd", true);
            return e;
        } catch (ErrnoException x) {
            e.close();
            throw x;
        }
    }

    /** The descriptor, for an epoll set (-1 once closed). */
    public int fd() { return fd.get(); }

    /**
     * Wakes the thread that waits for it to be readable. False once closed. A counter at its maximum
     * (EAGAIN: signals nobody took) is readable already: that is a signal given.
     */
    public boolean signal() throws ErrnoException {
        if (!enter()) return false;
        try {
            long n = LibC.write(callState, fd.get(), one, 8);
            counters.increment(SyscallKind.WRITE);
            if (n == 8) return true;
            int err = Errno.read(callState);
            if (err == Errno.EAGAIN) return true;
            throw new ErrnoException("write(eventfd)", err);
        } finally {
            leave();
        }
    }

    /** A call may use the descriptor (false: close was asked); {@link #leave} once its syscall returned. */
    private boolean enter() {
        while (true) {
            int u = users.get();
            if (u < 0) return false;
            if (users.compareAndSet(u, u + 1)) return true;
        }
    }

    private void leave() {
        if (users.decrementAndGet() == CLOSING) closeNow(); // the last call of a close that waited for it
    }

    /** Takes every signal since the last take: how many (0: none, an empty read). */
    public long take() throws ErrnoException {
        if (!enter()) return 0;
        try {
            long n = LibC.read(callState, fd.get(), taken, 8);
            counters.increment(SyscallKind.READ);
            if (n == 8) return taken.get(ValueLayout.JAVA_LONG, 0);
            int err = Errno.read(callState);
            if (err == Errno.EAGAIN) {
                counters.incrementEmpty(SyscallKind.READ);
                return 0;
            }
            throw new ErrnoException("read(eventfd)", err);
        } finally {
            leave();
        }
    }

    /**
     * Closes the descriptor, once: at once, or, when other threads are in a signal, as the last of them
     * returns. Later signals return false and takes 0, without a syscall.
     */
    @Override
    public void close() {
        while (true) {
            int u = users.get();
            if (u < 0) return;
            if (users.compareAndSet(u, u | CLOSING)) {
                if (u == 0) closeNow();
                return;
            }
        }
    }

    private void closeNow() {
        int old = fd.getAndSet(-1);
        if (old < 0) return;
        try (Arena a = Arena.ofConfined()) {
            LibC.close(Errno.newCallState(a), old);
        }
    }
}
