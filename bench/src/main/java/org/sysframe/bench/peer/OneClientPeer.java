package org.sysframe.bench.peer;

import org.sysframe.transport.Backend;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.Response;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.uring.UringCounts;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

/**
 * One caller of a {@link GroutClient} that others call at the same time: its own payload segment
 * (confined to its thread), one {@code call} per ping, the echo checked in place in the answer (the
 * calling thread's own view). The client's counts are the one client's, not this caller's:
 * {@link CallersProbe} takes them once.
 */
public final class OneClientPeer implements PingPeer {
    private final String name;
    private final GroutClient client;
    private final LongAdder timedOut;
    private final Arena arena = Arena.ofConfined(); // this caller's thread: made there by the probe's factory
    private final MemorySegment payload = arena.allocate(GroutApi.MAX_MSG_LEN);
    private int len;

    public OneClientPeer(String name, GroutClient client) {
        this(name, client, new LongAdder());
    }

    /**
     * A caller that adds each of its calls that timed out (ETIMEDOUT, which still fails the call) to timedOut, shared
     * by its row's callers.
     */
    public OneClientPeer(String name, GroutClient client, LongAdder timedOut) {
        this.name = name;
        this.client = client;
        this.timedOut = timedOut;
    }

    @Override public String name() { return name; }

    @Override
    public String framing() {
        return "one client: the caller doing the I/O sends what the others queued in one send and receives for all";
    }

    /** The client is connected already (one for every caller): nothing to do. */
    @Override public void open(String path) {}

    @Override public String backend() { return client.backend().toString(); }

    @Override public String transport() { return client.sharedMemory() ? "shm" : "socket"; }

    @Override
    public void prepare(int len) {
        this.len = len;
        Echo.fill(payload, len);
    }

    @Override
    public void ping() throws IOException {
        Response r;
        try {
            r = client.call(GroutApi.PING, payload, 0, len);
        } catch (ErrnoException e) {
            if (e.errno() == Errno.ETIMEDOUT) timedOut.increment();
            throw e;
        }
        Echo.check(GroutApi.PING, payload, len, r.buffer(), r.offset(), r.length());
    }

    @Override
    public long serverPid() throws ErrnoException { return client.serverCredentials().pid(); }

    /**
     * The client's own counts for {@link CallersProbe}: every syscall it made, whichever caller made it
     * (and its SQEs on io_uring with one connection: the client gives a pool's first connection's only).
     */
    public static CallersProbe.Counts counts(GroutClient client) {
        return new CallersProbe.Counts() {
            @Override public SyscallCounts library() { return client.counters().snapshot(); }

            @Override public SyscallCounts empty() { return client.counters().emptySnapshot(); }

            @Override public UringCounts uring() {
                boolean uring = client.backend() == Backend.IO_URING;
                return uring && client.config().connections() == 1 ? client.uringCounts() : null;
            }
        };
    }

    /**
     * The kinds for {@link CallersProbe#kernelKinds}: over a shared-memory channel the library's, futex (its wait's
     * call) and write ({@link CallersProbe#SHARED_MEMORY}), else the library's, read and write (its eventfd's,
     * {@link CallersProbe#SOCKETS}).
     */
    public static Set<SyscallKind> kernelKinds(GroutClient client) {
        return client.sharedMemory() ? CallersProbe.SHARED_MEMORY : CallersProbe.SOCKETS;
    }

    /** Frees this caller's memory; the client is closed by its owner. */
    @Override
    public void close() { arena.close(); }
}
