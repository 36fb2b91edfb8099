package org.sysframe.transport;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * Where a client's incoming messages go: the response awaited is handed out in place (no copy, no
 * allocation); responses for other ids and events that arrive meanwhile are copied to the heap and
 * kept aside, in arrival order per id, until they are awaited, at most {@value #MAX} in all (a server
 * flooding unasked-for messages cannot grow the heap without bound).
 */
final class Inbox {
    /** At most this many messages are kept aside. */
    static final int MAX = 4096;

    private record Kept(int id, int status, byte[] payload) {}

    private final MessageReader reader;
    private final String name;
    private final Map<Integer, ArrayDeque<Kept>> responses = new HashMap<>();
    private final ArrayDeque<Kept> events = new ArrayDeque<>();
    private int responseCount;

    Inbox(MessageReader reader, String name) {
        this.reader = reader;
        this.name = name;
    }

    /** Sets out to the response to request id: one kept aside earlier, or the next one for it read now. */
    void awaitResponse(int id, Response out) throws ErrnoException {
        ArrayDeque<Kept> q = responses.isEmpty() ? null : responses.get(id);
        if (q != null) {
            Kept k = q.poll();
            responseCount--;
            if (q.isEmpty()) responses.remove(id);
            out.set(k.id, k.status, MemorySegment.ofArray(k.payload), 0, k.payload.length);
            return;
        }
        while (true) {
            reader.next();
            if (!reader.isEvent && reader.first == id) {
                out.set(id, reader.status, reader.payloadBuffer, reader.payloadOffset, reader.payloadLen);
                return;
            }
            keep();
        }
    }

    /** Sets out to the oldest event kept aside, or else to the next event read (keeping responses aside). */
    void nextEvent(Event out) throws ErrnoException {
        Kept k = events.poll();
        if (k != null) {
            out.set(k.id, MemorySegment.ofArray(k.payload), 0, k.payload.length);
            return;
        }
        while (true) {
            reader.next();
            if (reader.isEvent) {
                out.set(reader.first, reader.payloadBuffer, reader.payloadOffset, reader.payloadLen);
                return;
            }
            keep();
        }
    }

    /** What a pipeline's receive loop does with each response it reads. */
    interface ResponseSink {
        int TAKEN = 1, DROPPED = 0, KEEP_ASIDE = -1;

        /**
         * TAKEN (delivered), DROPPED (a late answer to an abandoned request) or KEEP_ASIDE (not in
         * flight); kept: the answer was read earlier and kept aside (it is offered again at every drain).
         */
        int accept(int forId, int status, MemorySegment buffer, long offset, long length, boolean kept);
    }

    /**
     * Hands up to limit responses to sink: those kept aside first, then what is buffered, then what one
     * recv brings (waiting for it when wait and nothing was handed yet). Events and responses the sink
     * does not take are kept aside. Returns how many the sink took.
     */
    int drain(ResponseSink sink, int limit, boolean wait) throws ErrnoException {
        int n = responseCount > 0 ? drainKept(sink, limit) : 0;
        while (n < limit) {
            if (!reader.hasCompleteMessage()) {
                if (n > 0) break;
                if (reader.readsAhead()) {
                    if (!reader.receive(wait)) break;
                    continue;
                }
                if (!wait) break; // exact framing reads one whole message at a time, blocking
            }
            reader.next();
            if (reader.isEvent) {
                keep();
                continue;
            }
            int r = sink.accept(reader.first, reader.status, reader.payloadBuffer, reader.payloadOffset, reader.payloadLen, false);
            if (r == ResponseSink.TAKEN) n++;
            else if (r == ResponseSink.KEEP_ASIDE) keep();
        }
        return n;
    }

    private int drainKept(ResponseSink sink, int limit) {
        int n = 0;
        var it = responses.entrySet().iterator();
        while (it.hasNext() && n < limit) {
            ArrayDeque<Kept> q = it.next().getValue();
            while (!q.isEmpty() && n < limit) {
                Kept k = q.peek();
                int r = sink.accept(k.id, k.status, MemorySegment.ofArray(k.payload), 0, k.payload.length, true);
                if (r == ResponseSink.KEEP_ASIDE) break;
                q.poll();
                responseCount--;
                if (r == ResponseSink.TAKEN) n++;
            }
            if (q.isEmpty()) it.remove();
        }
        return n;
    }

    /** Drops the responses kept for id: they came before its request, so they do not answer it. */
    void forgetResponses(int id) {
        if (responses.isEmpty()) return;
        ArrayDeque<Kept> stale = responses.remove(id);
        if (stale != null) responseCount -= stale.size();
    }

    int eventCount() { return events.size(); }

    private void keep() throws ErrnoException {
        if (responseCount + events.size() >= MAX) {
            throw new ErrnoException("client(" + name + ")", Errno.ENOBUFS, MAX + " responses and events kept aside, none of them awaited");
        }
        byte[] copy = reader.payloadBuffer.asSlice(reader.payloadOffset, reader.payloadLen).toArray(JAVA_BYTE);
        if (reader.isEvent) {
            events.add(new Kept(reader.first, 0, copy));
        } else {
            responses.computeIfAbsent(reader.first, x -> new ArrayDeque<>()).add(new Kept(reader.first, reader.status, copy));
            responseCount++;
        }
    }
}
