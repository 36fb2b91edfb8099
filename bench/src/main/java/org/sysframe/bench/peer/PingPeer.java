package org.sysframe.bench.peer;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.uring.UringCounts;

import java.io.IOException;

/**
 * A client a user could pick to do the ping workload: connects and says GR_HELLO, then makes one
 * GR_PING round trip of the prepared length per {@link #ping()}, checking the echo. Used from one
 * thread.
 */
public interface PingPeer extends AutoCloseable {
    /** Short name for tables, e.g. {@code jdk-gather}. */
    String name();

    /** How it frames messages, for the report. */
    String framing();

    /** Connects to path and performs GR_HELLO. */
    void open(String path) throws IOException;

    /** Fills the request payload of len bytes that every {@link #ping()} sends. */
    void prepare(int len);

    /** One round trip; throws if the echo is wrong. */
    void ping() throws IOException;

    /**
     * n timed round trips, each one's latency recorded; the default makes them one after the other
     * with {@link #ping()}, a pipelining peer keeps several in flight.
     */
    default void pingMany(long n, org.HdrHistogram.Histogram latency) throws IOException {
        long prev = System.nanoTime();
        for (long i = 0; i < n; i++) {
            ping();
            long now = System.nanoTime();
            latency.recordValue(Math.min(now - prev, latency.getHighestTrackableValue()));
            prev = now;
        }
    }

    /** The library's own syscall counts of this client, cumulative; null when it keeps none. */
    default SyscallCounts libraryCounts() { return null; }

    /** Of {@link #libraryCounts()}, the calls that moved nothing (EAGAIN), cumulative; null when not kept. */
    default SyscallCounts emptyCounts() { return null; }

    /** The kernel interface it moves bytes with once open: epoll (readiness syscalls) unless it says io_uring. */
    default String backend() { return "epoll"; }

    /**
     * What carries its calls once open: {@code socket}, or {@code shm} for a sysframe client on a shared-memory
     * channel.
     */
    default String transport() { return "socket"; }

    /** With the io_uring backend, the SQEs by opcode and CQEs of this client, cumulative; null otherwise. */
    default UringCounts uringCounts() { return null; }

    /** The server process's pid (SO_PEERCRED), or -1 when unknown. */
    default long serverPid() throws ErrnoException { return -1; }

    @Override
    void close() throws IOException;
}
