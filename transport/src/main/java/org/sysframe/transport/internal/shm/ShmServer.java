package org.sysframe.transport.internal.shm;

import org.sysframe.transport.internal.server.ServerConnection;
import org.sysframe.transport.internal.server.ServerLoop;
import org.sysframe.transport.wire.ResponseHeader;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SharedMemory;
import org.sysframe.unix.UnixSocket;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * The server's side of SHM_OPEN, on the loop thread of the connection that asked: a sealed segment,
 * a {@link ShmLoop} (its own thread) serving it with the server's routes, and the answer sent with
 * the memfd attached (one sendmsg, SCM_RIGHTS) on the connection's socket. The channel ends with the
 * socket's connection, and the connection with the channel.
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
public final class ShmServer {
    private static final Logger LOG = System.getLogger("org.sysframe.server");
    private static final AtomicInteger CHANNELS = new AtomicInteger();

    private static final java.util.Set<ShmLoop> OPEN = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private ShmServer() {}

    /** SHM_OPEN as the routes of a server offering channels answer it. */
    public static final org.sysframe.transport.internal.server.ChannelOpener OPENER = new org.sysframe.transport.internal.server.ChannelOpener() {
        @Override
        public int type() { return ShmProtocol.OPEN; }

        @Override
        public void open(ServerConnection c, ServerLoop<?> host, int id) { ShmServer.open(c, host, id); }
    };

    /** The channels' loops serving now, in this process (their thread ids and counters, for measurements). */
    public static java.util.List<ServerLoop<?>> channels() { return java.util.List.copyOf(OPEN); }

    static void ended(ShmLoop loop) { OPEN.remove(loop); }

    /** Answers SHM_OPEN request id of c (after GR_HELLO, with the server offering channels). */
    public static void open(ServerConnection c, ServerLoop<?> host, int id) {
        UnixSocket socket = c.socketOrNull();
        if (socket == null) {
            // io_uring owns the socket's operations: no second writer on it.
            c.respond(id, Errno.ENOTSUP, MemorySegment.NULL, 0, 0, false);
            return;
        }
        if (!c.allSent()) {
            c.respond(id, Errno.EBUSY, MemorySegment.NULL, 0, 0, false);
            return;
        }
        Slot slot = Slot.take(host.limits(), host.config.sharedMemoryChannels(), ShmSegment.sizeFor(host.config.sharedMemoryRing()), c.peerPid());
        if (slot == null) {
            c.respond(id, Errno.EBUSY, MemorySegment.NULL, 0, 0, false);
            return;
        }
        int[] fd = {-1};
        ShmSegment segment;
        try {
            segment = ShmSegment.create("sysframe-shm", host.config.sharedMemoryRing(), fd);
        } catch (ErrnoException e) {
            slot.release();
            LOG.log(Level.WARNING, String.format("pid=%d: no shared-memory channel (%s): the client stays on the socket",
                    c.peerPid(), e.getMessage()));
            c.respond(id, Errno.ENOTSUP, MemorySegment.NULL, 0, 0, false);
            return;
        }
        ShmLoop loop;
        try {
            loop = new ShmLoop(CHANNELS.incrementAndGet(), host, segment, c, c.peerPid(), c.peerUid(), slot);
        } catch (ErrnoException e) {
            segment.close();
            slot.release();
            SharedMemory.close(fd[0]);
            LOG.log(Level.WARNING, String.format("pid=%d: no shared-memory channel (%s): the client stays on the socket",
                    c.peerPid(), e.getMessage()));
            c.respond(id, Errno.ENOTSUP, MemorySegment.NULL, 0, 0, false);
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            OPEN.add(loop);
            if (!loop.begin()) {
                OPEN.remove(loop);
                slot.release();
                SharedMemory.close(fd[0]);
                c.respond(id, Errno.ENOTSUP, MemorySegment.NULL, 0, 0, false);
                return;
            }
            MemorySegment answer = a.allocate(ResponseHeader.SIZE + ShmProtocol.RESPONSE_SIZE, 8);
            ResponseHeader.write(answer, 0, id, 0, ShmProtocol.RESPONSE_SIZE);
            answer.set(JAVA_INT_UNALIGNED, ResponseHeader.SIZE, ShmSegment.MAGIC);
            answer.set(JAVA_INT_UNALIGNED, ResponseHeader.SIZE + 4, ShmSegment.VERSION);
            answer.set(JAVA_LONG_UNALIGNED, ResponseHeader.SIZE + 8, segment.size());
            c.onClose(loop::stop);
            long n = socket.sendFd(answer, 0, answer.byteSize(), fd[0]);
            if (n != answer.byteSize()) c.close("shared-memory answer cut short: " + n + " of " + answer.byteSize() + " bytes sent");
        } catch (ErrnoException e) {
            c.close("cannot send the shared-memory segment: " + e.getMessage());
        } finally {
            SharedMemory.close(fd[0]); // the client has its own now; the server keeps the mapping
        }
        if (LOG.isLoggable(Level.DEBUG)) LOG.log(Level.DEBUG, "pid=" + c.peerPid() + ": shared-memory channel of " + segment.size() + " bytes");
    }

    /**
     * A channel's share of the server's limits: one of {@link org.sysframe.transport.ServerOptions#sharedMemoryChannels}
     * and its segment's bytes of the memory budget, given back once (when the segment is unmapped).
     */
    static final class Slot {
        private final org.sysframe.transport.internal.server.ServerLimits limits;
        private final long bytes;
        private final java.util.concurrent.atomic.AtomicBoolean held = new java.util.concurrent.atomic.AtomicBoolean(true);

        private Slot(org.sysframe.transport.internal.server.ServerLimits limits, long bytes) {
            this.limits = limits;
            this.bytes = bytes;
        }

        /** The slot, or null (logged, rate-limited) when max channels are open or the budget has no room for bytes. */
        static Slot take(org.sysframe.transport.internal.server.ServerLimits limits, int max, long bytes, int peerPid) {
            if (limits.channels.incrementAndGet() > max) {
                limits.channels.decrementAndGet();
                limits.channelRefused.warn(String.format("pid=%d: shared-memory channel refused: %d channels open, the limit: the client stays on the socket",
                        peerPid, max));
                return null;
            }
            if (!limits.memory.tryTake(bytes)) {
                limits.channels.decrementAndGet();
                limits.channelRefused.warn(String.format(
                        "pid=%d: shared-memory channel refused: its %d bytes do not fit the memory budget (%d of %d bytes used): the client stays on the socket",
                        peerPid, bytes, limits.memory.used(), limits.memory.limit()));
                return null;
            }
            return new Slot(limits, bytes);
        }

        /** Gives the channel and its bytes back (idempotent). */
        void release() {
            if (!held.compareAndSet(true, false)) return;
            limits.memory.give(bytes);
            limits.channels.decrementAndGet();
        }
    }
}
