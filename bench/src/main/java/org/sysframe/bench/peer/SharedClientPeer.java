package org.sysframe.bench.peer;

import org.sysframe.transport.SharedGroutClient;
import org.sysframe.transport.wire.GroutApi;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * One caller of a {@link SharedGroutClient} that others call at the same time: its own payload and
 * answer segments (confined to its thread), one {@code call} per ping, the echo checked in place. The
 * client's counts are the shared client's, not this caller's: {@link CallersProbe} takes them once.
 *
 * <p>Internal to the bench: public for its other packages, not an API.
 */
public final class SharedClientPeer implements PingPeer {
    private final String name;
    private final SharedGroutClient client;
    private final Arena arena = Arena.ofConfined(); // this caller's thread: made there by the probe's factory
    private final MemorySegment payload = arena.allocate(GroutApi.MAX_MSG_LEN);
    private final MemorySegment answer = arena.allocate(GroutApi.MAX_MSG_LEN);
    private int len;

    public SharedClientPeer(String name, SharedGroutClient client) {
        this.name = name;
        this.client = client;
    }

    @Override public String name() { return name; }

    @Override public String framing() { return "shared client: queued requests in one send, read-ahead by its reader thread"; }

    /** The client is connected already (shared): nothing to do. */
    @Override public void open(String path) {}

    @Override
    public void prepare(int len) {
        this.len = len;
        for (int i = 0; i < len; i++) payload.set(JAVA_BYTE, i, (byte) (i * 31 + 7));
    }

    @Override
    public void ping() throws IOException {
        long n = client.call(GroutApi.PING, payload, 0, len, answer);
        if (n != len || MemorySegment.mismatch(payload, 0, len, answer, 0, len) >= 0) {
            throw SysframePeer.echoFailure(GroutApi.PING, payload, len, answer, 0, n);
        }
    }

    @Override
    public long serverPid() throws org.sysframe.unix.ErrnoException { return client.serverCredentials().pid(); }

    /** Frees this caller's memory; the shared client is closed by its owner. */
    @Override
    public void close() { arena.close(); }
}
