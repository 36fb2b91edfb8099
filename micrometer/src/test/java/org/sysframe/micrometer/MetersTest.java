package org.sysframe.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.testsupport.Awaits;
import org.sysframe.transport.Backend;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.transport.wire.ResponseHeader;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.ThreadSyscall;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The binders against a real server and client on a socket of a temporary directory, read through a
 * {@link SimpleMeterRegistry}: exact counts where the transport's are exact (blocking calls one at a
 * time: one sendto and one recvfrom per call on epoll, one io_uring_enter on io_uring), the tags, the
 * gauges following connections and channels, and unbinding.
 */
class MetersTest {
    static final int CALLS = 100;
    static final int PAYLOAD = 32;
    static final Duration GUARD = Awaits.HANG_GUARD;

    @TempDir Path dir;

    final MeterRegistry registry = new SimpleMeterRegistry();

    @AfterEach
    void closeRegistry() { registry.close(); }

    @Test
    void blockingCallsOnEpollAreCountedExactly() throws Exception {
        String path = dir.resolve("epoll.sock").toString();
        try (GroutServer server = GroutServer.start(ServerOptions.defaults().socketPath(path).backend(Backend.EPOLL));
             GroutClient client = GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL));
             GroutClientMetrics clientMetrics = new GroutClientMetrics(client);
             GroutServerMetrics serverMetrics = new GroutServerMetrics(server);
             Arena arena = Arena.ofConfined()) {
            clientMetrics.bindTo(registry);
            serverMetrics.bindTo(registry);
            assertEquals(Tags.of("socket", path, "backend", "epoll", "transport", "socket"), clientMetrics.tags());
            assertEquals(Tags.of("socket", path, "backend", "epoll"), serverMetrics.tags());

            // Connect's GR_HELLO: one request, one sendto and one recvfrom.
            assertEquals(1, counter("sysframe.client.calls"));
            assertEquals(Map.of("sendto", 1L, "recvfrom", 1L), syscalls("sysframe.client.syscalls"));
            assertEquals(1, gauge("sysframe.server.connections"));
            assertEquals(0, gauge("sysframe.server.channels"));

            // GR_HELLO's request: a header and the hello payload; its answer at least a header.
            double bytes0Sent = counter("sysframe.client.bytes.sent"), bytes0Received =
                    counter("sysframe.client.bytes.received");
            assertEquals(RequestHeader.SIZE + GroutApi.HELLO_REQUEST_SIZE, bytes0Sent);
            assertTrue(bytes0Received >= ResponseHeader.SIZE, "GR_HELLO's answer: " + bytes0Received);
            ThreadSyscall.awaitParked(server.loopThreadId(), GUARD);
            Map<String, Long> server0 = syscalls("sysframe.server.syscalls");
            MemorySegment payload = arena.allocate(PAYLOAD);
            for (int i = 0; i < CALLS; i++) assertEquals(PAYLOAD, client.call(GroutApi.PING, payload).length());
            ThreadSyscall.awaitParked(server.loopThreadId(), GUARD);

            assertEquals(1 + CALLS, counter("sysframe.client.calls"));
            assertEquals(Map.of("sendto", 1L + CALLS, "recvfrom", 1L + CALLS), syscalls("sysframe.client.syscalls"));
            assertEquals(0, gauge("sysframe.client.in.flight"));
            // Each ping: a request header and an answer header, each with the payload.
            assertEquals(bytes0Sent + CALLS * (RequestHeader.SIZE + PAYLOAD), counter("sysframe.client.bytes.sent"));
            assertEquals(bytes0Received + CALLS * (ResponseHeader.SIZE + PAYLOAD),
                    counter("sysframe.client.bytes.received"));
            for (String none : List.of("answers.late", "answers.unmatched", "batches", "events.received",
                    "events.dropped", "errors", "timeouts")) {
                assertEquals(0, counter("sysframe.client." + none), none);
            }
            assertEquals(0, gauge("sysframe.client.events.pending"));
            // The server: one epoll_wait (the request is there), one recvfrom, one sendto per call.
            assertEquals(Map.of("epoll_wait", (long) CALLS, "recvfrom", (long) CALLS, "sendto", (long) CALLS),
                    minus(syscalls("sysframe.server.syscalls"), server0));
            // Its requests and bytes are the client's, seen from the other side.
            assertEquals(1 + CALLS, counter("sysframe.server.requests"));
            assertEquals(0, counter("sysframe.server.errors"));
            assertEquals(counter("sysframe.client.bytes.sent"), counter("sysframe.server.bytes.received"));
            assertEquals(counter("sysframe.client.bytes.received"), counter("sysframe.server.bytes.sent"));
        }
    }

    @Test
    void blockingCallsOnIoUringEnterOncePerCall() throws Exception {
        String path = dir.resolve("uring.sock").toString();
        try (GroutServer server = GroutServer.start(ServerOptions.defaults().socketPath(path)
                .backend(Backend.IO_URING));
             GroutClient client = GroutClient.connect(ClientOptions.defaults().socketPath(path)
                     .backend(Backend.IO_URING));
             GroutClientMetrics clientMetrics = new GroutClientMetrics(client);
             GroutServerMetrics serverMetrics = new GroutServerMetrics(server)) {
            clientMetrics.bindTo(registry);
            serverMetrics.bindTo(registry);
            assertEquals("io_uring", clientMetrics.tags().stream().filter(t -> t.getKey().equals("backend")).findFirst()
                    .orElseThrow().getValue());
            Map<String, Long> before = syscalls("sysframe.client.syscalls");
            for (int i = 0; i < CALLS; i++) client.call(GroutApi.PING);
            assertEquals(Map.of("io_uring_enter", (long) CALLS), minus(syscalls("sysframe.client.syscalls"), before));
            assertEquals(1 + CALLS, counter("sysframe.client.calls"));
            assertEquals(1, gauge("sysframe.server.connections"));
            assertTrue(syscalls("sysframe.server.syscalls").getOrDefault("io_uring_enter", 0L) > 0,
                    "the server's loop enters its ring: " + syscalls("sysframe.server.syscalls"));
        }
    }

    @Test
    void anAnswerAfterItsCallTimedOutIsCountedLate() throws Exception {
        String path = dir.resolve("late.sock").toString();
        int slow = 0x7e570001;
        CountDownLatch release = new CountDownLatch(1);
        ServerOptions options = ServerOptions.defaults().socketPath(path).backend(Backend.EPOLL)
                .handle(slow, 0, (request, reply) -> {
                    release.await(GUARD.toSeconds(), TimeUnit.SECONDS); // blocks the loop: a test of a late answer only
                    reply.ok();
                });
        try (GroutServer server = GroutServer.start(options);
             GroutClient client = GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL)
                     .receiveTimeoutMillis(100));
             GroutClientMetrics metrics = new GroutClientMetrics(client);
             GroutServerMetrics serverMetrics = new GroutServerMetrics(server)) {
            metrics.bindTo(registry);
            serverMetrics.bindTo(registry);
            ErrnoException timedOut = assertThrows(ErrnoException.class, () -> client.call(slow));
            assertEquals(Errno.ETIMEDOUT, timedOut.errno());
            assertEquals(0, counter("sysframe.client.answers.late"));
            assertEquals(1, counter("sysframe.client.errors"));
            assertEquals(1, counter("sysframe.client.timeouts"));
            release.countDown();
            client.call(GroutApi.PING); // receives the slow request's answer first, and drops it
            assertEquals(1, counter("sysframe.client.answers.late"));
            assertEquals(3, counter("sysframe.client.calls"));
            assertEquals(1, counter("sysframe.client.errors"), "the ping after it was answered");
            ErrnoException unknown = assertThrows(ErrnoException.class, () -> client.call(0x7e570002));
            assertEquals(Errno.ENOTSUP, unknown.errno());
            assertEquals(1, counter("sysframe.server.errors"), "the server answered ENOTSUP: an error answer");
            assertEquals(1, counter("sysframe.client.errors"), "an error answer is an answer: not a failed call");
            assertEquals(4, counter("sysframe.server.requests"));
            assertEquals(0, gauge("sysframe.client.in.flight"));
        }
    }

    @Test
    void aSharedMemoryClientIsTaggedAndItsChannelCounted() throws Exception {
        String path = dir.resolve("shm.sock").toString();
        try (GroutServer server = GroutServer.start(ServerOptions.defaults().socketPath(path).backend(Backend.EPOLL)
                .sharedMemory(true));
             GroutServerMetrics serverMetrics = new GroutServerMetrics(server)) {
            serverMetrics.bindTo(registry);
            assertEquals(0, gauge("sysframe.server.channels"));
            try (GroutClient client = GroutClient.connect(ClientOptions.defaults().socketPath(path)
                    .backend(Backend.EPOLL).sharedMemory(true));
                 GroutClientMetrics clientMetrics = new GroutClientMetrics(client, Tags.of("app", "test"))) {
                clientMetrics.bindTo(registry);
                assertEquals(Tags.of("socket", path, "backend", "epoll", "transport", "shared-memory", "app", "test"),
                        clientMetrics.tags());
                double calls0 = counter("sysframe.client.calls");
                for (int i = 0; i < CALLS; i++) client.call(GroutApi.PING);
                assertEquals(calls0 + CALLS, counter("sysframe.client.calls"));
                assertEquals(1, gauge("sysframe.server.channels"));
                assertEquals(1, gauge("sysframe.server.connections"));
            }
            Awaits.awaitEquals(0, () -> (long) gauge("sysframe.server.channels"), GUARD, "channels, closed");
            Awaits.awaitEquals(0, () -> (long) gauge("sysframe.server.connections"), GUARD, "connections, closed");
        }
    }

    @Test
    void closingABinderRemovesItsMetersFromEveryRegistry() throws Exception {
        String path = dir.resolve("unbind.sock").toString();
        MeterRegistry other = new SimpleMeterRegistry();
        try (GroutServer server = GroutServer.start(ServerOptions.defaults().socketPath(path));
             GroutClient client = GroutClient.connect(path)) {
            GroutClientMetrics clientMetrics = new GroutClientMetrics(client);
            GroutServerMetrics serverMetrics = new GroutServerMetrics(server);
            clientMetrics.bindTo(registry);
            clientMetrics.bindTo(other);
            serverMetrics.bindTo(registry);
            int clientMeters = 12 + Syscalls.KINDS.size(), serverMeters = 6 + Syscalls.KINDS.size();
            assertEquals(clientMeters + serverMeters, registry.getMeters().size());
            assertEquals(clientMeters, other.getMeters().size());
            assertTrue(registry.getMeters().stream().allMatch(m -> m.getId().getName().startsWith("sysframe.")));

            clientMetrics.close();
            assertEquals(serverMeters, registry.getMeters().size());
            assertEquals(0, other.getMeters().size());
            clientMetrics.close(); // idempotent

            serverMetrics.close();
            assertEquals(0, registry.getMeters().size());
            serverMetrics.bindTo(registry); // bound again after
            assertEquals(1, gauge("sysframe.server.connections"));
            serverMetrics.close();
            assertEquals(0, registry.getMeters().size());
        } finally {
            other.close();
        }
    }

    /** The one function counter of name in the registry. */
    private double counter(String name) {
        return registry.get(name).functionCounter().count();
    }

    private double gauge(String name) {
        return registry.get(name).gauge().value();
    }

    /** The non-zero counters of name by their kind tag, e.g. {sendto=101, recvfrom=101}. */
    private Map<String, Long> syscalls(String name) {
        Map<String, Long> out = new TreeMap<>();
        for (FunctionCounter c : registry.get(name).functionCounters()) {
            long n = (long) c.count();
            if (n != 0) out.put(c.getId().getTag("kind"), n);
        }
        return out;
    }

    /** after - before, kind by kind, the zeros left out. */
    private static Map<String, Long> minus(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> out = new TreeMap<>();
        after.forEach((k, v) -> {
            long d = v - before.getOrDefault(k, 0L);
            if (d != 0) out.put(k, d);
        });
        return out;
    }
}
