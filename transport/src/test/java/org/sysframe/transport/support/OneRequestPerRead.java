package org.sysframe.transport.support;

import org.sysframe.testsupport.WireBytes;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

/**
 * A {@link RawServer} script that serves as Grout's own API loop did (its {@code read_cb} over
 * libevent): each socket read handles one request (an echo) and keeps the rest buffered, not coming
 * back for it until more bytes arrive. Pipelined requests sent together get one answer. It ends at
 * the client's EOF; {@link #answered()} says how many it answered.
 */
public final class OneRequestPerRead implements RawServer.Script {
    private volatile int answered;
    private volatile int mostInOneRead;

    public int answered() { return answered; }

    /**
     * The most whole requests one read left buffered (answered one by one, a read at a time): 1 for a client that never
     * had two on the wire.
     */
    public int mostInOneRead() { return mostInOneRead; }

    @Override
    public void run(RawConn c) throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            long cap = 1 << 20;
            MemorySegment buf = arena.allocate(cap);
            long have = 0;
            while (true) {
                long n;
                try {
                    n = c.socket.recv(buf, have, cap - have, 0);
                } catch (ErrnoException e) {
                    if (e.errno() == Errno.ECONNRESET) return;
                    throw e;
                }
                if (n == 0) return;
                have += n;
                mostInOneRead = Math.max(mostInOneRead, wholeRequests(buf, have));
                if (have < 12) continue;
                int id = buf.get(JAVA_INT_UNALIGNED, 0);
                long len = Integer.toUnsignedLong(buf.get(JAVA_INT_UNALIGNED, 8));
                if (have < 12 + len) continue;
                c.write(WireBytes.response(id, 0, buf.asSlice(12, len).toArray(JAVA_BYTE)));
                answered++;
                MemorySegment.copy(buf, 12 + len, buf, 0, have - 12 - len);
                have -= 12 + len;
            }
        }
    }

    private static int wholeRequests(MemorySegment buf, long have) {
        int n = 0;
        for (long at = 0; at + 12 <= have; n++) {
            long len = Integer.toUnsignedLong(buf.get(JAVA_INT_UNALIGNED, at + 8));
            if (at + 12 + len > have) break;
            at += 12 + len;
        }
        return n;
    }
}
