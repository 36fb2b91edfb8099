package org.sysframe.bench.peer;

import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.transport.wire.ResponseHeader;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.UnixSocket;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

/**
 * The lean C client's pipelined loop ({@code sysframe_ping -L -d DEPTH -W block}) in Java: the same syscalls through
 * the project's FFM binding ({@link UnixSocket}) and nothing of the library's client. A window of frames built once
 * (header and payload) in one array, a request's id carrying its slot in the low bits, so that an answer finds its
 * slot from its id alone; whenever answers come, one send of the first frames refilling the slots they freed (only
 * their ids written), then a blocking recv into a 1 MiB read-ahead. Each answer's id, status, length and last byte are
 * checked, as C lean checks them. No clock per request: its runs record no latency, as C lean's do not. It is what
 * the JVM reaches with the least work per request, between the C lean row (the language's part of the pipelined
 * client's gap: the downcalls, the loop's code) and sysframe's {@link PipelinedPeer} (the library's).
 *
 * <p>The window is {@link PipelinedPeer#windowFor}'s, as for sysframe's client: requests in flight stay within what
 * the socket buffers hold, so that the blocking send of a refill never waits for a server that waits for its answers
 * to be read. A send or receive that waits longer than the timeout fails with ETIMEDOUT.
 */
public final class JavaLeanPipelinePeer extends LeanPeer {
    /** How it frames and waits, for the report (after the depth). */
    static final String FRAMING = "frames built once, one FFM send per refill as answers come, blocking recv into"
            + " a 1 MiB read-ahead, no clock per request (the C lean client's loop in Java)";
    private final int depth;
    private final int bits;
    private int[] slotId;     // the id in flight in each slot, 0: free
    private int[] freeSlots;  // a stack of the free slots
    private int free;
    private int seq;
    private int len;
    private int frame;        // header and payload bytes
    private int window;
    private byte last;
    private long rpos;        // the unread bytes of in are [rpos, rlen)
    private long rlen;
    private long refills;

    /** A peer keeping depth requests in flight, whose thread runs on cpu (pinned as it connects). */
    public JavaLeanPipelinePeer(String name, int cpu, int depth) {
        this(name, cpu, depth, JavaLeanPeer.TIMEOUT_MILLIS);
    }

    /** As above, its sends and receives waiting at most timeoutMillis. */
    JavaLeanPipelinePeer(String name, int cpu, int depth, long timeoutMillis) {
        super(name, cpu, timeoutMillis);
        if (depth < 1 || depth > 4096) throw new IllegalArgumentException("depth " + depth + ": expected 1..4096");
        this.depth = depth;
        this.bits = 32 - Integer.numberOfLeadingZeros(depth - 1);
    }

    @Override
    public String framing() { return "Java lean, depth " + depth + ", " + FRAMING; }

    /** Pins the calling thread, connects to path and says GR_HELLO. */
    @Override
    public void open(String path) throws IOException {
        // A window's frames: at most the bytes in flight that windowFor allows, or one largest frame.
        connect(path, PipelinedPeer.BYTES_IN_FLIGHT + RequestHeader.SIZE + GroutApi.MAX_MSG_LEN, nextId(0));
        slotId = new int[depth];
        freeSlots = new int[depth];
    }

    @Override
    public void prepare(int len) {
        this.len = len;
        this.frame = RequestHeader.SIZE + len;
        this.window = PipelinedPeer.windowFor(depth, len);
        MemorySegment frames = link.frames;
        for (int i = 0; i < window; i++) {
            long at = (long) i * frame;
            RequestHeader.write(frames, at, 0, GroutApi.PING, len);
            Echo.fill(frames.asSlice(at + RequestHeader.SIZE), len);
        }
        last = len > 0 ? frames.get(JAVA_BYTE, RequestHeader.SIZE + len - 1L) : 0;
        free = 0;
        for (int s = window - 1; s >= 0; s--) {
            slotId[s] = 0;
            freeSlots[free++] = s;
        }
        rpos = rlen = 0;
    }

    /** The next id for slot: a running number above the slot's bits, never 0. */
    private int nextId(int slot) {
        int id;
        do {
            id = ++seq << bits | slot;
        } while (id == 0);
        return id;
    }

    @Override
    public void ping() throws IOException { pingMany(1, null); }

    /** n calls, window of them in flight, with no clock read between them: nothing is recorded in latency. */
    @Override
    public void pingMany(long n, org.HdrHistogram.Histogram latency) throws IOException {
        long sent = 0, done = 0;
        while (true) {
            if (free > 0 && sent < n) sent += refill((int) Math.min(n - sent, free));
            if (done >= n) return;
            receive();
            done += take();
        }
    }

    /** Fills k free slots with the next requests, in the first k frames, and sends them with one send; returns k. */
    private int refill(int k) throws ErrnoException {
        for (int i = 0; i < k; i++) {
            int slot = freeSlots[--free];
            int id = nextId(slot);
            slotId[slot] = id;
            link.frames.set(JAVA_INT_UNALIGNED, (long) i * frame + RequestHeader.ID, id);
        }
        refills++;
        link.send(0, (long) k * frame);
        return k;
    }

    /** One blocking receive that brings bytes into the read-ahead. */
    private void receive() throws ErrnoException {
        long n = link.receive(rlen, 0);
        if (n == UnixSocket.WOULD_BLOCK) {
            throw new ErrnoException("recv(" + link.name() + ")", Errno.ETIMEDOUT, "nothing came within "
                    + timeoutMillis + " ms with " + (window - free) + " in flight");
        }
        rlen += n;
    }

    /**
     * Completes every answer that is whole in the read-ahead, its slot freed; returns how many. The unread bytes move
     * to the front only when less than a largest answer fits after them.
     */
    private int take() throws ErrnoException {
        MemorySegment in = link.in;
        int mask = (1 << bits) - 1;
        int done = 0;
        while (rlen - rpos >= ResponseHeader.SIZE) {
            long plen = ResponseHeader.payloadLen(in, rpos);
            if (plen > GroutApi.MAX_MSG_LEN) {
                throw new ErrnoException("ping", Errno.EMSGSIZE, "answer of " + plen
                        + " bytes, over GR_API_MAX_MSG_LEN");
            }
            long whole = ResponseHeader.SIZE + plen;
            if (rlen - rpos < whole) break;
            int id = ResponseHeader.forId(in, rpos);
            int slot = id & mask;
            if (id == 0 || slot >= window || slotId[slot] != id) {
                throw new ErrnoException("ping", Errno.EBADMSG, "an answer for id " + id
                        + ", which no request in flight has");
            }
            int status = ResponseHeader.status(in, rpos);
            if (status != 0 || plen != len || len > 0 && in.get(JAVA_BYTE, rpos + whole - 1) != last) {
                throw new ErrnoException("ping", Errno.EBADMSG, "answer to " + id + ": status " + status + ", " + plen
                        + " bytes of " + len + ", or its last byte differs");
            }
            slotId[slot] = 0;
            freeSlots[free++] = slot;
            done++;
            rpos += whole;
        }
        if (rpos == rlen) {
            rpos = rlen = 0;
        } else if (in.byteSize() - rlen < ResponseHeader.SIZE + GroutApi.MAX_MSG_LEN) {
            MemorySegment.copy(in, rpos, in, 0, rlen - rpos);
            rlen -= rpos;
            rpos = 0;
        }
        return done;
    }

    /** The refills so far, each one send (tests). */
    long refills() { return refills; }
}
