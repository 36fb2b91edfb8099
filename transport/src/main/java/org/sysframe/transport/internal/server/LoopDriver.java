package org.sysframe.transport.internal.server;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.UnixSocket;

/**
 * How one event loop waits and moves bytes: the part of a {@link ServerLoop} that depends on the way
 * the kernel is asked (epoll, io_uring). The loop owns its thread,
 * its connections and every decision; the driver does what it is asked, on the loop's thread unless
 * said otherwise. One turn of the loop calls, in this order: {@link #waitBound()}, {@link #await(long)},
 * (the loop reads the clock and runs its timer) {@link #handle(int)}, (the loop continues the
 * connections with requests left and flushes the deferred batches) {@link #endOfTurn()}.
 *
 * <p>A connection's own output (a write, a wait for room to write) goes through its socket, the
 * driver's {@link LoopSocket}, not through the driver: that is a call on the connection's hot path.
 *
 * @param <S> the driver's socket of a connection
 */
public interface LoopDriver<S extends LoopSocket> {
    /** Makes the driver of a loop, on the thread that makes the loop (the loop's own has not started). */
    @FunctionalInterface
    interface Factory<S extends LoopSocket> {
        /** The driver of loop; only the loop's configuration, counters, arena and tasks are ready to read. */
        LoopDriver<S> create(ServerLoop<S> loop) throws ErrnoException;
    }

    /** Before the first turn: makes what must be made on the loop thread and watches the task queue. */
    void open() throws ErrnoException;

    /** Loop 0: starts watching the listening socket (readability with epoll, a multishot ACCEPT with io_uring). */
    void watchListener(int fd) throws ErrnoException;

    /** Loop 0: stops (true) or resumes (false) watching the listener (descriptors ran out, or may be back). */
    void pauseListener(int fd, boolean pause) throws ErrnoException;

    /** Before the wait: the driver's own bound on it in ns; 0 when it has work for the next turn, -1 for none. */
    default long waitBound() { return -1; }

    /**
     * Waits for readiness or completions as the loop's wait mode says: up to bound ns (-1: no bound; 0:
     * look once without sleeping); spinning modes look from user space first. Returns what was found
     * (a count the driver gives to {@link #handle(int)}; 0 for nothing).
     */
    int await(long bound) throws ErrnoException;

    /** Handles what the wait found: new connections, tasks, bytes received, room to write, completions. */
    void handle(int ready) throws ErrnoException;

    /** The last step of a turn, after the loop flushed the deferred batches. */
    default void endOfTurn() throws ErrnoException {}

    /** The driver's socket of a new connection, stored in the loop's table under tag. */
    S newSocket(UnixSocket s, long tag);

    /** Starts watching (or receiving on) a new connection, once its socket is attached to it. */
    void register(S s) throws ErrnoException;

    /**
     * A connection closed (its socket is closed): true when its socket may leave the loop's table now;
     * false when operations still in flight need it, and the driver calls {@link ServerLoop#release}
     * once the last one completed.
     */
    boolean unregister(S s, String reason);

    /**
     * Watches fd, a shared-memory channel's wake-up descriptor (an eventfd its peer writes to after it
     * published while the loop sleeps), in the loop's wait, edge-triggered (the eventfd is never read).
     */
    void watchChannel(int fd) throws ErrnoException;

    /** Stops watching fd ({@link #watchChannel}): before it is closed, since its peer holds a copy. */
    void unwatchChannel(int fd) throws ErrnoException;

    /** A connection with requests left had its turn (a driver that held bytes back gives them next turn). */
    default void continued(ServerConnection c) {}

    /** Frees the driver's idle buffers past keep (the loop's timer, or its last connection closed). */
    default void trim(int keep) {}

    /**
     * Any thread: wakes the loop where the task queue's wake-up byte does not (a thread asleep on a
     * futex, not in a wait on the wake-up socket). The byte is sent in any case, after this.
     */
    default void wakeup() {}

    /** On the loop thread after every connection was closed at shutdown: finishes the driver's operations. */
    default void shutdown() {}

    /** Frees the driver's resources once the loop's thread ended (or when it never started). */
    void close();
}
