package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.transport.wire.ResponseHeader;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.sysframe.testsupport.Awaits;
import org.sysframe.testsupport.WireBytes;
import org.sysframe.transport.support.Payloads;
import org.sysframe.transport.support.RawSockets;
import org.sysframe.transport.support.ResponseReader;
import org.sysframe.transport.support.ServerFixture;
import org.sysframe.unix.UnixSocket;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.sysframe.transport.support.ServerFixture.guard;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sysframe.testsupport.Awaits.awaitUntil;
import static org.sysframe.transport.support.Payloads.nativeCopy;

/**
 * A request header declaring a payload over 128 KiB closes the connection without an answer, and the
 * requests read before it in the same read are still answered, byte-exact, before the close.
 *
 * <p>Outcomes are exact; nothing is timed. Waits are progress-based and bounded only as hang guards:
 * receive timeouts on every raw socket, a deadline on every wait, and a preemptive timeout around each test body.
 */
@EachBackend
class OverSizeRequestTest {
    private static final int HDR = RequestHeader.SIZE;
    private static final int MAX = GroutApi.MAX_MSG_LEN;
    private static final Duration HANG_GUARD = Duration.ofSeconds(45);

    @RegisterExtension
    final ServerFixture fx = new ServerFixture();

    static Stream<Arguments> batchedOverSizeCases() {
        return Stream.of(
                Arguments.of(FlushMode.IMMEDIATE, 0),
                Arguments.of(FlushMode.DEFERRED, 0),
                Arguments.of(FlushMode.IMMEDIATE, 4096),
                Arguments.of(FlushMode.DEFERRED, 4096));
    }

    /**
     * The fuzzer lets every earlier answer arrive before it sends a closing header. Here twenty pings
     * and the closing header travel in one send(2), so the server reads them together: it must still
     * deliver the answers of the complete requests it handled before it closes (docs/wire-format.md: the
     * over-size request gets no response; the ones before it are ordinary requests, and their
     * handlers ran). With a 4 KiB server socket buffer the answers cannot all leave at once and some
     * wait in the server's queue of unsent bytes when the closing header is read.
     */
    @ParameterizedTest(name = "flush {0}, server socket buffer {1}")
    @MethodSource("batchedOverSizeCases")
    void answersToRequestsReadTogetherWithAnOverSizeHeaderAreSentBeforeTheClose(FlushMode flush,
            int socketBuffer) throws Exception {
        final int pings = 20;
        String p = fx.path("oversize-batch.sock");
        guard(() -> {
            GroutServer server = fx.start(ServerOptions.defaults().socketPath(p).flush(flush)
                    .socketBufferSize(socketBuffer));
            UnixSocket s = fx.track(RawSockets.connect(p));
            try (Arena a = Arena.ofConfined()) {
                RawSockets.hello(s, a.allocate(4096, 8), 1);
                WireBytes out = new WireBytes();
                byte[][] payloads = new byte[pings][];
                for (int i = 0; i < pings; i++) {
                    payloads[i] = Payloads.unique(40 + i, 100 + 10 * i);
                    out.header(10 + i, GroutApi.PING, payloads[i].length);
                    for (byte b : payloads[i]) out.put(b);
                }
                out.header(10 + pings, GroutApi.PING, 0xffffffff);
                assertTrue(out.n <= ServerOptions.defaults().freeze().readBuffer(),
                        "all of it fits one read of the server");
                MemorySegment bytes = nativeCopy(a, Arrays.copyOf(out.a, out.n));
                assertEquals(out.n, s.send(bytes, 0, out.n, 0), "one send(2) for the pings and the over-size header");
                // Read nothing until the server has handled the pings (it holds their answers, or closed).
                awaitUntil(() -> {
                    try {
                        List<ConnectionStats> open = server.openConnections();
                        return open.isEmpty() || open.get(0).requests() >= 1 + pings;
                    } catch (IOException e) {
                        throw new AssertionError(e);
                    }
                }, Awaits.HANG_GUARD, () -> "the server to handle the " + pings + " pings");
                ResponseReader in = new ResponseReader(s, a.allocate(2L * (HDR + MAX), 8));
                for (int i = 0; i < pings; i++) {
                    assertTrue(in.fill(HDR), "the server closed without answering ping " + (i + 1) + " of " + pings
                            + ", which it read before the over-size header");
                    assertEquals(10 + i, ResponseHeader.forId(in.buf, in.start));
                    assertEquals(0, ResponseHeader.status(in.buf, in.start));
                    assertEquals(payloads[i].length, ResponseHeader.payloadLen(in.buf, in.start));
                    assertTrue(in.fill(HDR + payloads[i].length), "the stream ended inside answer " + (i + 1));
                    assertArrayEquals(payloads[i], in.buf.asSlice(in.start + HDR, payloads[i].length)
                            .toArray(JAVA_BYTE));
                    in.start += HDR + payloads[i].length;
                }
                assertFalse(in.fill(1), "EOF after the answers");
            }
        });
    }
}
