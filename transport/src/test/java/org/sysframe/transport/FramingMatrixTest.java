package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.transport.support.TestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Every client framing against every server framing, over the payload sizes at every boundary, byte-exact. */
@EachBackend
class FramingMatrixTest {
    static final int[] SIZES = {0, 1, 32, 1023, 1024, 1025, 8191, 8192, 65536, 131072};
    static final List<SendFraming> CLIENT_SEND =
            List.of(SendFraming.SPLIT, SendFraming.COPY, SendFraming.GATHER, SendFraming.COPY_GATHER);
    static final List<RecvFraming> CLIENT_RECV =
            List.of(RecvFraming.EXACT, RecvFraming.readAhead(1024), RecvFraming.READAHEAD);

    @TempDir Path dir;

    record ServerMode(SendFraming send, FlushMode flush) {}

    static final List<ServerMode> SERVER = List.of(
            new ServerMode(SendFraming.SPLIT, FlushMode.IMMEDIATE),
            new ServerMode(SendFraming.COPY, FlushMode.IMMEDIATE),
            new ServerMode(SendFraming.GATHER, FlushMode.IMMEDIATE),
            new ServerMode(SendFraming.COPY_GATHER, FlushMode.IMMEDIATE),
            new ServerMode(SendFraming.GATHER, FlushMode.DEFERRED),
            new ServerMode(SendFraming.COPY_GATHER, FlushMode.DEFERRED));

    @Test
    void everyPairingEchoesEveryPayloadSizeByteExact() throws Exception {
        int checked = 0;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment payload = a.allocate(GroutApi.MAX_MSG_LEN);
            for (ServerMode sm : SERVER) {
                String path = dir.resolve("m.sock").toString();
                try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath(path).send(sm.send())
                        .flush(sm.flush()))) {
                    for (SendFraming cs : CLIENT_SEND) {
                        for (RecvFraming cr : CLIENT_RECV) {
                            try (GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).send(cs)
                                    .recv(cr))) {
                                for (int size : SIZES) {
                                    for (int round = 0; round < 2; round++) {
                                        int seed = size * 131 + round;
                                        for (int i = 0; i < size; i++) payload.set(JAVA_BYTE, i,
                                                (byte) (seed + i * 31));
                                        Response r = c.call(GroutApi.PING, payload, 0, size);
                                        assertEquals(size, r.length(), sm + " " + cs + " " + cr + " " + size);
                                        assertEquals(-1L, MemorySegment.mismatch(payload, 0, size, r.buffer(),
                                                r.offset(), r.offset() + size),
                                                sm + " " + cs + " " + cr + " size " + size + " round " + round);
                                        checked++;
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        assertEquals(SERVER.size() * CLIENT_SEND.size() * CLIENT_RECV.size() * SIZES.length * 2, checked);
    }

    @Test
    void copyFramingSendsOnceUpToItsThresholdAndSplitsAbove() throws Exception {
        String path = dir.resolve("c.sock").toString();
        try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath(path));
             GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL)
                     .send(SendFraming.copy(1024)));
             Arena a = Arena.ofConfined()) {
            MemorySegment payload = a.allocate(2048);
            // 12 + 1012 = 1024 fits the seed's buffer: one send. 12 + 1013 does not: header, then payload.
            assertEquals(1, sendtoFor(c, payload, 1012));
            assertEquals(2, sendtoFor(c, payload, 1013));
            // No payload: the header alone, one send (the seed copies only when there is a payload).
            assertEquals(1, sendtoFor(c, payload, 0));
            assertEquals(1, s.connectionCount());
        }
    }

    @Test
    void copyGatherFramingSendsOnceAtEverySize() throws Exception {
        String path = dir.resolve("g.sock").toString();
        try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath(path));
             GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL)
                     .send(SendFraming.copyGather(1024)));
             Arena a = Arena.ofConfined()) {
            MemorySegment payload = a.allocate(GroutApi.MAX_MSG_LEN);
            for (int len : new int[] {0, 1012, 1013, 65536}) {
                SyscallCounts before = c.counters().snapshot();
                c.call(GroutApi.PING, payload, 0, len);
                SyscallCounts d = c.counters().snapshot().minus(before);
                long sendto = len <= 1012 ? 1 : 0;
                assertEquals(sendto, d.get(SyscallKind.SENDTO), "sendto for " + len);
                assertEquals(1 - sendto, d.get(SyscallKind.SENDMSG), "sendmsg for " + len);
            }
            assertEquals(1, s.connectionCount());
        }
    }

    private static long sendtoFor(GroutClient c, MemorySegment payload, int len) throws Exception {
        SyscallCounts before = c.counters().snapshot();
        c.call(GroutApi.PING, payload, 0, len);
        return c.counters().snapshot().minus(before).get(SyscallKind.SENDTO);
    }
}
