package org.sysframe.transport.internal.uring;

import org.sysframe.unix.internal.uring.Sqe;

import java.util.HashMap;
import java.util.Map;

/**
 * The multishot POLL_ADDs that watch the eventfds of a loop's shared-memory channels: edge-triggered (a
 * completion per write of the client, the eventfd never read), so that a write ends the loop's sleep as
 * a socket's completion does. Each poll's user data holds a number of its own and the fd, so that a
 * completion of a poll already cancelled (its channel closed, the fd perhaps reused by another
 * channel) is told from the current one. Loop thread only.
 */
final class ChannelPolls {
    private final UringRing io;
    /** The user data of the poll watching each channel's eventfd. */
    private final Map<Integer, Long> pollOf = new HashMap<>();
    private long polls;

    ChannelPolls(UringRing io) { this.io = io; }

    /** Watches fd with a new poll. */
    void arm(int fd) {
        long ud = UserData.of(UserData.CHANNEL, (++polls & 0xffffff) << 32 | fd);
        pollOf.put(fd, ud);
        io.sqe().prepPollAdd(fd, Sqe.POLLIN, true).userData(ud);
    }

    /** Cancels fd's poll (the poll holds the file: its close alone would not end it). */
    void cancel(int fd) {
        Long ud = pollOf.remove(fd);
        if (ud == null) return;
        io.sqe().prepCancel(ud, 0, 0).userData(UserData.of(UserData.CHANNEL_CANCEL, 0));
    }

    /**
     * The poll of ud ended: cancelled (its channel closed), or by itself while it still watches its
     * channel (armed again, while rearm says the loop runs).
     */
    void ended(long ud, boolean rearm) {
        io.lastCompletion();
        int fd = (int) UserData.data(ud);
        Long watching = pollOf.get(fd);
        if (rearm && watching != null && watching == ud) arm(fd);
    }
}
