package org.sysframe.transport.internal.io;

import org.sysframe.transport.Event;
import org.sysframe.transport.Request;
import org.sysframe.transport.Response;

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
 *
 * <p>It knows which ids were issued and answered since: a second answer for a request already
 * answered (outside a stream) is a server fault, EPROTO, instead of being kept aside unnoticed.
 * A receive timeout while awaiting a response is reported with what did not come.
 *
 * <p>Internal to the transport (its package is not exported): not part of the API.
 */
public final class Inbox {
    /** At most this many messages are kept aside. */
    static final int MAX = 4096;

    private record Kept(int id, int status, byte[] payload) {}

    private final MessageReader reader;
    private final String name;
    private final Map<Integer, ArrayDeque<Kept>> responses = new HashMap<>();
    private final ArrayDeque<Kept> events = new ArrayDeque<>();
    private static final byte NOT_ISSUED = 0, ISSUED = 1, ANSWERED = 2;
    private final byte[] idState = new byte[0x10000];
    private int responseCount;
    private long keptForOtherIds;   // responses kept aside while a response was awaited, for the timeout's line
    private int lastKeptId;

    public Inbox(MessageReader reader, String name) {
        this.reader = reader;
        this.name = name;
    }

    /** Sets out to the response to request id: one kept aside earlier, or the next one for it read now. */
    public void awaitResponse(int id, Response out) throws ErrnoException {
        long keptBefore = keptForOtherIds;
        try {
            awaitResponseOrTimeout(id, out);
        } catch (ErrnoException e) {
            if (e.errno() != Errno.ETIMEDOUT) throw e;
            long others = keptForOtherIds - keptBefore;
            throw new ErrnoException(e.call(), Errno.ETIMEDOUT, reader.describeTimeout("request " + id)
                    + (others == 0 ? "" : "; meanwhile " + others + (others == 1 ? " answer" : " answers")
                    + " for an id not awaited came (the last for_id " + lastKeptId + ")"));
        }
    }

    private void awaitResponseOrTimeout(int id, Response out) throws ErrnoException {
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
    public void nextEvent(Event out) throws ErrnoException {
        Kept k = events.poll();
        if (k != null) {
            out.set(k.id, MemorySegment.ofArray(k.payload), 0, k.payload.length);
            return;
        }
        reader.patientStart = true; // an event may be long in coming; the rest of a message is not
        try {
            while (true) {
                reader.next();
                if (reader.isEvent) {
                    out.set(reader.first, reader.payloadBuffer, reader.payloadOffset, reader.payloadLen);
                    return;
                }
                keep();
            }
        } finally {
            reader.patientStart = false;
        }
    }

    /** What a pipeline's receive loop does with each response it reads. */
    public interface ResponseSink {
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
     * does not take are kept aside. Returns how many the sink took. deadline (System.nanoTime(), 0:
     * none): no wait goes past it; a message that has not started by then is left for later, one
     * that stopped half-way fails with ETIMEDOUT. now: the caller's clock reading for the first wait.
     */
    public int drain(ResponseSink sink, int limit, boolean wait, long deadline, long now) throws ErrnoException {
        int n = responseCount > 0 ? drainKept(sink, limit) : 0;
        reader.deadline = deadline;
        try {
            while (n < limit) {
                if (!reader.hasCompleteMessage()) {
                    if (n > 0) break;
                    if (reader.readsAhead()) {
                        if (!reader.receive(wait, now)) break;
                        now = 0; // a later wait reads the clock
                        continue;
                    }
                    if (!wait) break; // exact framing reads one whole message at a time, blocking
                }
                if (!reader.next()) break; // the deadline passed before a message started
                if (reader.isEvent) {
                    keep();
                    // Events that keep coming must not hold a wait past its deadline.
                    if (deadline != 0 && n == 0 && System.nanoTime() - deadline >= 0) break;
                    continue;
                }
                int first = reader.first;
                int r = sink.accept(first, reader.status, reader.payloadBuffer, reader.payloadOffset, reader.payloadLen, false);
                if (r == ResponseSink.TAKEN) {
                    n++;
                    idState[first] = ANSWERED;
                } else if (r == ResponseSink.DROPPED) {
                    idState[first] = ANSWERED;
                } else {
                    keep();
                }
            }
        } finally {
            reader.deadline = 0;
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
                idState[k.id] = ANSWERED;
                if (r == ResponseSink.TAKEN) n++;
            }
            if (q.isEmpty()) it.remove();
        }
        return n;
    }

    /**
     * Request id is sent (again): the responses kept for id came before it, so they do not answer it
     * and are dropped.
     */
    public void issued(int id) {
        idState[id] = ISSUED;
        if (responses.isEmpty()) return;
        ArrayDeque<Kept> stale = responses.remove(id);
        if (stale != null) responseCount -= stale.size();
    }

    /** Request id got its (last) answer: another response for it is a duplicate. */
    public void answered(int id) {
        if (id >= 0 && id < idState.length) idState[id] = ANSWERED;
    }

    public int eventCount() { return events.size(); }

    private void keep() throws ErrnoException {
        if (!reader.isEvent && reader.first >= 0 && reader.first < idState.length && idState[reader.first] == ANSWERED) {
            throw new ErrnoException("client(" + name + ")", Errno.EPROTO, "a second answer for request " + reader.first
                    + " (status " + reader.status + ", " + reader.payloadLen + " bytes): the server answered it twice");
        }
        if (responseCount + events.size() >= MAX) {
            throw new ErrnoException("client(" + name + ")", Errno.ENOBUFS, MAX + " responses and events kept aside, none of them awaited");
        }
        byte[] copy = reader.payloadBuffer.asSlice(reader.payloadOffset, reader.payloadLen).toArray(JAVA_BYTE);
        if (reader.isEvent) {
            events.add(new Kept(reader.first, 0, copy));
        } else {
            responses.computeIfAbsent(reader.first, x -> new ArrayDeque<>()).add(new Kept(reader.first, reader.status, copy));
            responseCount++;
            keptForOtherIds++;
            lastKeptId = reader.first;
        }
    }
}
