package org.sysframe.transport.internal.server;

import org.sysframe.transport.ServerConfig;
import org.sysframe.transport.internal.io.LogLimiter;
import org.sysframe.transport.internal.io.SafeLogger;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.PeerCredentials;
import org.sysframe.unix.SharedMemory;
import org.sysframe.unix.UnixSocket;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.List;

/**
 * Accepts connections on the listening socket (from loop 0's thread), admits them by uid, and hands
 * each to the loop with the fewest connections. When descriptors run out it stops watching the
 * listener, and looks again every 100 ms and whenever a connection of loop 0 closes. It keeps one spare
 * descriptor (an empty memfd) for that moment and lets it go while accepting is paused: the process
 * then has one to open a file with, as a logger does for its first line (java.util.logging loads the
 * time-zone rules then) and the JVM does to load a class from a directory of the class path (a failed
 * load would break its call site for good). The spare is taken back before accepting resumes. How the
 * listener is watched is loop 0's driver's business ({@link LoopDriver#watchListener}): the epoll driver
 * waits for readability and its loop calls {@link #acceptAll()}; the io_uring driver arms a multishot
 * ACCEPT and its loop gives each new descriptor to {@link #accepted(int)}. Both go through the same
 * checks and hand-off ({@link #admit}).
 */
public final class Acceptor {
    public static final long TAG = -1;
    private static final Logger LOG = SafeLogger.of("org.sysframe.server");
    private static final long RETRY_NANOS = 100_000_000L;

    private final UnixSocket listener;
    private final ServerConfig config;
    private final ServerLoop<?> watcher; // loop 0
    private final ServerLoop<?>[] loops;
    private final LogLimiter refusals;
    private final LogLimiter outOfDescriptors;
    private boolean paused;
    private long pausedAt;
    private boolean failureLogged;
    private int spareFd;

    public Acceptor(UnixSocket listener, ServerConfig config, ServerLoop<?>[] loops) {
        this.listener = listener;
        this.config = config;
        this.watcher = loops[0];
        this.loops = loops.clone();
        this.refusals = loops[0].limits().refusedUid;
        this.outOfDescriptors = loops[0].limits().acceptFailed;
        // What the way out of descriptors runs is run once now, while descriptors are free: a class it
        // would load then, or strerror's first text, could fail for want of one.
        DirectoryClasses.load(List.of(Acceptor.class, UnixSocket.class));
        for (int errno : OUT_OF) new ErrnoException("accept", errno).getMessage();
        this.spareFd = takeSpare();
        releaseSpare();
        this.spareFd = takeSpare();
    }

    private static final int[] OUT_OF = {Errno.EMFILE, Errno.ENFILE, Errno.ENOMEM};

    private static int takeSpare() {
        try {
            return SharedMemory.create("sysframe-spare-fd");
        } catch (ErrnoException e) {
            return -1; // none to spare now: taken again when accepting resumes
        }
    }

    private void releaseSpare() {
        if (spareFd < 0) return;
        SharedMemory.close(spareFd);
        spareFd = -1;
    }

    void watch() throws ErrnoException { watcher.watchListener(listener.fd()); }

    /** Whether accepting is paused (descriptors ran out). */
    boolean paused() { return paused; }

    /** How long loop 0 may wait before {@link #retryIfDue()}, in ns (-1: no limit). */
    long waitLimitNanos() { return paused ? RETRY_NANOS : -1; }

    /** Resumes accepting when it was paused long enough ago (loop 0, each turn before its wait). */
    void retryIfDue() {
        if (paused && System.nanoTime() - pausedAt >= RETRY_NANOS) pause(false);
    }

    /** A connection closed, so a descriptor may be free again. */
    void connectionClosed() {
        if (paused) pause(false);
    }

    /** Accepts every pending connection (the listener is readable). */
    void acceptAll() {
        while (true) {
            ServerLoop<?> target = leastLoaded();
            UnixSocket s;
            try {
                s = listener.accept(target.newConnectionCounters());
            } catch (ErrnoException e) {
                acceptFailed(e);
                return;
            }
            if (s == null) return;
            admit(s, target);
        }
    }

    /** A descriptor a driver's ACCEPT completed with: admitted like one from accept4. */
    void accepted(int fd) {
        ServerLoop<?> target = leastLoaded();
        admit(new UnixSocket(fd, listener.name() + "#" + fd, target.newConnectionCounters()), target);
    }

    /**
     * Accepting failed: out of descriptors or memory pauses accepts (retried every 100 ms and when a
     * connection closes); anything else is logged.
     */
    void acceptFailed(ErrnoException e) {
        if (e.errno() == Errno.EMFILE || e.errno() == Errno.ENFILE || e.errno() == Errno.ENOMEM) {
            releaseSpare(); // first: what follows may need a descriptor
            pause(true);
            // Once per pause (the retries every 100 ms while it lasts are not news), and no more lines than
            // the server's log limit: a peer that keeps the table full by reconnecting makes a pause each time.
            if (!failureLogged && LOG.isLoggable(Level.WARNING)) {
                outOfDescriptors.warn(String.format(
                        "accept failed (%s): pausing accepts, retried every 100 ms and when a connection closes",
                        e.getMessage()));
            }
            failureLogged = true;
        } else {
            LOG.log(Level.ERROR, "accept failed: {0}", e.getMessage());
        }
    }

    /** One new connection: credentials, socket buffer sizes, uid check, then the hand-off to target. */
    void admit(UnixSocket s, ServerLoop<?> target) {
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
            return;
        }
        if (!config.admits(cred.uid())) {
            if (LOG.isLoggable(Level.WARNING)) {
                refusals.warn(String.format("refused connection from uid %d (pid %d): not an allowed uid", cred.uid(),
                        cred.pid()));
            }
            s.close();
            return;
        }
        target.handOff(s, cred);
    }

    private ServerLoop<?> leastLoaded() {
        ServerLoop<?> best = loops[0];
        for (int i = 1; i < loops.length; i++) {
            if (loops[i].connectionCount() < best.connectionCount()) best = loops[i];
        }
        return best;
    }

    private void pause(boolean pause) {
        if (pause == paused) return;
        if (!pause && spareFd < 0) spareFd = takeSpare();
        try {
            watcher.pauseListener(listener.fd(), pause);
            paused = pause;
            pausedAt = System.nanoTime();
        } catch (ErrnoException e) {
            LOG.log(Level.ERROR, "cannot {0} accepting: {1}", pause ? "pause" : "resume", e.getMessage());
        }
    }

    void close() {
        releaseSpare();
        listener.close();
    }
}
