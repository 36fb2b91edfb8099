package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.transport.wire.ResponseHeader;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Test;
import org.sysframe.testsupport.Awaits;
import org.sysframe.testsupport.ProcessProbe;
import org.sysframe.transport.support.Payloads;
import org.sysframe.transport.support.RawSockets;
import org.sysframe.transport.support.ServerFixture;
import org.sysframe.transport.support.ServerLogs;
import org.sysframe.unix.UnixSocket;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sysframe.testsupport.Awaits.awaitUntil;
import static org.sysframe.transport.support.ServerFixture.awaitConnectionCount;
import static org.sysframe.transport.support.ServerFixture.guard;

/**
 * Every peer is bounded in time and memory, on both backends: a request that stops coming is closed
 * at the request timeout, a silent connection at the idle timeout (when set), a large request waits
 * while the memory budget is taken and goes on when it is given back, and the memory of large
 * requests goes back to the budget and the kernel when it is no longer needed.
 *
 * <p>Nothing is timed: the timeouts are short, and the tests wait (hang guard only) for what the server
 * logs and does, then assert its exact text and state.
 */
@EachBackend
class ServerBoundsTest {
    private static final int HDR = RequestHeader.SIZE;
    private static final int LARGE = HDR + GroutApi.MAX_MSG_LEN;
    private static final Duration GUARD = Awaits.HANG_GUARD;
    /** A test message: answers the last 16 bytes of its payload. */
    private static final int TAIL = GroutApi.type(0x5f5f, 1);

    @RegisterExtension
    final ServerFixture fx = new ServerFixture();

    /** The backend of this invocation of the suite ({@link EachBackend}). */
    private final Backend backend;

    ServerBoundsTest(Backend backend) { this.backend = backend; }

    private static void sendHeader(UnixSocket s, MemorySegment scratch, int id, int payloadLen,
            int payloadBytes) throws Exception {
        RequestHeader.write(scratch, 0, id, GroutApi.PING, payloadLen);
        scratch.asSlice(HDR, payloadBytes).fill((byte) 7);
        s.sendFully(scratch, 0, HDR + payloadBytes);
    }

    private static List<String> awaitLines(ServerLogs logs, String prefix, int n) {
        awaitUntil(() -> logs.lines(l -> l.contains(prefix)).size() >= n, GUARD, () -> "log lines: " + logs.lines());
        return logs.lines(l -> l.contains(prefix));
    }

    private static void assertEof(UnixSocket s, MemorySegment scratch) throws Exception {
        assertEquals(0, s.recv(scratch, 0, 64, 0), "the server closed the connection");
    }

    @Test
    void aRequestThatStopsComingIsClosedAtTheRequestTimeoutAndLoggedWhileAQuietConnectionStays() throws Exception {
        guard(() -> {
            try (ServerLogs logs = new ServerLogs(); Arena a = Arena.ofConfined()) {
                GroutServer server = fx.start("loris.sock",
                        ServerOptions.defaults().backend(backend).requestTimeout(Duration.ofMillis(200)));
                String p = server.socketPath();
                MemorySegment scratch = a.allocate(LARGE, 8);
                UnixSocket quiet = fx.track(RawSockets.connect(p));
                RawSockets.hello(quiet, scratch, 1);
                UnixSocket body = fx.track(RawSockets.connect(p));
                RawSockets.hello(body, scratch, 1);
                sendHeader(body, scratch, 2, 1000, 10); // 22 of 1012 bytes, then nothing
                UnixSocket header = fx.track(RawSockets.connect(p));
                RawSockets.hello(header, scratch, 1);
                header.sendFully(scratch, 0, 5); // 5 bytes of a 12-byte header
                int pid = (int) ProcessHandle.current().pid();
                List<String> lines = awaitLines(logs, "request timeout", 2);
                assertEquals(List.of(
                        "pid=" + pid
                        + ": request not complete within the 200 ms request timeout (22 of 1012 bytes came): closing "
                                + "the connection",
                        "pid=" + pid
                                + ": request not complete within the 200 ms request timeout (5 bytes of its header "
                                        + "came): closing the connection"),
                        lines.stream().sorted().toList());
                assertEof(body, scratch);
                assertEof(header, scratch);
                awaitConnectionCount(server, 1);
                assertEquals(2, server.closedConnections().stream().filter(c ->
                        c.closeReason().equals("request timeout")).count());
                // The quiet one (no request in part) is not touched, and is served.
                RawSockets.hello(quiet, scratch, 3);
                assertEquals(2, logs.lines().size(), logs.lines().toString());
            }
        });
    }

    @Test
    void aSilentConnectionIsClosedAtTheIdleTimeoutWhenOneIsSet() throws Exception {
        assertEquals(Duration.ZERO, ServerOptions.defaults().freeze().idleTimeout(), "off by default");
        guard(() -> {
            try (ServerLogs logs = new ServerLogs(); Arena a = Arena.ofConfined()) {
                GroutServer server = fx.start("idle.sock",
                        ServerOptions.defaults().backend(backend).idleTimeout(Duration.ofMillis(300)));
                MemorySegment scratch = a.allocate(4096, 8);
                UnixSocket s = fx.track(RawSockets.connect(server.socketPath()));
                RawSockets.hello(s, scratch, 1);
                List<String> lines = awaitLines(logs, "idle timeout", 1);
                assertEquals(List.of("pid=" + ProcessHandle.current().pid()
                        + ": nothing received within the 300 ms idle timeout: closing the connection"), lines);
                assertEof(s, scratch);
                awaitConnectionCount(server, 0);
                assertEquals("idle timeout", server.closedConnections().get(0).closeReason());
            }
        });
    }

    @Test
    void atTheMemoryBudgetALargeRequestWaitsUnreadUntilMemoryIsGivenBack() throws Exception {
        guard(() -> {
            try (ServerLogs logs = new ServerLogs(); Arena a = Arena.ofConfined()) {
                // Room for one large request, not two (a large answer's unsent part would take the budget as
                // well: the large request's answer is its last 16 bytes); a request timeout long enough not to play a
                // part.
                GroutServer server = fx.start("budget.sock", ServerOptions.defaults().backend(backend)
                        .memoryBudget(LARGE + 64 * 1024).requestTimeout(Duration.ofMinutes(5))
                        .handle(TAIL, 16, (rq, rp) -> rp.echo(rq.length() - 16, 16)));
                String p = server.socketPath();
                MemorySegment scratch = a.allocate(LARGE, 8);
                UnixSocket holder = fx.track(RawSockets.connect(p));
                RawSockets.hello(holder, scratch, 1);
                sendHeader(holder, scratch, 2, GroutApi.MAX_MSG_LEN, 100); // takes the budget, then stalls
                awaitUntil(() -> server.limits().memory.used() == LARGE, GUARD, () -> "budget used "
                        + server.limits().memory.used());

                UnixSocket waiter = fx.track(RawSockets.connect(p));
                RawSockets.hello(waiter, scratch, 1);
                byte[] payload = Payloads.unique(9, GroutApi.MAX_MSG_LEN);
                MemorySegment req = a.allocate(LARGE, 8);
                RequestHeader.write(req, 0, 77, TAIL, payload.length);
                MemorySegment.copy(payload, 0, req, JAVA_BYTE, HDR, payload.length);
                Thread sender = Thread.ofPlatform().start(() -> {
                    try {
                        // blocks once the socket buffer is full: the server does not read
                        waiter.sendFully(req, 0, LARGE);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                Awaits.awaitEquals(1, () -> {
                    try {
                        return server.memoryWaiters();
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                }, GUARD, "connections waiting for memory");
                assertEquals(UnixSocket.WOULD_BLOCK, waiter.recv(scratch, 0, 64, UnixSocket.MSG_DONTWAIT),
                        "no answer while it waits");
                assertEquals(LARGE, server.limits().memory.used());

                holder.close(); // gives the budget back: the waiting request is read, whole, and answered
                MemorySegment answer = a.allocate(HDR + 16, 8);
                waiter.recvFully(answer, 0, HDR + 16);
                sender.join();
                assertEquals(77, ResponseHeader.forId(answer, 0));
                assertEquals(0, ResponseHeader.status(answer, 0));
                assertArrayEquals(Arrays.copyOfRange(payload, payload.length - 16, payload.length),
                        answer.asSlice(HDR, 16).toArray(JAVA_BYTE), "the whole request was read");
                assertEquals(0, server.memoryWaiters());
                assertEquals(List.of(), logs.lines(), "waiting for memory is not a warning");
            }
        });
    }

    @Test
    void largeBuffersGoBackToTheBudgetAndTheKernelWhenUnusedAndWhenTheirConnectionsClose() throws Exception {
        final int conns = 100;
        final int sent = 120 * 1024; // of each 128 KiB request: its pages are resident
        guard(() -> {
            try (ServerLogs logs = new ServerLogs(); Arena a = Arena.ofConfined()) {
                GroutServer server = fx.start("memory.sock", ServerOptions.defaults().backend(backend)
                        .memoryBudget(256L << 20).requestTimeout(Duration.ofMinutes(5)));
                String p = server.socketPath();
                MemorySegment scratch = a.allocate(LARGE, 8);

                // One large request answered, then a quiet connection: its buffer goes back at a timer check.
                UnixSocket once = fx.track(RawSockets.connect(p));
                RawSockets.hello(once, scratch, 1);
                for (int round = 0; round < 2; round++) {
                    sendHeader(once, scratch, 5 + round, GroutApi.MAX_MSG_LEN, GroutApi.MAX_MSG_LEN);
                    once.recvFully(scratch, 0, LARGE);
                    assertEquals(5 + round, ResponseHeader.forId(scratch, 0));
                    awaitUntil(() -> server.limits().memory.used() == 0, GUARD, () -> "budget used "
                            + server.limits().memory.used());
                }

                ProcessProbe.nativeMemory();
                ProcessProbe.Nmt nmtBefore = ProcessProbe.nativeMemory();
                long rssBefore = ProcessProbe.rssBytes();
                List<UnixSocket> stalled = new ArrayList<>();
                for (int i = 0; i < conns; i++) {
                    UnixSocket s = RawSockets.connect(p);
                    stalled.add(s);
                    RawSockets.hello(s, scratch, 1);
                    sendHeader(s, scratch, 2, GroutApi.MAX_MSG_LEN, sent);
                }
                awaitUntil(() -> server.limits().memory.used() == (long) conns * LARGE, GUARD,
                        () -> "budget used " + server.limits().memory.used());
                long rssHeld = ProcessProbe.rssBytes();
                for (UnixSocket s : stalled) s.close();
                awaitConnectionCount(server, 1);
                awaitUntil(() -> server.limits().memory.used() == 0, GUARD, () -> "budget used "
                        + server.limits().memory.used());
                long rssAfter = ProcessProbe.rssBytes();
                ProcessProbe.Nmt nmtAfter = ProcessProbe.nativeMemory();
                System.out.printf(Locale.ROOT,
                        "bounds (%s): %d stalled 128 KiB requests with %d KiB each: RSS %,d KiB before, %,d held, %,d "
                        + "after close;"
                                + " NMT Other %,d -> %,d bytes%n", backend, conns, sent / 1024, rssBefore / 1024,
                                        rssHeld / 1024, rssAfter / 1024,
                        nmtBefore.otherCommitted(), nmtAfter.otherCommitted());
                long resident = (long) conns * sent;
                assertTrue(rssHeld - rssAfter >= resident * 9 / 10,
                        "closing gave back " + (rssHeld - rssAfter) + " bytes of RSS, expected at least 90 % of the "
                        + resident + " resident in large buffers");
                assertTrue(nmtAfter.otherCommitted() - nmtBefore.otherCommitted() < (1 << 20),
                        "NMT Other grew by " + (nmtAfter.otherCommitted() - nmtBefore.otherCommitted()) + " bytes");
                assertEquals(List.of(), logs.lines());
            }
        });
    }
}
