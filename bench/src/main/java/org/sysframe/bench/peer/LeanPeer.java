package org.sysframe.bench.peer;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounts;

/**
 * What the C lean client's loops written in Java ({@link JavaLeanPeer}, {@link JavaLeanPipelinePeer}) share: a name,
 * the CPU their thread is pinned to, the timeout of their sends and receives, and the {@link LeanLink} they move bytes
 * through, whose syscall counts are theirs. Each peer writes its own loop over the link.
 */
abstract class LeanPeer implements PingPeer {
    final String name;
    final int cpu;
    final long timeoutMillis;
    /** The connection while open, else null. */
    LeanLink link;

    LeanPeer(String name, int cpu, long timeoutMillis) {
        this.name = name;
        this.cpu = cpu;
        this.timeoutMillis = timeoutMillis;
    }

    /** Pins the calling thread, connects to path with frameBytes of room for frames and says GR_HELLO as helloId. */
    final void connect(String path, long frameBytes, int helloId) throws ErrnoException {
        link = LeanLink.open(name, path, cpu, timeoutMillis, frameBytes, helloId);
    }

    @Override
    public final String name() { return name; }

    @Override
    public final SyscallCounts libraryCounts() { return link.counts(); }

    @Override
    public final SyscallCounts emptyCounts() { return link.emptyCounts(); }

    /** Closes the connection and its memory (if open); {@link #open} connects again, as for a server started anew. */
    @Override
    public final void close() {
        if (link != null) link.close();
        link = null;
    }
}
