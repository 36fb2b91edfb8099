package org.sysframe.transport.internal.server;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Publishes an event to the subscribers of every loop: directly on the publishing loop, and through
 * the task queue (no lock) on the others, which get a copy of the payload since the publisher's memory
 * is only valid during the call. Loops without subscribers cost one volatile read.
 */
public final class EventFanout {
    private final ServerLoop<?>[] loops;
    // Shared-memory channels' loops: they come and go.
    private final CopyOnWriteArrayList<ServerLoop<?>> channels = new CopyOnWriteArrayList<>();

    public EventFanout(ServerLoop<?>[] loops) {
        this.loops = loops.clone();
    }

    /** A shared-memory channel's loop receives events from now on (any thread). */
    public void add(ServerLoop<?> channel) { channels.add(channel); }

    /** ... and no more. */
    public void remove(ServerLoop<?> channel) { channels.remove(channel); }

    void publish(int evType, MemorySegment payload, long off, long len, int causePid) {
        MemorySegment copy = publish(loops, null, evType, payload, off, len, causePid);
        if (!channels.isEmpty()) publish(channels.toArray(new ServerLoop<?>[0]), copy, evType, payload, off, len,
                causePid);
    }

    private static MemorySegment publish(ServerLoop<?>[] loops, MemorySegment copy, int evType, MemorySegment payload,
            long off, long len, int causePid) {
        for (ServerLoop<?> loop : loops) {
            if (!loop.hasSubscribers()) continue;
            if (loop.isCurrentThread()) {
                loop.publishHere(evType, payload, off, len, causePid);
                continue;
            }
            if (copy == null) {
                copy = Arena.ofAuto().allocate(Math.max(1, len), 8).asSlice(0, len);
                MemorySegment.copy(payload, off, copy, 0, len);
            }
            loop.publishLater(evType, copy, causePid);
        }
        return copy;
    }
}
