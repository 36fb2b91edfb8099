package org.sysframe.transport.support;

import org.sysframe.testsupport.WireBytes;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.unix.Errno;

/**
 * What a GroutClient awaiting an id makes of a byte stream from a server (docs/wire-format.md and the client's
 * documented rules).
 */
public final class ClientStreamModel {
    private ClientStreamModel() {}

    /**
     * The first message that decides the outcome: EMSGSIZE at a header, the awaited response, or the
     * stream running out; with the responses for other ids (dropped, counted unmatched) and the events
     * (kept) read before it.
     */
    public record Outcome(int errno, String header, long payloadLen, int unmatched, int events, int offset) {}

    /**
     * Where a client awaiting id awaited stops in g: until then, responses for other ids are dropped
     * (and counted) and events kept.
     */
    public static Outcome clientReading(byte[] g, int awaited) {
        int p = 0;
        int unmatched = 0, events = 0;
        while (p + 4 <= g.length) {
            int first = WireBytes.u32(g, p);
            boolean event = Integer.compareUnsigned(first, 0xffff) > 0;
            int hlen = event ? WireBytes.EVENT_HEADER : WireBytes.HEADER;
            if (p + hlen > g.length) break;
            long len = event ? WireBytes.u64(g, p + 8) : Integer.toUnsignedLong(WireBytes.u32(g, p + 8));
            if (len < 0 || len > GroutApi.MAX_MSG_LEN) {
                return new Outcome(Errno.EMSGSIZE, event ? "event header" : "response header", len, unmatched, events,
                        p);
            }
            if (p + hlen + len > g.length) break;
            if (!event && first == awaited) return new Outcome(0, "response", len, unmatched, events, p);
            if (event) events++;
            else unmatched++;
            p += hlen + (int) len;
        }
        return new Outcome(-1, "incomplete", 0, unmatched, events, p);
    }
}
