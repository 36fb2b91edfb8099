package org.sysframe.transport.support.fuzz;

import org.sysframe.testsupport.WireBytes;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.unix.Errno;

import java.util.Arrays;

/**
 * What a server must answer to a request byte stream sent after a successful GR_HELLO, computed
 * from docs/wire-format.md alone: every 12-byte header is {id, type, payload_len}; payload_len over 128 KiB
 * closes the connection with no response (nothing after that header is sent); unknown types get
 * ENOTSUP; a payload under the declared minimum (GR_HELLO 132, GR_PING2 32, GR_EVENT_SUBSCRIBE 8)
 * gets EMSGSIZE; GR_HELLO with another api_version gets EBADMSG with the server's version (u32); GR_PING echoes
 * everything, GR_PING2 its 32 bytes; subscribe and unsubscribe answer empty successes.
 */
final class ServerModel {
    private static final int HDR = RequestHeader.SIZE;
    private static final int MAX = GroutApi.MAX_MSG_LEN;

    /** Payload offsets that stand for a fixed answer: GR_HELLO's max_ifaces, and a refused hello's api_version. */
    static final int HELLO_PAYLOAD = -1, VERSION_PAYLOAD = -2;

    /** The answers expected on one connection, as parallel arrays (a negative offset: one of the fixed answers). */
    static final class Answers {
        int[] forId = new int[256];
        int[] status = new int[256];
        int[] off = new int[256];
        int[] len = new int[256];
        int size;

        void add(int f, int s, int o, int l) {
            if (size == forId.length) {
                forId = Arrays.copyOf(forId, size * 2);
                status = Arrays.copyOf(status, size * 2);
                off = Arrays.copyOf(off, size * 2);
                len = Arrays.copyOf(len, size * 2);
            }
            forId[size] = f;
            status[size] = s;
            off[size] = o;
            len[size] = l;
            size++;
        }
    }

    final WireBytes in;
    final Answers answers = new Answers();
    int next;             // where the next request header starts
    int closedAt = -1;    // header of the request whose payload_len closes the connection
    long closingLen;
    int requests;         // complete requests (each gets exactly one answer)

    ServerModel(WireBytes in) {
        this.in = in;
    }

    boolean closed() { return closedAt >= 0; }

    /** WireBytes of a request not complete yet. */
    int partial() { return in.n - next; }

    void advance() {
        while (!closed() && in.n - next >= HDR) {
            long plen = Integer.toUnsignedLong(in.u32At(next + 8));
            if (plen > MAX) {
                closedAt = next;
                closingLen = plen;
                in.n = next + HDR; // the server reads no further: send nothing after this header
                return;
            }
            if (in.n - next - HDR < plen) return;
            answer(next, (int) plen);
            next += HDR + (int) plen;
        }
    }

    private void answer(int at, int plen) {
        requests++;
        int id = in.u32At(at);
        int type = in.u32At(at + 4);
        int p = at + HDR;
        if (type == GroutApi.HELLO) {
            if (plen < GroutApi.HELLO_REQUEST_SIZE) answers.add(id, Errno.EMSGSIZE, 0, 0);
            else if (in.u32At(p) != GroutApi.DEFAULT_API_VERSION) answers.add(id, Errno.EBADMSG, VERSION_PAYLOAD, 4);
            else answers.add(id, 0, HELLO_PAYLOAD, GroutApi.HELLO_RESPONSE_SIZE);
        } else if (type == GroutApi.PING) {
            answers.add(id, 0, p, plen);
        } else if (type == GroutApi.PING2) {
            if (plen < GroutApi.PING2_SIZE) answers.add(id, Errno.EMSGSIZE, 0, 0);
            else answers.add(id, 0, p, GroutApi.PING2_SIZE);
        } else if (type == GroutApi.EVENT_SUBSCRIBE) {
            if (plen < GroutApi.SUBSCRIBE_REQUEST_SIZE) answers.add(id, Errno.EMSGSIZE, 0, 0);
            else answers.add(id, 0, 0, 0);
        } else if (type == GroutApi.EVENT_UNSUBSCRIBE) {
            answers.add(id, 0, 0, 0);
        } else {
            answers.add(id, Errno.ENOTSUP, 0, 0);
        }
    }
}
