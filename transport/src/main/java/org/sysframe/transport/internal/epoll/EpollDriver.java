package org.sysframe.transport.internal.epoll;

import org.sysframe.transport.internal.io.MessageWriter;
import org.sysframe.transport.internal.io.Waiter;
import org.sysframe.transport.internal.server.Acceptor;
import org.sysframe.transport.internal.server.LoopChannels;
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
 * sockets switch their read or write interest with epoll_ctl themselves. A loop serving shared-memory
 * channels ({@link LoopChannels}) looks at their rings too, and its set holds their eventfds.
 */
public final class EpollDriver implements LoopDriver<EpollSocket> {
    private final ServerLoop<EpollSocket> loop;
    private final Epoll epoll;
    private final Waiter waiter;
    private final LoopChannels channels;
    private final MessageWriter.Scratch writerScratch;
    private int events;  // ready in the epoll set's last wait, for handle()
    /** The waiter's steps: epoll_wait(0) to look, epoll_wait(ms) to sleep (the bound is whole ms). */
    private final Waiter.Steps steps = new Waiter.Steps() {
        @Override
        public int poll() throws ErrnoException { return events = epoll.await(0); }

        @Override
        public int block(long nanos) throws ErrnoException { return events = epoll.await(ms(nanos)); }
    };
    /**
     * The steps of a loop with shared-memory channels: a look at the rings (no syscall), and at the
     * sockets (epoll_wait(0)) when a task waits or at a bounded rate ({@link LoopChannels#socketsDue()}).
     * A sleep says so in each channel first (its peer then writes its eventfd after it published).
     */
    private final Waiter.Steps channelSteps = new Waiter.Steps() {
        @Override
        public int poll() throws ErrnoException {
            if ((channels.socketsDue() || loop.tasks().hasQueued()) && (events = epoll.await(0)) > 0) return events;
            return channels.ready() ? 1 : 0;
        }

        @Override
        public int block(long nanos) throws ErrnoException {
            if (nanos == 0) return poll();
            if (!channels.sleep()) return 1;
            try {
                events = epoll.await(ms(nanos));
            } finally {
                channels.awake();
            }
            return events > 0 ? events : channels.ready() ? 1 : 0;
        }
    };

    /** The driver of loop: its epoll set is made now, counted in the loop's counters. */
    public EpollDriver(ServerLoop<EpollSocket> loop) throws ErrnoException {
        this.loop = loop;
        this.waiter = new Waiter(loop.config().waitMode(), loop.counters(), Waiter.Looks.SYSCALL);
        this.channels = loop.channels();
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
        events = 0;
        long b = bound <= 0 ? (bound < 0 ? Waiter.NO_BOUND : 0)
                : Math.min(Integer.MAX_VALUE, (bound + 999_999) / 1_000_000) * 1_000_000L;
        if (channels.isEmpty()) return waiter.once(steps, b);
        return channels.waiter().once(channelSteps, b, LoopChannels.LOOKS_PER_TURN);
    }

    private static int ms(long nanos) { return nanos < 0 ? -1 : (int) Math.min(Integer.MAX_VALUE, nanos / 1_000_000L); }

    /** What the last wait found in the epoll set (a loop with channels may have found work in their rings only). */
    @Override
    public void handle(int ready) {
        int n = events;
        events = 0;
        for (int i = 0; i < n; i++) {
            long tag = epoll.readyTag(i);
            if (tag == LoopChannels.TAG) {
                continue; // a channel's peer woke the loop: the loop serves its channels after this
            } else if (tag == Acceptor.TAG) {
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

    /** Edge-triggered: every write of the peer is an event, and the eventfd is never read. */
    @Override
    public void watchChannel(int fd) throws ErrnoException {
        epoll.add(fd, Epoll.EPOLLIN | Epoll.EPOLLET, LoopChannels.TAG);
    }

    @Override
    public void unwatchChannel(int fd) throws ErrnoException { epoll.remove(fd); }

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
