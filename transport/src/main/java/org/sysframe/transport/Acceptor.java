package org.sysframe.transport;

import org.sysframe.unix.Epoll;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.PeerCredentials;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/**
 * Accepts connections on the listening socket (from loop 0's thread), admits them by uid, and hands
 * each to the loop with the fewest connections. When descriptors run out it stops watching the
 * listener, and looks again every 100 ms and whenever a connection of loop 0 closes.
 */
final class Acceptor {
    /** A loop, as the acceptor sees it. */
    interface Loop {
        /** Connections this loop holds or was handed. */
        int load();

        /** Counters for a new connection of this loop (their parent is the loop's). */
        SyscallCounters newConnectionCounters();

        /** Takes a new connection (from any thread). */
        void handOff(UnixSocket s, PeerCredentials cred);
    }

    static final long TAG = -1;
    private static final Logger LOG = System.getLogger("org.sysframe.server");
    private static final long RETRY_NANOS = 100_000_000L;

    private final UnixSocket listener;
    private final ServerConfig config;
    private final Epoll epoll;
    private final Loop[] loops;
    private boolean paused;
    private long pausedAt;
    private boolean failureLogged;

    Acceptor(UnixSocket listener, ServerConfig config, Epoll epoll, Loop[] loops) {
        this.listener = listener;
        this.config = config;
        this.epoll = epoll;
        this.loops = loops.clone();
    }

    void watch() throws ErrnoException { epoll.add(listener.fd(), Epoll.EPOLLIN, TAG); }

    /** How long loop 0 may wait before {@link #retryIfDue()} (-1: no limit). */
    int waitLimitMillis() { return paused ? 100 : -1; }

    void retryIfDue() {
        if (paused && System.nanoTime() - pausedAt >= RETRY_NANOS) pause(false);
    }

    /** A connection closed, so a descriptor may be free again. */
    void connectionClosed() {
        if (paused) pause(false);
    }

    /** Accepts every pending connection. */
    void acceptAll() {
        while (true) {
            Loop target = leastLoaded();
            UnixSocket s;
            try {
                s = listener.accept(target.newConnectionCounters());
            } catch (ErrnoException e) {
                if (e.errno() == Errno.EMFILE || e.errno() == Errno.ENFILE || e.errno() == Errno.ENOMEM) {
                    // Once per episode: the retries every 100 ms while it lasts are not news.
                    log(failureLogged ? Level.DEBUG : Level.WARNING,
                            "accept failed (%s): pausing accepts, retried every 100 ms and when a connection closes", e.getMessage());
                    failureLogged = true;
                    pause(true);
                } else {
                    LOG.log(Level.ERROR, "accept failed: {0}", e.getMessage());
                }
                return;
            }
            if (s == null) return;
            failureLogged = false;
            PeerCredentials cred;
            try {
                cred = s.peerCredentials();
                if (config.socketBufferSize() > 0) {
                    s.setSendBufferSize(config.socketBufferSize());
                    s.setReceiveBufferSize(config.socketBufferSize());
                }
            } catch (ErrnoException e) {
                LOG.log(Level.WARNING, "dropping a connection whose credentials cannot be read: {0}", e.getMessage());
                s.close();
                continue;
            }
            if (!config.admits(cred.uid())) {
                log(Level.WARNING, "refused connection from uid %d (pid %d): not an allowed uid", cred.uid(), cred.pid());
                s.close();
                continue;
            }
            target.handOff(s, cred);
        }
    }

    private Loop leastLoaded() {
        Loop best = loops[0];
        for (int i = 1; i < loops.length; i++) {
            if (loops[i].load() < best.load()) best = loops[i];
        }
        return best;
    }

    private void pause(boolean pause) {
        if (pause == paused) return;
        try {
            epoll.modify(listener.fd(), pause ? 0 : Epoll.EPOLLIN, TAG);
            paused = pause;
            pausedAt = System.nanoTime();
        } catch (ErrnoException e) {
            LOG.log(Level.ERROR, "cannot {0} accepting: {1}", pause ? "pause" : "resume", e.getMessage());
        }
    }

    private static void log(Level level, String format, Object... args) {
        if (LOG.isLoggable(level)) LOG.log(level, String.format(format, args));
    }

    void close() { listener.close(); }
}
