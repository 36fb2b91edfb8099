package org.sysframe.transport.internal.epoll;

import org.sysframe.transport.ServerConfig;
import org.sysframe.transport.internal.io.LoopWaiter;
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
 * The epoll I/O driver of one event-loop thread: waits in epoll_wait, receives into its connections'
 * input buffers and lets them write through their {@link EpollSocket}s, flushes deferred batches at
 * the end of each turn, and runs tasks handed to it from other threads (new connections, events,
 * calls). Loop 0 also runs the {@link Acceptor}. Everything that is not epoll is in {@link ServerLoop}.
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
public final class EpollLoop extends ServerLoop<EpollSocket> {
    private final Epoll epoll;
    private final LoopWaiter waiter;

    public EpollLoop(int index, ServerConfig config, Routes routes, ServerLimits limits) throws ErrnoException {
        super(index, config, routes, limits);
        try {
            this.epoll = new Epoll(256, counters);
        } catch (ErrnoException e) {
            tasks.close();
            arena.close();
            throw e;
        }
        this.waiter = new LoopWaiter(epoll, config.waitMode(), counters);
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
        int n = waiter.await(waitMillis(hasBacklog() ? 0 : acceptor == null ? -1 : acceptor.waitLimitMillis()));
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
    protected EpollSocket newSocket(UnixSocket s, long tag) { return new EpollSocket(s, epoll, tag, config.send()); }

    @Override
    protected void attach(EpollSocket s, ServerConnection c) { s.attach(c); }

    @Override
    protected void watchConnection(EpollSocket s) throws ErrnoException { epoll.add(s.socket().fd(), Epoll.EPOLLIN, s.tag()); }

    @Override
    protected void closeDriver() { epoll.close(); }
}
