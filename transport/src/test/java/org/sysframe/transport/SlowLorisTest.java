package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.transport.wire.ResponseHeader;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sysframe.transport.support.Payloads;
import org.sysframe.transport.support.PoliteClient;
import org.sysframe.transport.support.RawSockets;
import org.sysframe.transport.support.ServerFixture;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import static org.sysframe.transport.support.ServerFixture.guard;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.sysframe.transport.support.ServerFixture.awaitConnectionCount;

/**
 * A slow loris dribbling one byte of a request every 20 ms does not hold up normal clients, and gets
 * its answer once the request is complete.
 *
 * <p>Outcomes are exact; nothing is timed. Waits are progress-based and bounded only as hang guards:
 * receive timeouts on every raw socket, a deadline on every wait, and a preemptive timeout around each test body.
 */
@EachBackend
class SlowLorisTest {
    private static final int HDR = RequestHeader.SIZE;
    private static final int MAX = GroutApi.MAX_MSG_LEN;

    @RegisterExtension
    final ServerFixture fx = new ServerFixture();

    @Test
    void slowLorisDribblingOneBytePer20MsDoesNotHoldUpEightNormalClientsAndGetsItsAnswer() throws Exception {
        String p = fx.path("loris.sock");
        guard(() -> {
            GroutServer server = fx.start(ServerOptions.defaults().socketPath(p));
            List<PoliteClient> normals = new ArrayList<>();
            for (int i = 0; i < 8; i++) normals.add(fx.polite(p, "normal client " + i, 100 + i, 512));
            for (PoliteClient c : normals) c.awaitPings(0, 1);

            UnixSocket loris = fx.track(RawSockets.connect(p));
            try (Arena a = Arena.ofConfined()) {
                MemorySegment scratch = a.allocate(1024, 8);
                RawSockets.hello(loris, scratch, 1);
                byte[] payload = Payloads.unique(7, 88);
                MemorySegment req = a.allocate(HDR + payload.length, 8);
                RequestHeader.write(req, 0, 0x10a15, GroutApi.PING, payload.length);
                MemorySegment.copy(payload, 0, req, JAVA_BYTE, HDR, payload.length);
                long[] atStart = new long[normals.size()];
                for (int i = 0; i < normals.size(); i++) atStart[i] = normals.get(i).pings.get();
                MemorySegment probe = a.allocate(64);
                for (int i = 0; i < req.byteSize(); i++) {
                    if (i == req.byteSize() - 1) {
                        // Before the last byte: every normal client was served while this request sat partial.
                        for (int c = 0; c < normals.size(); c++) normals.get(c).awaitPings(atStart[c], 20);
                    }
                    assertEquals(1, loris.send(req, i, 1, 0));
                    if (i == req.byteSize() - 1) break;
                    assertEquals(UnixSocket.WOULD_BLOCK, loris.recv(probe, 0, probe.byteSize(),
                            UnixSocket.MSG_DONTWAIT),
                            "an answer (or EOF) after " + (i + 1) + " of " + req.byteSize() + " bytes");
                    Thread.sleep(20);
                }
                for (PoliteClient c : normals) c.checkAlive();
                // The last byte completed the request: exactly its answer comes.
                loris.recvFully(scratch, 0, HDR + payload.length);
                assertEquals(0x10a15, ResponseHeader.forId(scratch, 0));
                assertEquals(0, ResponseHeader.status(scratch, 0));
                assertEquals(payload.length, ResponseHeader.payloadLen(scratch, 0));
                assertArrayEquals(payload, scratch.asSlice(HDR, payload.length).toArray(JAVA_BYTE));
            }
            long[] done = new long[normals.size()];
            long all = 0;
            for (int i = 0; i < normals.size(); i++) {
                done[i] = normals.get(i).finish();
                all += done[i];
            }
            System.out.printf(Locale.ROOT,
                    "slow loris: 100 bytes at one per 20 ms; 8 normal clients completed %,d pings meanwhile %s%n",
                    all, Arrays.toString(done));
            loris.close();
            awaitConnectionCount(server, 0);
        });
    }
}
