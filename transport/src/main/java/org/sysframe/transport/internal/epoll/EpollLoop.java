package org.sysframe.transport.internal.epoll;

import org.sysframe.transport.ServerConfig;
import org.sysframe.transport.internal.io.MessageWriter;
import org.sysframe.transport.internal.io.Waiter;
import org.sysframe.transport.internal.server.Acceptor;
import org.sysframe.transport.internal.server.LoopTasks;
import org.sysframe.transport.internal.server.Routes;
import org.sysframe.transport.internal.server.ServerConnection;
import org.sysframe.transport.internal.server.ServerLimits;
import org.sysframe.transport.internal.server.ServerLoop;

import org.sysframe.unix.Epoll;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.UnixSocket;

/**
 * The epoll I/O driver of one event-loop thread: waits in epoll_wait as its {@link Waiter} says,
 * receives into its connections' input buffers and lets them write through their {@link EpollSocket}s,
 * flushes deferred batches at the end of each turn, and runs tasks handed to it from other threads
 * (new connections, events, calls). Loop 0 also runs the {@link Acceptor}. Everything that is not
 * epoll is in {@link ServerLoop}.
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
public final class EpollLoop extends ServerLoop<EpollSocket> {
    private final Epoll epoll;
    private final Waiter waiter;
    private final MessageWriter.Scratch writerScratch = new MessageWriter.Scratch(config.send(), arena);
    /** The waiter's steps: epoll_wait(0) to look, epoll_wait(ms) to sleep (the bound is whole ms). */
    private final Waiter.Steps steps = new Waiter.Steps() {
        @Override
        public int poll() throws ErrnoException { return epoll.await(0); }

        @Override
        public int block(long nanos) throws ErrnoException {
            return epoll.await(nanos < 0 ? -1 : (int) Math.min(Integer.MAX_VALUE, nanos / 1_000_000L));
        }
    };

    public EpollLoop(int index, ServerConfig config, Routes routes, ServerLimits limits) throws ErrnoException {
        super(index, config, routes, limits);
        try {
            this.epoll = new Epoll(256, counters);
        } catch (ErrnoException e) {
            tasks.close();
            arena.close();
            throw e;
        }
        this.waiter = new Waiter(config.waitMode(), counters);
    }

    @Override
    protected void watch() throws ErrnoException { epoll.add(tasks.wakeFd(), Epoll.EPOLLIN, LoopTasks.TAG); }

    @Override
    public void watchListener(int fd) throws ErrnoException { epoll.add(fd, Epoll.EPOLLIN, Acceptor.TAG); }

    @Override
    public void pauseListener(int fd, boolean pause) throws ErrnoException { epoll.modify(fd, pause ? 0 : Epoll.EPOLLIN, Acceptor.TAG); }

    @Override
    protected void turn() throws ErrnoException {
        // Connections with requests left from the last turn: poll, do not sleep.
        int ms = waitMillis(hasBacklog() ? 0 : acceptor == null ? -1 : acceptor.waitLimitMillis());
        int n = waiter.once(steps, ms < 0 ? Waiter.NO_BOUND : ms * 1_000_000L);
        startOfTurn();
        if (acceptor != null) acceptor.retryIfDue();
        for (int i = 0; i < n; i++) {
            long tag = epoll.readyTag(i);
            if (tag == Acceptor.TAG) {
                acceptor.acceptAll();
            } else if (tag == LoopTasks.TAG) {
                tasks.runAll();
            } else {
                EpollSocket s = table.get(tag);
                if (s == null) continue; // closed earlier in this round
                int events = epoll.readyEvents(i);
                if ((events & Epoll.EPOLLOUT) != 0) s.connection().onWritable();
                if ((events & (Epoll.EPOLLHUP | Epoll.EPOLLERR)) != 0 && s.connection().waitsForMemory()) {
                    // Not read while it waits, so epoll would report the hang-up again at once, every turn.
                    s.connection().close("peer closed while its request waited for memory");
                    continue;
                }
                if ((events & (Epoll.EPOLLIN | Epoll.EPOLLHUP | Epoll.EPOLLERR)) != 0 && s.connection().wantsInput()) s.receive();
            }
        }
        endOfTurn();
    }

    @Override
    protected EpollSocket newSocket(UnixSocket s, long tag) { return new EpollSocket(s, epoll, tag, config.send(), writerScratch); }

    @Override
    protected void attach(EpollSocket s, ServerConnection c) { s.attach(c); }

    @Override
    protected void watchConnection(EpollSocket s) throws ErrnoException { epoll.add(s.socket().fd(), Epoll.EPOLLIN, s.tag()); }

    @Override
    protected void closeDriver() { epoll.close(); }
}
