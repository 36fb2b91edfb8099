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
 * The lean C client's loop at depth 1, spinning ({@code sysframe_ping -L -W spin}), in Java: the same
 * syscalls through the project's FFM binding ({@link UnixSocket}) and nothing of the library's client.
 * A frame built once (header and payload; only its id is written per call), one send per call, then
 * recv(MSG_DONTWAIT) into a 1 MiB read-ahead until the whole answer is there; the answer's id, status,
 * length and last byte are checked, as C lean checks them. No clock per call: its runs record no
 * latency, as C lean's do not. It is what the JVM reaches over the socket with the least work, between
 * the C lean row (the language's part of the gap: the downcalls) and sysframe's client (the library's).
 */
public final class JavaLeanPeer extends LeanPeer {
    /** How it frames and waits, for the report. */
    public static final String FRAMING = "FFM send of a frame built once, recv(MSG_DONTWAIT) until the answer,"
            + " read-ahead 1 MiB, no clock per call (the C lean client's loop in Java)";
    /** How long the hello, a send and a call's answer wait by default: EAGAIN (hello) or ETIMEDOUT (call) after. */
    static final long TIMEOUT_MILLIS = 10_000;
    /** Empty looks between two clock readings of a call's wait (a call answered sooner reads none). */
    private static final int LOOKS_PER_CLOCK = 4096;
    private int len;
    private int id;
    private byte last;

    /** A peer whose thread runs on cpu (pinned as it connects). */
    public JavaLeanPeer(String name, int cpu) {
        this(name, cpu, TIMEOUT_MILLIS);
    }

    /** As above, its hello and calls waiting at most timeoutMillis for their answer. */
    JavaLeanPeer(String name, int cpu, long timeoutMillis) {
        super(name, cpu, timeoutMillis);
    }

    @Override
    public String framing() { return FRAMING; }

    /** Pins the calling thread, connects to path and says GR_HELLO. */
    @Override
    public void open(String path) throws IOException {
        connect(path, RequestHeader.SIZE + GroutApi.MAX_MSG_LEN, ++id);
    }

    @Override
    public void prepare(int len) {
        this.len = len;
        MemorySegment frame = link.frames;
        Echo.fill(frame.asSlice(RequestHeader.SIZE), len);
        RequestHeader.write(frame, 0, id, GroutApi.PING, len);
        last = len > 0 ? frame.get(JAVA_BYTE, RequestHeader.SIZE + len - 1L) : 0;
    }

    @Override
    public void ping() throws IOException {
        int mine = ++id == 0 ? ++id : id;
        link.frames.set(JAVA_INT_UNALIGNED, RequestHeader.ID, mine);
        link.send(0, RequestHeader.SIZE + (long) len);
        MemorySegment in = link.in;
        long have = 0;
        int empty = 0;
        long since = 0;
        while (have < ResponseHeader.SIZE || have < ResponseHeader.SIZE + ResponseHeader.payloadLen(in, 0)) {
            long n = link.receive(have, UnixSocket.MSG_DONTWAIT);
            if (n > 0) have += n;
            else if (++empty % LOOKS_PER_CLOCK == 0) since = waitedSince(since, mine);
            if (have >= ResponseHeader.SIZE && ResponseHeader.payloadLen(in, 0) > GroutApi.MAX_MSG_LEN) {
                throw new ErrnoException("ping", Errno.EMSGSIZE, "answer over GR_API_MAX_MSG_LEN");
            }
        }
        long plen = ResponseHeader.payloadLen(in, 0);
        if (ResponseHeader.forId(in, 0) != mine || ResponseHeader.status(in, 0) != 0 || plen != len
                || have != ResponseHeader.SIZE + plen || len > 0 && in.get(JAVA_BYTE, have - 1) != last) {
            throw new ErrnoException("ping", Errno.EBADMSG, "answer to " + mine + ": id "
                    + ResponseHeader.forId(in, 0) + ", status " + ResponseHeader.status(in, 0) + ", " + plen
                    + " bytes of " + len + " (" + have + " read), or its last byte differs");
        }
    }

    /**
     * The start of a call's wait: its first clock reading (since 0: this one is); ETIMEDOUT once the timeout passed
     * since it.
     */
    private long waitedSince(long since, int id) throws ErrnoException {
        long now = System.nanoTime();
        if (since == 0) return now;
        if (now - since > timeoutMillis * 1_000_000L) {
            throw new ErrnoException("ping", Errno.ETIMEDOUT, "no answer to " + id + " within " + timeoutMillis
                    + " ms");
        }
        return since;
    }

    /** n round trips with no clock read between them: nothing is recorded in latency (as C lean records nothing). */
    @Override
    public void pingMany(long n, org.HdrHistogram.Histogram latency) throws IOException {
        for (long i = 0; i < n; i++) ping();
    }
}
