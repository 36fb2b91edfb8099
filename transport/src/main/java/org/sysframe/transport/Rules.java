package org.sysframe.transport;

import org.sysframe.transport.internal.shm.ShmSegment;
import org.sysframe.transport.wire.EventHeader;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Each rule of the client's and server's settings, in one place: the options' setters call it (so a
 * bad value fails where it is set) and so do the frozen configs' constructors (so no config is built
 * past it). Each returns the value it checked.
 */
final class Rules {
    private Rules() {}

    static long timeoutMillis(String what, long ms) {
        if (ms < 0) throw new IllegalArgumentException(what + " " + ms);
        return ms;
    }

    static String helloVersion(String v) {
        if (Objects.requireNonNull(v).getBytes(StandardCharsets.UTF_8).length > 127) {
            throw new IllegalArgumentException("version over 127 bytes");
        }
        return v;
    }

    static int socketBufferSize(int bytes) {
        if (bytes < 0) throw new IllegalArgumentException("buffer " + bytes);
        return bytes;
    }

    static int clientCpu(int cpu) {
        if (cpu < -1) throw new IllegalArgumentException("cpu " + cpu + ": expected a CPU number, or -1 for none");
        return cpu;
    }

    /** Who is admitted by uid, for the client (servers) and the server (clients) alike: a set, or any, not both. */
    static Set<Integer> uids(String setName, Set<Integer> uids, String anyName, boolean any) {
        if (any && uids != null) {
            throw new IllegalArgumentException(anyName + " and " + setName + " " + new TreeSet<>(uids)
                    + " both set: choose one");
        }
        return uids == null ? null : Set.copyOf(uids);
    }

    static int maxInFlight(int n) {
        if (n < 1 || n > ClientOptions.MAX_IN_FLIGHT) {
            throw new IllegalArgumentException("maxInFlight " + n + ": expected 1.." + ClientOptions.MAX_IN_FLIGHT
                    + " (request ids are 16-bit)");
        }
        return n;
    }

    static int connections(int n) {
        if (n < 1 || n > ClientOptions.MAX_CONNECTIONS) {
            throw new IllegalArgumentException("connections " + n + ": expected 1.." + ClientOptions.MAX_CONNECTIONS);
        }
        return n;
    }

    static int mode(int m) {
        if ((m & ~0777) != 0) throw new IllegalArgumentException("mode 0" + Integer.toOctalString(m)
                + ": expected 0000..0777");
        return m;
    }

    static int highWater(int bytes) {
        if (bytes < 1024) throw new IllegalArgumentException("high-water " + bytes + ": at least 1024 bytes");
        return bytes;
    }

    static int maxIfaces(int n) {
        if (n < 0 || n > 0xffff) throw new IllegalArgumentException("max_ifaces " + n + ": expected 0..65535");
        return n;
    }

    static int readBuffer(int bytes) {
        if (bytes < 64) throw new IllegalArgumentException("read buffer " + bytes + ": at least 64 bytes");
        return bytes;
    }

    static int maxQueuedOutput(int bytes, int highWater) {
        if (bytes < 2 * (GroutApi.MAX_MSG_LEN + EventHeader.SIZE) + highWater) {
            throw new IllegalArgumentException("max queued output " + bytes
                    + " is below two full messages plus the high-water mark");
        }
        return bytes;
    }

    static int loops(int n) {
        if (n < 1 || n > 64) throw new IllegalArgumentException("loops " + n + ": expected 1..64");
        return n;
    }

    static void uringRing(int sqEntries, int cqEntries) {
        if (!powerOfTwo(sqEntries, 8, 32768) || !powerOfTwo(cqEntries, sqEntries, 65536)) {
            throw new IllegalArgumentException("io_uring ring of " + sqEntries + " SQEs and " + cqEntries
                    + " CQEs: expected SQEs a power of two from 8 to 32768, CQEs a power of two from the SQEs to "
                            + "65536");
        }
    }

    private static boolean powerOfTwo(int n, int min, int max) {
        return n >= min && n <= max && Integer.bitCount(n) == 1;
    }

    static int maxRequestsPerTurn(int n) {
        if (n < 1) throw new IllegalArgumentException("max requests per turn " + n + ": at least 1");
        return n;
    }

    static int requestsPerRead(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("requests per read " + n + ": 0 (every complete request) or at least 1");
        }
        return n;
    }

    static Duration requestTimeout(Duration d) {
        if (d.toMillis() < 1) throw new IllegalArgumentException("request timeout " + d + ": at least 1 ms");
        return d;
    }

    static Duration idleTimeout(Duration d) {
        if (d.isNegative() || (!d.isZero() && d.toMillis() < 1)) throw new IllegalArgumentException("idle timeout " + d
                + ": 0 (off) or at least 1 ms");
        return d;
    }

    static long memoryBudget(long bytes) {
        if (bytes < RequestHeader.SIZE + GroutApi.MAX_MSG_LEN) {
            throw new IllegalArgumentException("memory budget " + bytes + ": at least one large request ("
                    + (RequestHeader.SIZE + GroutApi.MAX_MSG_LEN) + " bytes)");
        }
        return bytes;
    }

    static void logLimit(int lines, Duration interval) {
        if (lines < 1) throw new IllegalArgumentException("log limit " + lines + " lines: at least 1");
        if (interval.toMillis() < 1) throw new IllegalArgumentException("log interval " + interval + ": at least 1 ms");
    }

    static int[] cpus(int[] cpus) {
        for (int c : cpus) if (c < 0) throw new IllegalArgumentException("cpu " + c + ": expected a CPU number");
        return cpus.clone();
    }

    static int channels(String what, int n) {
        if (n < 1 || n > 4096) throw new IllegalArgumentException(what + " " + n + ": 1 to 4096");
        return n;
    }

    /** A valid ring size, or 0 where off is allowed (a config: no channels). */
    static int ring(int ringBytes, boolean offAllowed) {
        if ((ringBytes != 0 || !offAllowed) && !ShmSegment.validCapacity(ringBytes)) {
            throw new IllegalArgumentException("shared-memory ring of " + ringBytes
                    + " bytes: a power of two from 4096 to 67108864");
        }
        return ringBytes;
    }
}
