package org.sysframe.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.RawSockets;
import org.sysframe.transport.support.ServerFixture;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.transport.wire.ResponseHeader;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.stream.IntStream;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sysframe.transport.support.ServerFixture.guard;

/**
 * {@link ServerOptions#requestsPerRead}: Grout's api.c emulation. Requests sent together in one send
 * arrive in one read: at most N of them are answered, the rest kept until the next read brings
 * bytes, which answers the oldest kept. A raw client on a real socket sees exactly which answers come.
 * An absence is shown by a receive that waits {@value #QUIET_MS} ms and gets nothing: a bound on the
 * wait, never a speed requirement.
 */
@EachBackend
class RequestsPerReadTest {
    private static final int HDR = RequestHeader.SIZE;
    /** How long a receive waits to show that no answer comes. */
    private static final int QUIET_MS = 300;
    /** Each GR_PING carries its id as its 4-byte payload, which the server echoes. */
    private static final int PAYLOAD = 4;

    @RegisterExtension
    final ServerFixture fx = new ServerFixture();

    @Test
    void oneRequestPerReadAnswersTheFirstOfThreeThenTheOldestKeptOnEachRead(Backend backend) throws Exception {
        guard(() -> {
            GroutServer server = fx.start("one.sock", ServerOptions.defaults().requestsPerRead(1));
            assertEquals(backend, server.backend(), "the invocation's backend");
            assertEquals(1, server.config().requestsPerRead());
            try (Arena a = Arena.ofConfined()) {
                UnixSocket s = helloed(fx.path("one.sock"), a);
                MemorySegment buf = a.allocate(256, 8);
                sendPings(s, buf, 101, 102, 103);
                expectAnswers(s, buf, 101);
                expectNothing(s, buf);
                int next = 102;
                for (int id = 104; id <= 108; id++) {
                    sendPings(s, buf, id); // one more read: it answers the oldest request kept
                    expectAnswers(s, buf, next++);
                    expectNothing(s, buf);
                }
            }
        });
    }

    @Test
    void twoRequestsPerReadAnswerTheFirstTwoOfFiveSentTogetherThenTwoKeptOnTheNextRead() throws Exception {
        guard(() -> {
            fx.start("two.sock", ServerOptions.defaults().requestsPerRead(2));
            try (Arena a = Arena.ofConfined()) {
                UnixSocket s = helloed(fx.path("two.sock"), a);
                MemorySegment buf = a.allocate(256, 8);
                sendPings(s, buf, 201, 202, 203, 204, 205);
                expectAnswers(s, buf, 201, 202);
                expectNothing(s, buf);
                sendPings(s, buf, 206);
                expectAnswers(s, buf, 203, 204);
                expectNothing(s, buf);
                sendPings(s, buf, 207);
                expectAnswers(s, buf, 205, 206);
                expectNothing(s, buf);
            }
        });
    }

    @Test
    void requestsKeptInAFullReadBufferLeaveRoomForTheNextReadAndTheConnectionGoesOn() throws Exception {
        // Twenty requests of 16 bytes in one send, a read buffer of 256 (GR_HELLO's 144 bytes fit): the
        // first read takes 16 and answers 1, the 15 kept move to the buffer's start, and each later read
        // takes the 16 bytes of room left and answers 1: 1 + 64 / 16 = 5 answers, 15 kept. (A read into
        // no room would look like EOF.)
        guard(() -> {
            GroutServer server = fx.start("full.sock", ServerOptions.defaults().readBuffer(256).requestsPerRead(1));
            try (Arena a = Arena.ofConfined()) {
                UnixSocket s = helloed(fx.path("full.sock"), a);
                MemorySegment buf = a.allocate(512, 8);
                sendPings(s, buf, IntStream.rangeClosed(401, 420).toArray());
                expectAnswers(s, buf, 401, 402, 403, 404, 405);
                expectNothing(s, buf);
                sendPings(s, buf, 421);
                expectAnswers(s, buf, 406);
                expectNothing(s, buf);
                assertEquals(1, server.connectionCount(), "still open");
            }
        });
    }

    @Test
    void byDefaultEveryRequestOfARead() throws Exception {
        guard(() -> {
            GroutServer server = fx.start("all.sock", ServerOptions.defaults());
            assertEquals(0, server.config().requestsPerRead());
            try (Arena a = Arena.ofConfined()) {
                UnixSocket s = helloed(fx.path("all.sock"), a);
                MemorySegment buf = a.allocate(256, 8);
                sendPings(s, buf, 301, 302, 303);
                expectAnswers(s, buf, 301, 302, 303);
                expectNothing(s, buf);
            }
        });
    }

    @Test
    void aNegativeValueIsRefusedByTheOptionsAndTheConfig() throws Exception {
        String expected = "requests per read -1: 0 (every complete request) or at least 1";
        assertEquals(expected, assertThrows(IllegalArgumentException.class,
                () -> ServerOptions.defaults().requestsPerRead(-1)).getMessage());
        InvocationTargetException e = assertThrows(InvocationTargetException.class,
                () -> configWith(ServerOptions.defaults().freeze(), "requestsPerRead", -1));
        assertInstanceOf(IllegalArgumentException.class, e.getCause());
        assertEquals(expected, e.getCause().getMessage());
        ServerConfig three = ServerOptions.defaults().requestsPerRead(3).freeze();
        assertEquals(3, three.requestsPerRead());
        assertTrue(three.toString().endsWith(", requests per read 3 (Grout's api.c emulation)"), three.toString());
    }

    /** A raw connection to path that said GR_HELLO (closed after the test). */
    private UnixSocket helloed(String path, Arena a) throws ErrnoException {
        UnixSocket s = fx.track(RawSockets.connect(path));
        RawSockets.hello(s, a.allocate(1024, 8), 1);
        return s;
    }

    /** One GR_PING per id, all in one send (so that the server reads them together). */
    private static void sendPings(UnixSocket s, MemorySegment buf, int... ids) throws ErrnoException {
        long at = 0;
        for (int id : ids) {
            RequestHeader.write(buf, at, id, GroutApi.PING, PAYLOAD);
            buf.set(JAVA_INT_UNALIGNED, at + HDR, id);
            at += HDR + PAYLOAD;
        }
        assertEquals(at, s.send(buf, 0, at, 0), "one send of " + ids.length + " request(s)");
    }

    /** Receives one answer per id, in order: each its request's echo. */
    private static void expectAnswers(UnixSocket s, MemorySegment buf, int... ids) throws ErrnoException {
        for (int id : ids) {
            s.recvFully(buf, 0, HDR + PAYLOAD); // within the raw socket's receive timeout: a hang guard
            assertEquals(id, ResponseHeader.forId(buf, 0), "for_id");
            assertEquals(0, ResponseHeader.status(buf, 0), "status of " + id);
            assertEquals(PAYLOAD, ResponseHeader.payloadLen(buf, 0), "payload_len of " + id);
            assertEquals(id, buf.get(JAVA_INT_UNALIGNED, HDR), "echo of " + id);
        }
    }

    /** No byte comes within {@value #QUIET_MS} ms. */
    private static void expectNothing(UnixSocket s, MemorySegment buf) throws ErrnoException {
        s.setReceiveTimeout(QUIET_MS);
        try {
            long n = s.recv(buf, 0, buf.byteSize(), 0);
            assertEquals(UnixSocket.WOULD_BLOCK, n, n == 0 ? "the server closed the connection" : n + " bytes came");
        } finally {
            s.setReceiveTimeout(RawSockets.RECV_TIMEOUT_MS);
        }
    }

    /** The config c with one component replaced, through the record's canonical constructor (which checks it). */
    private static ServerConfig configWith(ServerConfig c, String name, Object value) throws Exception {
        RecordComponent[] rc = ServerConfig.class.getRecordComponents();
        Class<?>[] types = new Class<?>[rc.length];
        Object[] args = new Object[rc.length];
        for (int i = 0; i < rc.length; i++) {
            types[i] = rc[i].getType();
            args[i] = rc[i].getName().equals(name) ? value : rc[i].getAccessor().invoke(c);
        }
        Constructor<ServerConfig> canonical = ServerConfig.class.getDeclaredConstructor(types);
        return canonical.newInstance(args);
    }
}
