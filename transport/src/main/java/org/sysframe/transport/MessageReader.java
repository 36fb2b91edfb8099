package org.sysframe.transport;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

/**
 * Reads the messages a server sends a client (responses and events) with a {@link RecvFraming}, each
 * receive waiting as its {@link ClientLink} says. After {@link #next()}, the fields describe one whole message whose payload stays
 * valid until the following call.
 *
 * <p>Responses and events share the socket. They are told apart by the first header word: a
 * response's {@code for_id} is an id this client chose, always in 1..0xffff; an event's {@code ev_type}
 * is {@code (module << 16) | id} with a non-zero module, so above 0xffff.
 */
final class MessageReader {
    /** Largest request id a client uses: ids above it are event types. */
    static final int MAX_ID = 0xffff;

    private final ClientLink link;
    private final MemorySegment ahead;  // read-ahead buffer, or null for EXACT
    private final int capacity;
    private final MemorySegment header; // EXACT: the header being read
    private final MemorySegment big;    // payloads that do not fit the read-ahead buffer (or all of them, EXACT)
    private int start;
    private int end;

    // The message last read.
    boolean isEvent;
    int first;          // for_id or ev_type
    int status;
    long payloadLen;
    MemorySegment payloadBuffer;
    long payloadOffset;

    MessageReader(ClientLink link, RecvFraming framing, Arena arena) {
        this.link = link;
        this.capacity = framing.readAhead() ? framing.bufferSize() : 0;
        this.ahead = framing.readAhead() ? arena.allocate(capacity, 8) : null;
        this.header = arena.allocate(EventHeader.SIZE, 8);
        this.big = arena.allocate(GroutApi.MAX_MSG_LEN, 8);
    }

    /** Blocks until one whole message is read; throws EMSGSIZE, ECONNRESET or ETIMEDOUT. */
    void next() throws ErrnoException {
        if (ahead == null) nextExact();
        else nextReadAhead();
    }

    private void nextExact() throws ErrnoException {
        recvExactly(header, 0, ResponseHeader.SIZE, true);
        first = header.get(JAVA_INT_UNALIGNED, 0);
        isEvent = Integer.compareUnsigned(first, MAX_ID) > 0;
        if (isEvent) recvExactly(header, ResponseHeader.SIZE, EventHeader.SIZE - ResponseHeader.SIZE, false);
        parseHeader(header, 0);
        recvExactly(big, 0, payloadLen, false);
        payloadBuffer = big;
        payloadOffset = 0;
    }

    private void nextReadAhead() throws ErrnoException {
        if (start == end) start = end = 0;
        ensure(4, true);
        first = ahead.get(JAVA_INT_UNALIGNED, start);
        isEvent = Integer.compareUnsigned(first, MAX_ID) > 0;
        int hlen = isEvent ? EventHeader.SIZE : ResponseHeader.SIZE;
        ensure(hlen, false);
        parseHeader(ahead, start);
        long total = hlen + payloadLen;
        if (total <= capacity) {
            ensure((int) total, false);
            payloadBuffer = ahead;
            payloadOffset = start + hlen;
            start += (int) total;
        } else {
            // Too big for the buffer: take what is buffered, then receive the rest straight into place.
            int have = end - start - hlen;
            MemorySegment.copy(ahead, start + hlen, big, 0, have);
            start = end = 0;
            recvExactly(big, have, payloadLen - have, false);
            payloadBuffer = big;
            payloadOffset = 0;
        }
    }

    /** Whether the framing reads ahead (only then can {@link #hasCompleteMessage} be true). */
    boolean readsAhead() { return ahead != null; }

    /**
     * Whether {@link #next()} would return a message without receiving: its header and payload are
     * buffered (or its header is, and the message is too big for the buffer: next() then receives
     * the rest of what has started to arrive, or fails on a bad payload_len).
     */
    boolean hasCompleteMessage() {
        if (ahead == null) return false;
        int avail = end - start;
        if (avail < 4) return false;
        boolean event = Integer.compareUnsigned(ahead.get(JAVA_INT_UNALIGNED, start), MAX_ID) > 0;
        int hlen = event ? EventHeader.SIZE : ResponseHeader.SIZE;
        if (avail < hlen) return false;
        long plen = event ? EventHeader.payloadLen(ahead, start) : ResponseHeader.payloadLen(ahead, start);
        if (plen < 0 || hlen + plen > capacity) return true;
        return avail >= hlen + plen;
    }

    /**
     * One recv into the read-ahead buffer (waiting as the client's wait mode says when wait, else
     * MSG_DONTWAIT); false when nothing came. Read-ahead framing only.
     */
    boolean receive(boolean wait) throws ErrnoException {
        if (start == end) {
            start = end = 0;
        } else if (end == capacity || start > capacity / 2) {
            MemorySegment.copy(ahead, start, ahead, 0, end - start);
            end -= start;
            start = 0;
        }
        long n = wait ? link.recv(ahead, end, capacity - end) : link.tryRecv(ahead, end, capacity - end);
        if (n == UnixSocket.WOULD_BLOCK && !wait) return false;
        check(n, start == end);
        end += (int) n;
        return true;
    }

    private void parseHeader(MemorySegment s, long at) throws ErrnoException {
        if (isEvent) {
            status = 0;
            payloadLen = EventHeader.payloadLen(s, at);
        } else {
            status = ResponseHeader.status(s, at);
            payloadLen = ResponseHeader.payloadLen(s, at);
        }
        if (payloadLen < 0 || payloadLen > GroutApi.MAX_MSG_LEN) {
            throw new ErrnoException(isEvent ? "event header" : "response header", Errno.EMSGSIZE,
                    "payload_len " + Long.toUnsignedString(payloadLen) + " over GR_API_MAX_MSG_LEN " + GroutApi.MAX_MSG_LEN);
        }
    }

    /** Makes at least min bytes available from start, receiving as much as fits per recv. */
    private void ensure(int min, boolean atMessageStart) throws ErrnoException {
        while (end - start < min) {
            if (start + min > capacity) {
                MemorySegment.copy(ahead, start, ahead, 0, end - start);
                end -= start;
                start = 0;
            }
            long n = link.recv(ahead, end, capacity - end);
            check(n, atMessageStart && end == start);
            end += (int) n;
        }
    }

    private void recvExactly(MemorySegment dst, long off, long len, boolean atMessageStart) throws ErrnoException {
        long done = 0;
        while (done < len) {
            long n = link.recv(dst, off + done, len - done);
            check(n, atMessageStart && done == 0);
            done += n;
        }
    }

    private void check(long n, boolean nothingYet) throws ErrnoException {
        if (n == UnixSocket.WOULD_BLOCK) {
            throw new ErrnoException("recv(" + link.name() + ")", Errno.ETIMEDOUT, "receive timeout expired");
        }
        if (n == 0) {
            throw new ErrnoException("recv(" + link.name() + ")", Errno.ECONNRESET,
                    nothingYet ? "server closed the connection" : "server closed the connection in the middle of a message");
        }
    }
}
