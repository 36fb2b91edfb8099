package org.sysframe.transport.internal.io;

import org.sysframe.transport.RecvFraming;
import org.sysframe.transport.wire.EventHeader;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.ResponseHeader;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

/**
 * Reads the messages a server sends a client (responses and events) with a {@link RecvFraming}, each
 * receive waiting as its {@link ClientLink} says. After {@link #next()}, the fields describe one whole message whose
 * payload stays valid until the following call.
 *
 * <p>Responses and events share the socket. They are told apart by the first header word: a
 * response's {@code for_id} is an id this client chose, always in 1..0xffff; an event's {@code ev_type}
 * is {@code (module << 16) | id} with a non-zero module, so above 0xffff.
 */
public final class MessageReader {
    /** Largest request id a client uses: ids above it are event types. */
    public static final int MAX_ID = 0xffff;

    private final ClientLink link;
    private final InPlaceSource ring;   // the link when messages are read in place, or null
    private final long timeoutMillis;
    private final MemorySegment ahead;  // read-ahead buffer (the ring's memory, in place), or null for EXACT
    private final int capacity;
    private final MemorySegment header; // EXACT: the header being read
    private final MemorySegment big;    // payloads that do not fit the read-ahead buffer (or all of them, EXACT)
    private int start;
    private int end;
    private int released; // in place: where the first byte not given back to the ring is (start, once released)

    /**
     * 0, or a System.nanoTime() instant no receive waits past (a pipeline's earliest request
     * deadline): at it, a message not started yet is "nothing came" and one started is ETIMEDOUT.
     */
    long deadline;
    /** Whether a message's start may be awaited past the receive timeout (events may be rare). */
    boolean patientStart;
    /**
     * Whether a message that started before the {@link #deadline} gets the receive timeout for its
     * rest, past the deadline (a client's caller gave up waiting; the stream must not be cut mid-message).
     */
    boolean finishStarted;
    // The last timeout: how much of the message had come, its size (-1: header incomplete).
    private long timedOutHave;
    private long timedOutTotal;

    // The message last read.
    boolean isEvent;
    int first;          // for_id or ev_type
    int status;
    long payloadLen;
    MemorySegment payloadBuffer;
    long payloadOffset;

    /**
     * A reader of link's messages: with framing's read-ahead buffer, or without one (EXACT); in place, whatever the
     * framing, when link is an {@link InPlaceSource} (the shared-memory ring).
     */
    public MessageReader(ClientLink link, RecvFraming framing, Arena arena, long timeoutMillis) {
        this.link = link;
        this.ring = link instanceof InPlaceSource r ? r : null;
        this.timeoutMillis = timeoutMillis;
        if (ring != null) {
            this.capacity = (int) ring.readLimit();
            this.ahead = ring.memory();
            this.start = this.end = this.released = (int) ring.readAt();
        } else {
            this.capacity = framing.readAhead() ? framing.bufferSize() : 0;
            this.ahead = framing.readAhead() ? arena.allocate(capacity, 8) : null;
        }
        this.header = arena.allocate(EventHeader.SIZE, 8);
        this.big = arena.allocate(GroutApi.MAX_MSG_LEN, 8);
    }

    /**
     * Blocks until one whole message is read; throws EMSGSIZE, ECONNRESET or ETIMEDOUT. False only
     * with a {@link #deadline} that passed before anything of the message came.
     */
    boolean next() throws ErrnoException {
        if (ahead == null) return nextExact();
        return nextReadAhead();
    }

    /** In place: gives the ring back the bytes of the messages handed out; start and end move to the ring's view. */
    private void releaseHandedOut() throws ErrnoException {
        if (start == released) return;
        ring.release(start - released);
        int at = (int) ring.readAt();
        end = at + (end - start);
        start = released = at;
    }

    private boolean nextExact() throws ErrnoException {
        if (!recvExactly(header, 0, ResponseHeader.SIZE, 0, -1)) return false;
        first = header.get(JAVA_INT_UNALIGNED, 0);
        isEvent = Integer.compareUnsigned(first, MAX_ID) > 0;
        if (isEvent) recvExactly(header, ResponseHeader.SIZE, EventHeader.SIZE - ResponseHeader.SIZE,
                ResponseHeader.SIZE, -1);
        parseHeader(header, 0);
        int hlen = isEvent ? EventHeader.SIZE : ResponseHeader.SIZE;
        recvExactly(big, 0, payloadLen, hlen, hlen + payloadLen);
        payloadBuffer = big;
        payloadOffset = 0;
        return true;
    }

    /**
     * The next message from the read-ahead buffer, or where it lies in the ring (in place: the messages handed out
     * before are released first, their payloads were valid until this call). The header is read once: in place,
     * the peer may rewrite it meanwhile, and only the values read are used.
     */
    private boolean nextReadAhead() throws ErrnoException {
        if (ring != null) releaseHandedOut();
        else if (start == end) start = end = 0;
        if (!ensure(4, -1)) return false;
        first = ahead.get(JAVA_INT_UNALIGNED, start);
        isEvent = Integer.compareUnsigned(first, MAX_ID) > 0;
        int hlen = isEvent ? EventHeader.SIZE : ResponseHeader.SIZE;
        ensure(hlen, -1);
        parseHeader(ahead, start);
        long total = hlen + payloadLen;
        if (total <= capacity) {
            ensure((int) total, total);
            payloadBuffer = ahead;
            payloadOffset = start + hlen;
            start += (int) total;
        } else {
            // Too big for the buffer (or the ring): take what is buffered, then receive the rest straight into place.
            int have = end - start - hlen;
            MemorySegment.copy(ahead, start + hlen, big, 0, have);
            if (ring != null) {
                start = end;
                releaseHandedOut(); // the rest is copied out of the ring as it comes
            } else {
                start = end = 0;
            }
            recvExactly(big, have, payloadLen - have, hlen + have, total);
            if (ring != null) start = end = released = (int) ring.readAt(); // the copies took it from the ring
            payloadBuffer = big;
            payloadOffset = 0;
        }
        return true;
    }

    /** Bytes received and not yet handed out (read-ahead framing; 0 with EXACT). */
    int buffered() { return ahead == null ? 0 : end - start; }

    /**
     * The last receive took less than it had room for (see {@link #drained()}); the pump clears it
     * before each message it waits for, so that it never speaks of a receive older than that.
     */
    boolean drained;

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
     * One recv into the read-ahead buffer; false when nothing came. Without wait it does not wait
     * (MSG_DONTWAIT); with wait it waits as the client's wait mode says, until the receive timeout
     * (ETIMEDOUT) or, with a {@link #deadline}, until that (false). now: System.nanoTime() of the
     * caller, or 0 to read the clock. Read-ahead framing only.
     */
    boolean receive(boolean wait, long now) throws ErrnoException {
        if (ring != null) return receiveInPlace(wait, now);
        if (start == end) {
            start = end = 0;
        } else if (end == capacity || start > capacity / 2) {
            MemorySegment.copy(ahead, start, ahead, 0, end - start);
            end -= start;
            start = 0;
        }
        long n;
        if (!wait) {
            n = link.tryRecv(ahead, end, capacity - end);
            if (n == UnixSocket.WOULD_BLOCK) return false;
        } else if (deadline != 0) {
            n = link.recvBy(ahead, end, capacity - end, deadline, now != 0 ? now : System.nanoTime());
            if (n == UnixSocket.WOULD_BLOCK && System.nanoTime() - deadline >= 0) {
                if (start == end) return false;
                // Part of a message came and the rest not by the deadline: the stream is out of step.
                throw timedOut(end - start, partialTotal(), true);
            }
        } else {
            n = link.recv(ahead, end, capacity - end);
        }
        check(n, end - start, partialTotal());
        drained = n < capacity - end;
        end += (int) n;
        return true;
    }

    /** {@link #receive} in place: what came beyond the bytes the reader has, all of it (drained: none is left). */
    private boolean receiveInPlace(boolean wait, long now) throws ErrnoException {
        releaseHandedOut();
        long have = end - released;
        long n;
        if (!wait) {
            n = ring.tryMore(have);
            if (n == UnixSocket.WOULD_BLOCK) return false;
        } else if (deadline != 0) {
            n = ring.moreBy(have, deadline, now != 0 ? now : System.nanoTime());
            if (n == UnixSocket.WOULD_BLOCK && System.nanoTime() - deadline >= 0) {
                if (have == 0) return false;
                throw timedOut(have, partialTotal(), true);
            }
        } else {
            n = ring.more(have);
        }
        check(n, have, partialTotal());
        drained = true;
        end += (int) n;
        return true;
    }

    /**
     * Whether the last receive into the read-ahead buffer took less than it had room for: a stream
     * socket's recv returns what is there, so the socket was empty at that instant, and a receive that
     * does not wait would most likely find nothing (an EAGAIN saved).
     */
    boolean drained() { return drained; }

    /** The size of the message partly buffered, -1 while its header is incomplete. */
    private long partialTotal() {
        int avail = end - start;
        if (avail < 4) return -1;
        boolean event = Integer.compareUnsigned(ahead.get(JAVA_INT_UNALIGNED, start), MAX_ID) > 0;
        int hlen = event ? EventHeader.SIZE : ResponseHeader.SIZE;
        if (avail < hlen) return -1;
        return hlen + (event ? EventHeader.payloadLen(ahead, start) : ResponseHeader.payloadLen(ahead, start));
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
                    "payload_len " + Long.toUnsignedString(payloadLen) + " over GR_API_MAX_MSG_LEN "
                    + GroutApi.MAX_MSG_LEN);
        }
    }

    /**
     * Makes at least min bytes available from start, receiving as much as fits per recv; total: the
     * message's size when known (-1 while its header is incomplete). False only when nothing of a
     * message had come by the deadline.
     */
    private boolean ensure(int min, long total) throws ErrnoException {
        while (end - start < min) {
            if (ring == null && start + min > capacity) {
                MemorySegment.copy(ahead, start, ahead, 0, end - start);
                end -= start;
                start = 0;
            }
            long n = recvOnce(ring != null ? null : ahead, end, capacity - end, end - start, total);
            if (n == NOTHING_BY_DEADLINE) return false;
            drained = ring != null || n < capacity - end;
            end += (int) n;
        }
        return true;
    }

    /**
     * Receives len bytes; before: bytes of the message that came earlier. False only when nothing of a message had come
     * by the deadline.
     */
    private boolean recvExactly(MemorySegment dst, long off, long len, long before, long total) throws ErrnoException {
        long done = 0;
        while (done < len) {
            long n = recvOnce(dst, off + done, len - done, before + done, total);
            if (n == NOTHING_BY_DEADLINE) return false;
            done += n;
        }
        return true;
    }

    private static final long NOTHING_BY_DEADLINE = -2;

    /**
     * One receive of the message under way (have of its total bytes came): the count, or NOTHING_BY_DEADLINE. dst
     * null: in place, what came beyond the bytes the reader has.
     */
    private long recvOnce(MemorySegment dst, long off, long len, long have, long total) throws ErrnoException {
        while (true) {
            long n;
            if (dst == null) {
                long held = end - released;
                n = deadline != 0 ? ring.moreBy(held, deadline, System.nanoTime()) : ring.more(held);
            } else {
                n = deadline != 0 ? link.recvBy(dst, off, len, deadline, System.nanoTime()) : link.recv(dst, off, len);
            }
            if (n == UnixSocket.WOULD_BLOCK) {
                if (deadline != 0 && System.nanoTime() - deadline >= 0) {
                    if (have == 0) return NOTHING_BY_DEADLINE;
                    if (finishStarted) {
                        deadline = 0; // the rest of this message: within the receive timeout, as any message
                        continue;
                    }
                    throw timedOut(have, total, true);
                }
                if (have == 0 && patientStart) continue; // awaiting an event's start: no timeout
            }
            check(n, have, total);
            return n;
        }
    }

    private void check(long n, long have, long total) throws ErrnoException {
        if (n == UnixSocket.WOULD_BLOCK) throw timedOut(have, total, false);
        if (n == 0) {
            throw new ErrnoException("recv(" + link.name() + ")", Errno.ECONNRESET,
                    have == 0 ? "server closed the connection"
                    : "server closed the connection in the middle of a message");
        }
    }

    private ErrnoException timedOut(long have, long total, boolean byDeadline) {
        timedOutHave = have;
        timedOutTotal = total;
        return new ErrnoException("recv(" + link.name() + ")", Errno.ETIMEDOUT, byDeadline
                ? stopped() + ", then nothing until the earliest request's deadline"
                : have > 0 ? stopped() + ", then nothing for " + timeoutMillis + " ms (the receive timeout)"
                : "nothing came within the receive timeout of " + timeoutMillis + " ms");
    }

    private String stopped() {
        return "a message stopped arriving: " + timedOutHave
                + (timedOutTotal >= 0 ? " of its " + timedOutTotal + " bytes came" : " bytes of its header came");
    }

}
