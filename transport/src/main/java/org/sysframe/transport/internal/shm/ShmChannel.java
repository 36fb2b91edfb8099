package org.sysframe.transport.internal.shm;

import org.sysframe.transport.FlushMode;
import org.sysframe.transport.WaitMode;
import org.sysframe.transport.internal.io.InputBuffer;
import org.sysframe.transport.internal.io.Outlet;
import org.sysframe.transport.internal.io.OutputBatch;
import org.sysframe.transport.internal.server.HostedChannel;
import org.sysframe.transport.internal.server.ServerConnection;
import org.sysframe.transport.internal.server.ServerLoop;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.EventFd;
import org.sysframe.unix.Futex;
import org.sysframe.unix.IovArray;
import org.sysframe.unix.SyscallCounters;

import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The server's side of one shared-memory channel, served by the loop of the socket connection that
 * opened it ({@link HostedChannel}): its connection is a {@link ServerConnection} like any other (the
 * same routes, handlers, limits, subscriptions and events), whose bytes come from the request ring and
 * whose answers and events go into the answer ring.
 *
 * <p>The loop looks at the rings in its turns with no syscall. Before it sleeps in its wait
 * (epoll_wait, io_uring_enter) it says so in the ring's sleeping word; the client, when it published
 * and sees the word, writes the channel's eventfd, which the loop watches edge-triggered (every write
 * an event, the eventfd never read). The client sleeps on a futex word, which the loop wakes after it
 * published.
 *
 * <p>Why no thread per channel: a loop polls every channel it owns, as VPP's main thread polls its
 * clients' queues, so that 64 channels cost no thread at all. The price of a loop sleeping in its wait
 * rather than on the ring's futex is the client's wake-up, a write to an eventfd instead of a futex
 * wake: one syscall either way.
 *
 * <p>A bad index or length read from the segment closes the channel and its socket's connection with
 * one logged line (WARNING, {@code org.sysframe.server}); the loop goes on serving the rest.
 */
final class ShmChannel implements HostedChannel, Outlet.Direct {
    /** How every error about the segment's contents begins ({@link ShmRing}). */
    private static final String BAD = "shared memory: ";

    /**
     * A turn publishes what it wrote at its end, and also as soon as this many bytes of it are written and not
     * published: the client reads a turn's first answers while the loop writes the rest (a publish is a release
     * store, no syscall). 1 KiB made the most of a depth-64 pipeline of 32-byte pings, both sides spinning, on this
     * project's 2-core guest: about a quarter more calls/s than one publish per turn, where a publish per answer gained
     * half as much and 2 KiB less (docs/shared-memory.md).
     */
    static final long PUBLISH_EVERY = 1024;

    private final ServerLoop<?> host;
    private final ShmServer.Slot slot; // its share of the server's channels and memory budget
    private final ShmSegment segment;
    private final ShmRing in;
    private final ShmRing out;
    private final MemorySegment answerBytes; // the answer ring's bytes only (not its words): where claims are
    private final EventFd bell;  // the client writes it to wake the loop; watched by the loop's set
    private final ServerConnection socketSide;
    private final SyscallCounters counters;
    private final Arena arena = Arena.ofConfined(); // on the loop's thread, as every use
    private final Futex futex;
    private final boolean perTurn;
    private ServerConnection connection;
    private ErrnoException corrupt;
    private boolean writable;
    private boolean inputPaused;
    private boolean ended;

    ShmChannel(ServerLoop<?> host, ShmSegment segment, EventFd bell, ServerConnection socketSide, ShmServer.Slot slot) {
        this.host = host;
        this.slot = slot;
        this.segment = segment;
        this.in = segment.requests();
        this.out = segment.answers();
        this.answerBytes = out.memory().asSlice(out.bytesAt(), 2L * out.capacity());
        this.bell = bell;
        this.socketSide = socketSide;
        this.counters = host.newConnectionCounters();
        this.futex = new Futex(counters, arena);
        this.perTurn = host.config().flush() == FlushMode.DEFERRED;
        boolean neverSleeps = !slot.waitMode().blocks(); // spin, yield: the loop spins while this channel is open
        in.consumerNeverSleeps(neverSleeps);
        out.producerNeverSleeps(neverSleeps);
    }

    /** The loop that serves it. */
    ServerLoop<?> host() { return host; }

    @Override
    public WaitMode waitMode() { return slot.waitMode(); }

    // ---------------------------------------------------------------- as its loop sees it

    @Override
    public boolean ready() { return corrupt != null || look(false); }

    @Override
    public boolean sleeping() { return look(true); }

    /**
     * Whether there is work: the room the channel waits for, else requests (none while its input is
     * paused); before a sleep (sleep true) the ring's word first says that the loop sleeps. A bad index
     * read is work too: the turn closes the channel.
     */
    private boolean look(boolean sleep) {
        try {
            if (writable) return (sleep ? out.producerSleeps() : out.room()) > 0;
            return !inputPaused && (sleep ? in.consumerSleeps() : in.available()) > 0;
        } catch (ErrnoException e) {
            corrupt = e;
            return true;
        }
    }

    @Override
    public void awake() {
        in.consumerAwake();
        out.producerAwake();
    }

    /**
     * Gives the connection the ring's bytes, and room to write when the answer ring has it. The answers to the
     * requests taken are published once those are handled, not at the end of the loop's turn: a one-at-a-time client
     * waits for nothing else the turn does (other connections and channels, the turn's batches).
     */
    @Override
    public void serve() {
        if (!connection.isClosed() && ready()) take(connection);
    }

    /**
     * {@link #serve} when there is work: a method of its own, so that the compiler's profile of it is of work only. A
     * spinning loop's turns are mostly idle, and in a profile of both, the work's calls looked rare to the compiler,
     * which left them out of line: a call each, a dozen per request.
     */
    private void take(ServerConnection c) {
        try {
            if (corrupt != null) throw corrupt;
            if (writable && out.room() > 0) c.onWritable();
            if (!c.isClosed() && c.wantsInput() && !inputPaused) {
                InputBuffer input = c.input();
                input.ready();
                long n = in.take(input.segment(), input.end(), input.free());
                if (n > 0) {
                    if (in.producerWaits()) futex.wake(in.memory(), in.producerWord(), 1);
                    input.produced(n);
                    c.onInput();
                    if (out.unpublished() > 0 && !c.isClosed()) publish();
                }
            }
        } catch (ErrnoException e) {
            c.close(e.getMessage()); // logged by closed()
        }
    }

    /** Publishes what the turn wrote since (an event, an answer that waited for room). */
    @Override
    public void endOfTurn() {
        if (out.unpublished() == 0 || connection.isClosed()) return;
        try {
            publish();
        } catch (ErrnoException e) {
            connection.close(e.getMessage());
        }
    }

    /**
     * The channel's connection closed: its eventfd leaves the loop's set and is closed, the segment is
     * unmapped, its share of the limits given back, and the connection of its socket ends too. A close
     * for a bad value read from the segment (on whichever path it was read) is logged, once.
     */
    @Override
    public void closed(String reason) {
        if (ended) return;
        ended = true;
        int at = reason.indexOf(BAD);
        if (at >= 0) ServerLoop.LOG.log(Level.WARNING, "pid=" + connection.peerPid()
                + ": shared-memory channel closed: " + reason.substring(at));
        try {
            host.driver().unwatchChannel(bell.fd());
        } catch (ErrnoException e) {
            ServerLoop.LOG.log(Level.ERROR, "cannot unwatch a shared-memory channel: " + e.getMessage());
        }
        bell.close();
        segment.close();
        arena.close();
        slot.release();
        socketSide.close("its shared-memory channel ended");
        ShmServer.ended(this); // last: once it is not listed, its socket is closed too
    }

    // ---------------------------------------------------------------- as its connection's outlet

    @Override
    public boolean batchesTurns() { return perTurn; }

    @Override
    public ServerConnection connection() { return connection; }

    @Override
    public void attach(ServerConnection c) { connection = c; }

    @Override
    public long write(MemorySegment header, int hlen, MemorySegment payload, long off, long len) throws ErrnoException {
        long n = out.put(header, 0, hlen);
        if (n == hlen && len > 0) n += out.put(payload, off, len);
        wrote(n == hlen + len);
        return n;
    }

    @Override
    public void gather(OutputBatch batch) throws ErrnoException {
        IovArray iov = batch.iov();
        long want = iov.remaining();
        long n = out.put(iov, 0, want);
        wrote(n == want);
        iov.advance(n);
    }

    @Override
    public long send(MemorySegment seg, long off, long len) throws ErrnoException {
        long n = out.put(seg, off, len);
        wrote(n == len);
        return n;
    }

    /** Room in the answer ring itself, when it has n bytes of it now (an answer longer than the ring never has). */
    @Override
    public long claim(long n) throws ErrnoException {
        if (n > out.capacity()) return -1;
        long at = out.claim(n);
        return at < 0 ? -1 : at - out.bytesAt();
    }

    @Override
    public MemorySegment claimMemory() { return answerBytes; }

    @Override
    public void commit(long n) throws ErrnoException {
        out.commit(n);
        wrote(true);
    }

    /**
     * After a put: published once the requests read are handled or at the end of the turn (deferred flush mode), or
     * once {@link #PUBLISH_EVERY} bytes wait, else now; now too when the ring is full, so that the client starts
     * making room while the rest waits in the connection's queue.
     */
    private void wrote(boolean all) throws ErrnoException {
        if (!perTurn || !all || out.unpublished() >= PUBLISH_EVERY) publish();
    }

    private void publish() throws ErrnoException {
        if (out.publish()) futex.wake(out.memory(), out.consumerWord(), 1);
    }

    @Override
    public void wantWritable(boolean on) { writable = on; }

    @Override
    public void pauseInput(boolean paused) { inputPaused = paused; }

    @Override
    public SyscallCounters counters() { return counters; }

    /** Its connection's close: everything is freed by {@link #closed}, which knows why. */
    @Override
    public void close() {}
}
