package org.sysframe.transport.internal.shm;

import org.sysframe.transport.ServerConfig;
import org.sysframe.transport.WaitMode;
import org.sysframe.transport.internal.io.SafeLogger;
import org.sysframe.transport.internal.server.ChannelOpener;
import org.sysframe.transport.internal.server.ServerConnection;
import org.sysframe.transport.internal.server.ServerLimits;
import org.sysframe.transport.internal.server.ServerLoop;
import org.sysframe.transport.wire.ResponseHeader;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.EventFd;
import org.sysframe.unix.SharedMemory;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.UnixSocket;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * The server's side of SHM_OPEN, on the loop thread of the connection that asked: a sealed segment and
 * an eventfd, a channel ({@link ShmChannel}) that this same loop serves with the server's routes beside
 * its sockets, and the answer sent with the memfd and the eventfd attached (one sendmsg, SCM_RIGHTS) on
 * the connection's socket. The channel ends with the socket's connection, and the connection with the
 * channel.
 */
public final class ShmServer {
    private static final Logger LOG = SafeLogger.of("org.sysframe.server");
    private static final Set<ShmChannel> OPEN = ConcurrentHashMap.newKeySet();

    private ShmServer() {}

    /** SHM_OPEN as the routes of a server offering channels answer it. */
    public static final ChannelOpener OPENER = new ChannelOpener() {
        @Override
        public int type() { return ShmProtocol.OPEN; }

        @Override
        public void open(ServerConnection c, ServerLoop<?> host, int id) { ShmServer.open(c, host, id); }
    };

    /**
     * The loops serving the channels open now in this process, one entry per channel (their thread ids
     * and counters, for measurements).
     */
    public static List<ServerLoop<?>> channels() {
        List<ServerLoop<?>> loops = new ArrayList<>();
        for (ShmChannel ch : OPEN) loops.add(ch.host());
        return loops;
    }

    static void ended(ShmChannel channel) { OPEN.remove(channel); }

    /** Answers SHM_OPEN request id of c (after GR_HELLO, with the server offering channels). */
    public static void open(ServerConnection c, ServerLoop<?> host, int id) {
        UnixSocket socket = c.socketOrNull();
        if (socket == null) {
            // A channel's own connection: no socket to pass descriptors on.
            c.respond(id, Errno.ENOTSUP, MemorySegment.NULL, 0, 0, false);
            return;
        }
        if (c.hasChannel()) {
            // One channel per connection: a second would outlive the connection's close, which ends one.
            host.limits()
                    .channelRefused.warn(
                            String.format("pid=%d: shared-memory channel refused: its connection has one already",
                            c.peerPid()));
            c.respond(id, Errno.EALREADY, MemorySegment.NULL, 0, 0, false);
            return;
        }
        if (!c.allSent()) {
            // The answer goes out on the socket directly, beside the driver: only with nothing of its under way.
            c.respond(id, Errno.EBUSY, MemorySegment.NULL, 0, 0, false);
            return;
        }
        long bytes = ShmSegment.sizeFor(host.config().sharedMemoryRing());
        Slot slot = Slot.take(host.limits(), host.config(), bytes, c.peerPid(), c.peerUid());
        if (slot == null) {
            c.respond(id, Errno.EBUSY, MemorySegment.NULL, 0, 0, false);
            return;
        }
        int[] fd = {-1};
        ShmSegment segment;
        try {
            segment = ShmSegment.create("sysframe-shm", host.config().sharedMemoryRing(), fd);
        } catch (ErrnoException e) {
            slot.release();
            noChannel(c, id, e);
            return;
        }
        EventFd bell;
        try {
            bell = EventFd.open(new SyscallCounters("shared-memory wake-up (its client)"));
            try {
                host.driver().watchChannel(bell.fd());
            } catch (ErrnoException e) {
                bell.close();
                throw e;
            }
        } catch (ErrnoException e) {
            segment.close();
            slot.release();
            SharedMemory.close(fd[0]);
            noChannel(c, id, e);
            return;
        }
        ShmChannel channel = new ShmChannel(host, segment, bell, c, slot);
        OPEN.add(channel);
        ServerConnection served = host.adoptChannel(channel, c.peerPid(), c.peerUid());
        // from here on the channel ends with the connection, whatever happens next
        c.onClose(() -> served.close("its connection closed"));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment answer = a.allocate(ResponseHeader.SIZE + ShmProtocol.RESPONSE_SIZE, 8);
            ResponseHeader.write(answer, 0, id, 0, ShmProtocol.RESPONSE_SIZE);
            answer.set(JAVA_INT_UNALIGNED, ResponseHeader.SIZE, ShmSegment.MAGIC);
            answer.set(JAVA_INT_UNALIGNED, ResponseHeader.SIZE + 4, ShmSegment.VERSION);
            answer.set(JAVA_LONG_UNALIGNED, ResponseHeader.SIZE + 8, segment.size());
            long n = socket.sendFds(answer, 0, answer.byteSize(), fd[0], bell.fd());
            if (n != answer.byteSize()) c.close("shared-memory answer cut short: " + n + " of " + answer.byteSize()
                    + " bytes sent");
        } catch (ErrnoException e) {
            c.close("cannot send the shared-memory segment: " + e.getMessage());
        } finally {
            SharedMemory.close(fd[0]); // the client has its own now; the server keeps the mapping
        }
        if (LOG.isLoggable(Level.DEBUG)) LOG.log(Level.DEBUG, "pid=" + c.peerPid() + ": shared-memory channel of "
                + segment.size() + " bytes");
    }

    /** What made the channel is freed: SHM_OPEN is answered ENOTSUP, with one line saying why. */
    private static void noChannel(ServerConnection c, int id, ErrnoException why) {
        LOG.log(Level.WARNING, String.format("pid=%d: no shared-memory channel (%s): the client stays on the socket",
                c.peerPid(), why.getMessage()));
        c.respond(id, Errno.ENOTSUP, MemorySegment.NULL, 0, 0, false);
    }

    /**
     * A channel's share of the server's limits: one of {@code ServerOptions.sharedMemoryChannels}, one of
     * its peer uid's {@code ServerOptions.sharedMemoryChannelsPerUid}, its segment's bytes of the memory
     * budget and, for a channel asked to spin, one of the spinning channels' places when one is free
     * ({@link #waitMode()}); all given back once, when the segment is unmapped.
     */
    static final class Slot {
        private final ServerLimits limits;
        private final long bytes;
        private final int uid;
        private final WaitMode waitMode;
        private final boolean spinning;
        private final AtomicBoolean held = new AtomicBoolean(true);

        private Slot(ServerLimits limits, long bytes, int uid, WaitMode waitMode, boolean spinning) {
            this.limits = limits;
            this.bytes = bytes;
            this.uid = uid;
            this.waitMode = waitMode;
            this.spinning = spinning;
        }

        /**
         * The slot, or null (logged, rate-limited) when the server's or the uid's channels are all open or
         * the budget has no room for bytes.
         */
        static Slot take(ServerLimits limits, ServerConfig config, long bytes, int peerPid, int peerUid) {
            int max = config.sharedMemoryChannels();
            if (limits.channels.incrementAndGet() > max) {
                limits.channels.decrementAndGet();
                limits.channelRefused.warn(
                        String.format("pid=%d: shared-memory channel refused: %d channels open, the limit: the client "
                        + "stays on the socket",
                        peerPid, max));
                return null;
            }
            int perUid = config.sharedMemoryChannelsPerUid();
            if (!limits.takeChannelOfUid(peerUid, perUid)) {
                limits.channels.decrementAndGet();
                limits.channelRefused.warn(String.format(
                        "pid=%d: shared-memory channel refused: uid %d has %d channels open, the limit per uid: the "
                        + "client stays on the socket",
                        peerPid, peerUid, perUid));
                return null;
            }
            if (!limits.memory.tryTake(bytes)) {
                limits.giveChannelOfUid(peerUid);
                limits.channels.decrementAndGet();
                limits.channelRefused.warn(String.format(
                        "pid=%d: shared-memory channel refused: its %d bytes do not fit the memory budget (%d of %d "
                        + "bytes used): the client stays on the socket",
                        peerPid, bytes, limits.memory.used(), limits.memory.limit()));
                return null;
            }
            WaitMode mode = config.channelWaitMode();
            boolean spinning = false;
            if (!mode.blocks()) {
                spinning = limits.takeSpinning();
                if (!spinning) {
                    limits.channelSleeps.warn(String.format(
                            "pid=%d: shared-memory channel waits %s, not %s: as many channels spin as the server's "
                            + "CPUs allow",
                            peerPid, SLEEPER, mode));
                    mode = SLEEPER;
                }
            }
            return new Slot(limits, bytes, peerUid, mode, spinning);
        }

        /** How the channel waits: as configured, or {@link #SLEEPER} past the spinning channels' limit. */
        WaitMode waitMode() { return waitMode; }

        /** Gives the channel, its uid's share, its bytes and its spinning place back (idempotent). */
        void release() {
            if (!held.compareAndSet(true, false)) return;
            limits.memory.give(bytes);
            limits.giveChannelOfUid(uid);
            if (spinning) limits.giveSpinning();
            limits.channels.decrementAndGet();
        }
    }

    /** How a channel asked to spin waits once the spinning channels' places are taken. */
    static final WaitMode SLEEPER = WaitMode.spinThenBlock(Duration.ofNanos(50_000));
}
