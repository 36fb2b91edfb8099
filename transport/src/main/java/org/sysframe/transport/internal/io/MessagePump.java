package org.sysframe.transport.internal.io;

import org.sysframe.unix.ErrnoException;

import java.lang.foreign.MemorySegment;

/**
 * A receive loop's view of a {@link MessageReader}: one whole message at a time, handed to a
 * {@link Sink} (the client's router hands each answer to the call whose id it carries). The start of a
 * message is awaited without the receive timeout (callers time out on their own); once a message
 * started, the receive timeout bounds the rest of it, past a waiting caller's deadline if need be.
 */
public final class MessagePump {
    /** Where the messages go; the payload is valid only during the call. */
    public interface Sink {
        void response(int forId, int status, MemorySegment buffer, long offset, long length) throws ErrnoException;

        void event(int evType, MemorySegment buffer, long offset, long length) throws ErrnoException;
    }

    private final MessageReader reader;

    public MessagePump(MessageReader reader) {
        this.reader = reader;
        reader.patientStart = true;
    }

    /**
     * Reads one whole message and hands it to sink; false when nothing of one came by deadline (a
     * System.nanoTime() instant; 0: none). A message that started (partly buffered
     * already, or starting before the deadline) is given the receive timeout to finish, past the
     * deadline if need be: a started message is not cut short by one waiter's deadline.
     */
    public boolean pumpBy(Sink sink, long deadline, long timeoutNanos) throws ErrnoException {
        long d = deadline;
        if (d != 0 && reader.buffered() > 0 && !reader.hasCompleteMessage()) {
            long rest = timeoutNanos > 0 ? System.nanoTime() + timeoutNanos : 0;
            if (rest == 0 || rest - d > 0) d = rest;
        }
        reader.deadline = d;
        reader.finishStarted = true;
        reader.drained = false; // set again only if this message takes a receive (not if it was buffered)
        if (!reader.next()) return false;
        dispatch(sink);
        return true;
    }

    /**
     * Hands sink every whole message that is there without waiting: those buffered, then what
     * receives that do not wait bring (read-ahead framing; with EXACT, only what is buffered: nothing),
     * unless the receive of the message just pumped did not fill the room it had (it emptied the socket
     * then: a receive now would most likely find nothing). The count. A holder that writes for others
     * drains so between its writes, so that the server, whose answers it reads, goes on reading what it
     * writes.
     */
    public int drainAvailable(Sink sink) throws ErrnoException {
        int n = drainBuffered(sink);
        while (reader.readsAhead() && !reader.drained() && reader.receive(false, 0)) n += drainBuffered(sink);
        return n;
    }

    /** Whether the framing reads ahead (then {@link #receiveAvailable} takes whole messages). */
    public boolean readsAhead() { return reader.readsAhead(); }

    /**
     * A receive that does not wait (its socket was reported readable), and every whole message it
     * brought, with what further receives bring while each fills its room (see {@link #drainAvailable});
     * the count.
     */
    public int receiveAvailable(Sink sink) throws ErrnoException {
        reader.drained = false;
        return drainAvailable(sink);
    }

    /**
     * Hands sink every whole message already buffered (no receive: the read-ahead took them with an
     * earlier one); the count.
     */
    public int drainBuffered(Sink sink) throws ErrnoException {
        int n = 0;
        while (reader.readsAhead() && reader.hasCompleteMessage()) {
            reader.deadline = 0;
            if (!reader.next()) break;
            dispatch(sink);
            n++;
        }
        return n;
    }

    private void dispatch(Sink sink) throws ErrnoException {
        if (reader.isEvent) {
            sink.event(reader.first, reader.payloadBuffer, reader.payloadOffset, reader.payloadLen);
        } else {
            sink.response(reader.first, reader.status, reader.payloadBuffer, reader.payloadOffset, reader.payloadLen);
        }
    }
}
