package org.sysframe.transport.internal.server;

import org.sysframe.transport.FlushMode;
import org.sysframe.transport.SendFraming;
import org.sysframe.transport.ServerConfig;
import org.sysframe.transport.internal.io.MemoryBudget;
import org.sysframe.transport.internal.io.Outlet;
import org.sysframe.transport.internal.io.OutputBatch;
import org.sysframe.transport.internal.io.Pool;
import org.sysframe.transport.internal.io.SafeLogger;
import org.sysframe.transport.internal.io.UnsentQueue;
import org.sysframe.transport.wire.EventHeader;
import org.sysframe.transport.wire.ResponseHeader;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.IovArray;

import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The output side of a server connection: answers now ({@link FlushMode#IMMEDIATE}) or in an
 * {@link OutputBatch} ({@link FlushMode#DEFERRED}: one gathering write per read, early at the
 * high-water mark, a batch of one small message with the copy framing), and keeps what is not sent
 * yet in the connection's one {@link UnsentQueue}: what the socket would not take (a
 * {@link Outlet.Direct} outlet, epoll), or everything, sent from there ({@link Outlet.FromQueue},
 * io_uring). A slow reader past the queue's limit, or output the memory budget cannot hold, closes the
 * connection. An outlet that batches by itself ({@link Outlet.Direct#batchesTurns()}, a
 * shared-memory ring published as its turn's requests are handled) takes each answer at once, in either mode.
 */
public final class ConnectionOutput {
    /** The connection this output belongs to, as the output sees it. */
    interface Owner {
        boolean isClosed();

        /** Closes the connection (a failed write, a slow reader). */
        void close(String reason);

        /** A deferred batch was started: flush it at the end of the loop turn. */
        void batchStarted();

        int peerPid();

        /** The server's shared limits (memory budget, warnings' rate limits). */
        ServerLimits limits();

        /** Where the output batch's memory is lent from (the loop's pool). */
        Pool<OutputBatch.Memory> batchMemory();

        /** The loop's memory for answers claimed where the outlet has no room of its own ({@link #claim}). */
        MemorySegment claimArea();
    }

    private static final System.Logger LOG = SafeLogger.of("org.sysframe.server");

    private final Owner connection;
    private final ServerConfig config;
    private final Outlet.Direct direct; // null: the outlet sends from the queue
    private final boolean deferred;
    private final MemorySegment header;
    private final OutputBatch batch;
    private final UnsentQueue unsent;
    private boolean dirty;
    private MemorySegment claimMemory = MemorySegment.NULL; // where the last claim is
    private long claimAt = -1; // an answer claimed in the outlet's own memory: its header's offset there; -1: none

    ConnectionOutput(Owner connection, ServerConfig config, Outlet out, Arena arena) {
        this.connection = connection;
        this.config = config;
        this.direct = out instanceof Outlet.Direct d ? d : null;
        this.deferred = config.flush() == FlushMode.DEFERRED && (direct == null || !direct.batchesTurns());
        this.header = arena.allocate(EventHeader.SIZE, 8);
        this.batch = new OutputBatch(connection.batchMemory(), config.highWater());
        this.unsent = new UnsentQueue(out, config.maxQueuedOutput(), connection.limits().memory);
    }

    /** Nothing waits for room: the connection may read (see {@link UnsentQueue#caughtUp()}). */
    boolean caughtUp() { return unsent.caughtUp(); }

    /** Nothing is queued: every answer produced so far has left (to the kernel). */
    boolean allSent() { return unsent.isEmpty(); }

    boolean dirty() { return dirty; }

    /**
     * Sends an answer: where the outlet has room in place for it (a channel's answer ring), its header is written
     * there and its payload copied there, else it is delivered as any message. It abandons a claim not committed.
     */
    void respond(int forId, int status, MemorySegment payload, long off, long len, boolean fromRequest) {
        claimAt = -1;
        long n = ResponseHeader.SIZE + len;
        long at = claimInPlace(n);
        if (at >= 0) {
            if (len > 0) MemorySegment.copy(payload, off, claimMemory, at + ResponseHeader.SIZE, len);
            commitInPlace(at, forId, status, len);
            return;
        }
        if (connection.isClosed()) return;
        ResponseHeader.write(header, 0, forId, status, (int) len);
        deliver(ResponseHeader.SIZE, payload, off, len, fromRequest);
    }

    /**
     * Room for a success answer of len payload bytes that its handler writes in place: their offset in
     * {@link #claimMemory()}. In the outlet's own memory (a channel's answer ring) when it has room and nothing waits
     * to be sent before the answer; else in the loop's claim area, zeroed (it may hold another connection's bytes),
     * from where {@link #commit} sends it as any answer.
     */
    long claim(long len) {
        long at = claimInPlace(ResponseHeader.SIZE + len);
        if (at >= 0) {
            claimAt = at;
            return at + ResponseHeader.SIZE;
        }
        claimAt = -1;
        claimMemory = connection.claimArea();
        zero(claimMemory, len);
        return 0;
    }

    /** Zeroes the first n bytes of seg with no slice of it made (an object per call that C2 does not always remove). */
    private static void zero(MemorySegment seg, long n) {
        long i = 0;
        for (; i + Long.BYTES <= n; i += Long.BYTES) seg.set(ValueLayout.JAVA_LONG_UNALIGNED, i, 0L);
        for (; i < n; i++) seg.set(ValueLayout.JAVA_BYTE, i, (byte) 0);
    }

    /** Where the last {@link #claim}'s offset is. */
    MemorySegment claimMemory() { return claimMemory; }

    /** Sends the answer to forId claimed last, its len payload bytes written. */
    void commit(int forId, long len) {
        long at = claimAt;
        if (at < 0) {
            respond(forId, 0, claimMemory, 0, len, false);
            return;
        }
        claimAt = -1;
        commitInPlace(at, forId, 0, len);
    }

    /**
     * The outlet's room in place for a message of n bytes, when it may take one now: nothing is queued before it and
     * the connection keeps no batch of its own; -1: none (or the connection closed on a bad index read there).
     */
    private long claimInPlace(long n) {
        if (direct == null || deferred || !unsent.isEmpty() || connection.isClosed()) return -1;
        try {
            long at = direct.claim(n);
            if (at >= 0) claimMemory = direct.claimMemory();
            return at;
        } catch (ErrnoException e) {
            connection.close("send failed: " + e.getMessage());
            return -1;
        }
    }

    /** The answer whose payload is written past at (its header's room) in the outlet's memory: its header, and out. */
    private void commitInPlace(long at, int forId, int status, long len) {
        ResponseHeader.write(claimMemory, at, forId, status, (int) len);
        try {
            direct.commit(ResponseHeader.SIZE + len);
        } catch (ErrnoException e) {
            connection.close("send failed: " + e.getMessage());
        }
    }

    /** Sends an event; one that comes while an answer is claimed in place waits in the queue behind that answer. */
    void event(int evType, MemorySegment payload, long off, long len) {
        EventHeader.write(header, 0, evType, len);
        if (claimAt >= 0) queue(EventHeader.SIZE, payload, off, len, 0);
        else deliver(EventHeader.SIZE, payload, off, len, false);
    }

    /** Sends the message whose header is in {@code header}: now (IMMEDIATE) or in the batch (DEFERRED). */
    private void deliver(int hlen, MemorySegment payload, long off, long len, boolean fromRequest) {
        if (!deferred) {
            writeNow(hlen, payload, off, len);
            return;
        }
        if (!batch.hasRoom()) {
            flush();
            if (connection.isClosed()) return;
        }
        if (!unsent.caughtUp()) {
            queue(hlen, payload, off, len, 0); // output is backed up: this goes behind it
            return;
        }
        batch.add(header, hlen, payload, off, len, fromRequest);
        if (!dirty) {
            dirty = true;
            connection.batchStarted();
        }
        if (batch.bytes() >= config.highWater()) flush();
    }

    private void writeNow(int hlen, MemorySegment payload, long off, long len) {
        if (direct == null || !unsent.isEmpty()) {
            queue(hlen, payload, off, len, 0); // the outlet sends from the queue, or output is backed up
            return;
        }
        long written;
        try {
            written = direct.write(header, hlen, payload, off, len);
        } catch (ErrnoException e) {
            connection.close("send failed: " + e.getMessage());
            return;
        }
        if (written < hlen + len) queue(hlen, payload, off, len, written);
    }

    private void queue(int hlen, MemorySegment payload, long off, long len, long skip) {
        if (!unsent.fits(hlen + len - skip)) {
            slowReader(hlen + len - skip);
            return;
        }
        try {
            if (!unsent.append(header, hlen, payload, off, len, skip)) overBudget(hlen + len - skip);
        } catch (ErrnoException e) {
            connection.close("cannot watch for room to write: " + e.getMessage());
        }
    }

    private void slowReader(long more) {
        if (LOG.isLoggable(Level.WARNING)) {
            connection.limits()
                    .slowReader.warn(
                            String.format("pid=%d: slow reader, %d bytes unsent over the %d limit: closing the "
                            + "connection",
                    connection.peerPid(), unsent.size() + more, unsent.limit()));
        }
        connection.close("slow reader");
    }

    private void overBudget(long more) {
        MemoryBudget b = connection.limits().memory;
        if (LOG.isLoggable(Level.WARNING)) {
            connection.limits().overBudget.warn(String.format(
                    "pid=%d: %d bytes unsent and the server's memory budget (%d of %d bytes used) has no room for "
                    + "them: closing the connection",
                    connection.peerPid(), unsent.size() + more, b.used(), b.limit()));
        }
        connection.close("output over the memory budget");
    }

    /**
     * Writes the deferred batch with one gathering write (more if the kernel takes it in parts) and
     * queues what is left. A batch of one message small enough for the copy framing (COPY,
     * COPY_GATHER) is copied and sent with one send instead: the cheapest call for one request/response.
     */
    void flush() {
        dirty = false;
        if (batch.isEmpty() || connection.isClosed()) {
            batch.reset();
            return;
        }
        SendFraming f = config.send();
        boolean copies = f.kind() == SendFraming.Kind.COPY || f.kind() == SendFraming.Kind.COPY_GATHER;
        if (batch.messages() == 1 && copies && batch.bytes() <= f.copyThreshold()) {
            int hlen = batch.copyFirstHeader(header);
            writeNow(hlen, batch.firstPayload(), batch.firstPayloadOffset(), batch.firstPayloadLength());
            batch.reset();
            return;
        }
        IovArray iov = batch.iov();
        try {
            if (direct != null) direct.gather(batch);
            if (!iov.isEmpty()) {
                if (!unsent.fits(iov.remaining())) slowReader(iov.remaining());
                else if (!unsent.appendRemaining(iov)) overBudget(iov.remaining());
            }
        } catch (ErrnoException e) {
            connection.close("writev failed: " + e.getMessage());
        }
        batch.reset();
    }

    /**
     * Sends the unsent queue; true once nothing waits for room. A failure closes the connection (and returns false).
     */
    boolean drain() {
        try {
            return unsent.drain();
        } catch (ErrnoException e) {
            connection.close("send failed: " + e.getMessage());
            return false;
        }
    }

    void close() {
        unsent.close();
        batch.close();
    }
}
