package org.sysframe.transport;

import jdk.jfr.ValueDescriptor;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.testsupport.Awaits;
import org.sysframe.transport.support.TestServers;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.MessageSpecs;
import org.sysframe.unix.Errno;
import org.sysframe.unix.Self;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The flight-recorder events, recorded with a {@link RecordingStream} against a real server: a round
 * trip, a pipeline batch, a handled request (named by the type table), a failed handler, a connection
 * opened and closed with its totals, a client closed, and the periodic syscall counts of an open
 * connection. Also: a failing handler's log line carries its stack trace.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class JfrEventsTest {
    static final int ECHO = 0xdead0001, BOOM = 0xdead0002;
    static final List<String> NAMES = List.of("org.sysframe.RoundTrip", "org.sysframe.PipelineBatch",
            "org.sysframe.ServerRequest",
            "org.sysframe.ConnectionOpened", "org.sysframe.ConnectionClosed", "org.sysframe.ClientClosed",
                    "org.sysframe.ConnectionSyscalls");
    @TempDir Path dir;

    /**
     * An event's fields, read in the stream's callback: a RecordedEvent's strings come from the chunk's
     * constant pool, which the stream may drop once it moved on (they then read as null).
     */
    record Ev(String name, Map<String, Object> fields) {
        static Ev of(RecordedEvent e) {
            Map<String, Object> f = new TreeMap<>();
            for (ValueDescriptor d : e.getFields()) if (e.getValue(d.getName()) != null) f.put(d.getName(),
                    e.getValue(d.getName()));
            return new Ev(e.getEventType().getName(), f);
        }

        String getString(String k) { return (String) fields.get(k); }
        int getInt(String k) { return ((Number) fields.get(k)).intValue(); }
        long getLong(String k) { return ((Number) fields.get(k)).longValue(); }
    }

    private static List<Ev> named(List<Ev> events, String name) {
        return events.stream().filter(e -> e.name().equals(name)).toList();
    }

    @Test
    void everyEventIsRecordedWithItsFields() throws Exception {
        String path = dir.resolve("jfr.sock").toString();
        List<Ev> events = new CopyOnWriteArrayList<>();
        MessageSpecs specs = MessageSpecs.grout().name(ECHO, "TEST_ECHO").name(BOOM, "TEST_BOOM");
        List<LogRecord> logs = new CopyOnWriteArrayList<>();
        Logger server = Logger.getLogger("org.sysframe.server");
        Handler capture = new Handler() {
            @Override public void publish(LogRecord r) { logs.add(r); }
            @Override public void flush() {}
            @Override public void close() {}
        };
        boolean parents = server.getUseParentHandlers();
        long clientSyscalls;
        server.setUseParentHandlers(false);
        server.addHandler(capture);
        try (RecordingStream rs = new RecordingStream()) {
            for (String n : NAMES) rs.enable(n).withThreshold(Duration.ZERO).withoutStackTrace();
            rs.enable("org.sysframe.ConnectionSyscalls").withPeriod(Duration.ofMillis(100));
            rs.onEvent(e -> events.add(Ev.of(e)));
            rs.startAsync();
            try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath(path).specs(specs)
                    .handle(ECHO, 0, (req, reply) -> reply.echo(0, req.length()))
                    .handle(BOOM, 0, (req, reply) -> { throw new IllegalStateException("boom"); }));
                 Arena a = Arena.ofConfined()) {
                GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).specs(specs)
                        .backend(Backend.EPOLL));
                MemorySegment p = a.allocate(24);
                assertEquals(24, c.call(ECHO, p, 0, 24).length());
                ApiException failed = assertThrows(ApiException.class, () -> c.call(BOOM, p, 0, 3));
                assertEquals("TEST_BOOM: EIO (5) Input/output error", failed.getMessage());
                try (Pipeline pl = c.pipeline(PipelineOptions.window(8))) {
                    for (int i = 0; i < 8; i++) pl.queue(GroutApi.PING, p, 0, 8);
                    pl.flush();
                    int[] answers = {0};
                    while (answers[0] < 8) pl.poll((id, status, seg, off, len, latency) -> answers[0]++, 8, true);
                }
                // Every 100 ms: one may come before the connection's first read (syscalls 0); wait for one after the
                // calls.
                Awaits.awaitUntil(() -> named(events, "org.sysframe.ConnectionSyscalls").stream().anyMatch(e ->
                        e.getLong("syscalls") > 0),
                        Awaits.HANG_GUARD, () -> "a periodic event with the connection's syscalls");
                clientSyscalls = c.counters().snapshot().total();
                c.close();
                ServerFixtureWait.awaitNoConnection(s);
            }
            Awaits.awaitUntil(() -> named(events, "org.sysframe.ConnectionClosed").size() == 1
                    && named(events, "org.sysframe.ClientClosed").size() == 1
                    && named(events, "org.sysframe.ServerRequest").size() == 11, Awaits.HANG_GUARD, () ->
                            "the close events, in " + events);
        } finally {
            server.removeHandler(capture);
            server.setUseParentHandlers(parents);
        }
        int pid = Self.pid(), uid = Self.uid();
        List<Ev> trips = named(events, "org.sysframe.RoundTrip");
        // Every request of the client, whichever way it was made (connect's GR_HELLO is not one): two calls, eight
        // pipelined.
        assertEquals(List.of("TEST_ECHO", "TEST_BOOM", "GR_PING", "GR_PING", "GR_PING", "GR_PING", "GR_PING",
                "GR_PING", "GR_PING", "GR_PING"), trips.stream().map(e -> e.getString("typeName")).toList());
        assertEquals(List.of("call", "call", "pipeline", "pipeline", "pipeline", "pipeline", "pipeline", "pipeline",
                "pipeline", "pipeline"), trips.stream().map(e -> e.getString("call")).toList());
        Ev echo = trips.get(0);
        assertEquals(path, echo.getString("socket"));
        assertEquals(String.format("0x%08x", ECHO), echo.getString("type"));
        assertEquals("epoll", echo.getString("backend"));
        assertEquals("socket", echo.getString("transport"));
        assertEquals(Thread.currentThread().getName(), ((RecordedThread) echo.fields().get("caller")).getJavaName());
        assertEquals(24, echo.getLong("requestBytes"));
        assertEquals(24, echo.getLong("responseBytes"));
        assertEquals(0, echo.getInt("status"));
        assertEquals(Errno.EIO, trips.get(1).getInt("status"));
        List<Ev> batches = named(events, "org.sysframe.PipelineBatch");
        assertEquals(1, batches.size());
        assertEquals(8, batches.get(0).getInt("requests"));
        assertEquals(8 * (12 + 8), batches.get(0).getLong("bytes"),
                "8 requests of a 12-byte header and 8 bytes, copied into one send");
        assertEquals(1, batches.get(0).getLong("syscalls"), "one sendto for the batch");
        List<Ev> handled = named(events, "org.sysframe.ServerRequest");
        assertEquals(List.of("GR_HELLO", "TEST_ECHO", "TEST_BOOM", "GR_PING", "GR_PING", "GR_PING", "GR_PING",
                "GR_PING", "GR_PING", "GR_PING", "GR_PING"),
                handled.stream().map(e -> e.getString("typeName")).toList());
        assertEquals(List.of(0, 0, Errno.EIO, 0, 0, 0, 0, 0, 0, 0, 0),
                handled.stream().map(e -> e.getInt("status")).toList());
        assertEquals(24, handled.get(1).getLong("requestBytes"));
        assertEquals(pid, handled.get(1).getInt("peerPid"));
        assertEquals(uid, handled.get(1).getInt("peerUid"));
        Ev opened = named(events, "org.sysframe.ConnectionOpened").get(0);
        assertEquals(List.of(path, pid, uid, 0),
                List.of(opened.getString("socket"), opened.getInt("peerPid"), opened.getInt("peerUid"),
                opened.getInt("loop")));
        Ev closed = named(events, "org.sysframe.ConnectionClosed").get(0);
        // No assertion on the close events' socket: with this JDK (25.0.3) a RecordingStream read it
        // as N/A in these two events, though the same string arrived in the earlier ones (a string
        // pool entry the stream no longer resolves); the loop thread's name and the peer identify them.
        assertEquals(11, closed.getLong("requests"), "hello, echo, boom and 8 pings");
        assertEquals("peer closed", closed.getString("reason"));
        assertTrue(closed.getLong("syscalls") > 0 && closed.getString("syscallsByKind").contains("recvfrom="),
                closed.toString());
        Ev client = named(events, "org.sysframe.ClientClosed").get(0);
        assertEquals("epoll", client.getString("backend"));
        assertEquals(clientSyscalls, client.getLong("syscalls"), "the client's counts when it closed");
        Ev periodic = named(events, "org.sysframe.ConnectionSyscalls").stream().filter(e -> e.getLong("syscalls") > 0)
                .findFirst().orElseThrow();
        assertEquals(List.of(path, pid, uid), List.of(periodic.getString("socket"), periodic.getInt("peerPid"),
                periodic.getInt("peerUid")));
        assertTrue(periodic.getLong("syscalls") > 0, periodic.toString());

        // The failed handler: one WARNING line with the exception and its stack trace attached.
        List<LogRecord> failures = logs.stream().filter(r -> r.getMessage().contains("handler failed")).toList();
        assertEquals(1, failures.size(), logs.stream().map(LogRecord::getMessage).toList().toString());
        assertEquals(Level.WARNING, failures.get(0).getLevel());
        assertEquals("pid=" + pid + ": TEST_BOOM handler failed: java.lang.IllegalStateException: boom",
                failures.get(0).getMessage());
        assertInstanceOf(IllegalStateException.class, failures.get(0).getThrown());
        assertTrue(failures.get(0).getThrown().getStackTrace().length > 0);
    }

    /** Waits for the server to count no connection (the client's close reached it). */
    private static final class ServerFixtureWait {
        static void awaitNoConnection(GroutServer s) {
            Awaits.awaitEquals(0, s::connectionCount, Awaits.HANG_GUARD, "server.connectionCount()");
        }
    }
}
