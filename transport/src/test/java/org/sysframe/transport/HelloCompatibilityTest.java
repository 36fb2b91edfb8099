package org.sysframe.transport;

import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.transport.wire.ResponseHeader;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.TestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * GR_HELLO's answer in both shapes: {@code u16 max_ifaces} (docs/wire-format.md, API 11), or empty, as older
 * Grout servers answered and as their clients require (Grout's own client asserts when a hello answer
 * carries a payload it did not ask for).
 */
@EachBackend
class HelloCompatibilityTest {
    @TempDir Path dir;

    /** The raw hello answer: header fields and payload bytes. */
    private static int[] rawHello(String path, int apiVersion) throws Exception {
        try (UnixSocket s = UnixSocket.connect(path); Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(12 + GroutApi.HELLO_REQUEST_SIZE);
            RequestHeader.write(out, 0, 1, GroutApi.HELLO, GroutApi.HELLO_REQUEST_SIZE);
            out.set(JAVA_INT, 12, apiVersion);
            s.sendFully(out, 0, out.byteSize());
            MemorySegment in = a.allocate(64);
            s.recvFully(in, 0, 12);
            int len = (int) ResponseHeader.payloadLen(in, 0);
            s.recvFully(in, 12, len);
            int maxIfaces = len == 2 ? Short.toUnsignedInt(in.get(JAVA_SHORT_UNALIGNED, 12)) : -1;
            return new int[] {ResponseHeader.forId(in, 0), ResponseHeader.status(in, 0), len, maxIfaces};
        }
    }

    @Test
    void helloIsAnsweredWithMaxIfacesByDefault() throws Exception {
        String path = dir.resolve("h.sock").toString();
        try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath(path).maxIfaces(300))) {
            assertEquals(List.of(1, 0, 2, 300), Arrays.stream(rawHello(path, 11)).boxed().toList());
            try (GroutClient c = GroutClient.connect(path)) {
                assertEquals(300, c.maxIfaces());
            }
        }
    }

    @Test
    void emptyHelloResponseAnswersWithNoPayloadAndOurClientStillConnects() throws Exception {
        String path = dir.resolve("e.sock").toString();
        try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath(path).emptyHelloResponse(true)
                .apiVersion(1));
             Arena a = Arena.ofConfined()) {
            assertEquals(List.of(1, 0, 0, -1), Arrays.stream(rawHello(path, 1)).boxed().toList());
            try (GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).apiVersion(1))) {
                assertEquals(-1, c.maxIfaces());
                assertEquals(32, c.call(GroutApi.PING, a.allocate(32)).length());
            }
            // A mismatched version is still refused.
            assertEquals(List.of(1, 74, 0, -1), Arrays.stream(rawHello(path, 11)).boxed().toList());
        }
    }
}
