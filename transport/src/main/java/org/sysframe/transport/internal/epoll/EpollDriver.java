package org.sysframe.transport.internal.epoll;

import org.sysframe.transport.internal.io.MessageWriter;
import org.sysframe.transport.internal.io.Waiter;
import org.sysframe.transport.internal.server.Acceptor;
import org.sysframe.transport.internal.server.LoopDriver;
import org.sysframe.transport.internal.server.LoopTasks;
import org.sysframe.transport.internal.server.ServerConnection;
import org.sysframe.transport.internal.server.ServerLoop;

import org.sysframe.unix.Epoll;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.UnixSocket;

/**
 * The epoll I/O driver of one event loop: waits in epoll_wait as its {@link Waiter} says, and for
 * each ready descriptor has its loop accept (the listener), run its tasks (the task queue's wake-up)
 * or lets the connection's {@link EpollSocket} receive into its input buffer and write again. The
 * sockets switch their read or write interest with epoll_ctl themselves.
 */
public final class EpollDriver implements LoopDriver<EpollSocket> {
    private final ServerLoop<EpollSocket> loop;
    private final Epoll epoll;
    private final Waiter waiter;
    private final MessageWriter.Scratch writerScratch;
    /** The waiter's steps: epoll_wait(0) to look, epoll_wait(ms) to sleep (the bound is whole ms). */
    private final Waiter.Steps steps = new Waiter.Steps() {
        @Override
        public int poll() throws ErrnoException { return epoll.await(0); }

        @Override
        public int block(long nanos) throws ErrnoException {
            return epoll.await(nanos < 0 ? -1 : (int) Math.min(Integer.MAX_VALUE, nanos / 1_000_000L));
        }
    };

    /** The driver of loop: its epoll set is made now, counted in the loop's counters. */
    public EpollDriver(ServerLoop<EpollSocket> loop) throws ErrnoException {
        this.loop = loop;
        this.waiter = new Waiter(loop.config().waitMode(), loop.counters());
        this.writerScratch = new MessageWriter.Scratch(loop.config().send(), loop.arena());
        this.epoll = new Epoll(256, loop.counters()); // last: nothing after it may throw
    }

    @Override
    public void open() throws ErrnoException { epoll.add(loop.tasks().wakeFd(), Epoll.EPOLLIN, LoopTasks.TAG); }

    @Override
    public void watchListener(int fd) throws ErrnoException { epoll.add(fd, Epoll.EPOLLIN, Acceptor.TAG); }

    @Override
    public void pauseListener(int fd, boolean pause) throws ErrnoException {
        epoll.modify(fd, pause ? 0 : Epoll.EPOLLIN, Acceptor.TAG);
    }

    /** The bound rounded up to whole ms, as epoll_wait takes it. */
    @Override
    public int await(long bound) throws ErrnoException {
        if (bound <= 0) return waiter.once(steps, bound < 0 ? Waiter.NO_BOUND : 0);
        long ms = Math.min(Integer.MAX_VALUE, (bound + 999_999) / 1_000_000);
        return waiter.once(steps, ms * 1_000_000L);
    }

    @Override
    public void handle(int ready) {
        for (int i = 0; i < ready; i++) {
            long tag = epoll.readyTag(i);
            if (tag == Acceptor.TAG) {
                loop.listenerReady();
            } else if (tag == LoopTasks.TAG) {
                loop.tasks().runAll();
            } else {
                EpollSocket s = loop.socket(tag);
                if (s == null) continue; // closed earlier in this round
                ServerConnection c = s.connection();
                int events = epoll.readyEvents(i);
                if ((events & Epoll.EPOLLOUT) != 0) c.onWritable();
                if ((events & (Epoll.EPOLLHUP | Epoll.EPOLLERR)) != 0 && c.waitsForMemory()) {
                    // Not read while it waits, so epoll would report the hang-up again at once, every turn.
                    c.close("peer closed while its request waited for memory");
                    continue;
                }
                if ((events & (Epoll.EPOLLIN | Epoll.EPOLLHUP | Epoll.EPOLLERR)) != 0 && c.wantsInput()) s.receive();
            }
        }
    }

    @Override
    public EpollSocket newSocket(UnixSocket s, long tag) {
        return new EpollSocket(s, epoll, tag, loop.config().send(), writerScratch);
    }

    @Override
    public void register(EpollSocket s) throws ErrnoException { epoll.add(s.socket().fd(), Epoll.EPOLLIN, s.tag()); }

    /** Closing the socket took it out of the epoll set: it leaves the table now. */
    @Override
    public boolean unregister(EpollSocket s, String reason) { return true; }

    @Override
    public void close() { epoll.close(); }
}
