package org.sysframe.transport.support;

import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.transport.wire.ResponseHeader;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A raw connection that has said GR_HELLO and holds n GR_PINGs (ids 2..n+1) of payload bytes staged
 * back to back, to be sent with one send: what a server does with a whole batch arriving in one read.
 */
public record PipelinedPings(UnixSocket raw, MemorySegment out, MemorySegment in, long bytes, int n, int payload) {
    /** Says hello on raw (and reads the answer), then stages the n pings in memory of a. */
    public static PipelinedPings helloThenStage(UnixSocket raw, Arena a, int n, int payload) throws ErrnoException {
        int h = RequestHeader.SIZE;
        MemorySegment out = a.allocate(h + GroutApi.HELLO_REQUEST_SIZE + (long) n * (h + payload));
        RequestHeader.write(out, 0, 1, GroutApi.HELLO, GroutApi.HELLO_REQUEST_SIZE);
        out.set(JAVA_INT, h, GroutApi.DEFAULT_API_VERSION);
        raw.sendFully(out, 0, h + GroutApi.HELLO_REQUEST_SIZE);
        MemorySegment in = a.allocate(64 * 1024);
        raw.recvFully(in, 0, ResponseHeader.SIZE + GroutApi.HELLO_RESPONSE_SIZE);
        long at = 0;
        for (int i = 0; i < n; i++) {
            RequestHeader.write(out, at, 2 + i, GroutApi.PING, payload);
            at += h + payload;
        }
        return new PipelinedPings(raw, out, in, at, n, payload);
    }

    /** Sends the n pings with one send, then reads every answer and checks they come in id order. */
    public void sendAllAndCheckAnswers() throws ErrnoException {
        assertEquals(bytes, raw.send(out, 0, bytes, 0), "one send: the server finds all " + n + " in one recv");
        raw.recvFully(in, 0, (long) n * (ResponseHeader.SIZE + payload));
        for (int i = 0; i < n; i++) assertEquals(2 + i,
                ResponseHeader.forId(in, i * ((long) ResponseHeader.SIZE + payload)));
    }
}
