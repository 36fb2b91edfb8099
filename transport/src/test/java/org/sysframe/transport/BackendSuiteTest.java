package org.sysframe.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sysframe.transport.support.BackendSuite;
import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.RawRequest;
import org.sysframe.transport.support.RawServer;
import org.sysframe.transport.support.ServerFixture;
import org.sysframe.transport.support.TestClients;
import org.sysframe.transport.support.TestServers;
import org.sysframe.transport.wire.GroutApi;

import java.lang.foreign.MemorySegment;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The behaviour suite's own contract ({@link EachBackend}): in each invocation the servers and clients
 * that do not choose a backend run on the invocation's, whichever way a test makes them; one that
 * chooses still gets its own; io_uring's tests are skipped only with the reason it is unavailable. In
 * the {@code epoll+shm} invocation the suite's clients ({@link TestClients}, {@link ServerFixture}) are
 * over the shared-memory channel, to its servers and to a {@link RawServer}; elsewhere on the socket.
 */
@EachBackend(alsoOverSharedMemory = true)
class BackendSuiteTest {
    @RegisterExtension
    final ServerFixture fx = new ServerFixture();

    private final Backend backend;
    private String invocationName;

    /** Reads the name of the invocation each test runs in (what the reports show around the test's own). */
    @RegisterExtension
    final BeforeEachCallback names = context -> invocationName = context.getParent().orElseThrow().getDisplayName();

    BackendSuiteTest(Backend backend) { this.backend = backend; }

    @Test
    void eachInvocationIsNamedForItsBackendAndTransport() {
        assertEquals(BackendSuite.overSharedMemory() ? "epoll+shm" : backend.toString(), invocationName);
    }

    @Test
    void serversAndClientsThatChooseNoBackendRunOnTheInvocationsWhicheverWayTheyAreMade() throws Exception {
        assertEquals(backend, Backend.configuredDefault());
        GroutServer viaFixture = fx.start("fixture.sock", ServerOptions.defaults());
        GroutServer viaTestServers = fx.track(TestServers.start(ServerOptions.defaults()
                .socketPath(fx.path("direct.sock"))));
        assertEquals(backend, viaFixture.backend());
        assertEquals(backend, viaTestServers.backend());
        try (GroutClient byPath = GroutClient.connect(viaFixture.socketPath());
             GroutClient byOptions = GroutClient.connect(ServerFixture.clientOptions(viaTestServers.socketPath()))) {
            assertEquals(backend, byPath.backend());
            assertEquals(backend, byOptions.backend());
        }
    }

    @Test
    void aSideThatPinsItsBackendKeepsIt() throws Exception {
        GroutServer epoll = fx.startEpoll("pinned.sock", ServerOptions.defaults());
        assertEquals(Backend.EPOLL, epoll.backend());
        try (GroutClient c = GroutClient.connect(ServerFixture.clientOptions(epoll.socketPath())
                .backend(Backend.EPOLL));
             GroutClient other = GroutClient.connect(epoll.socketPath())) {
            assertEquals(Backend.EPOLL, c.backend());
            assertEquals(backend, other.backend());
        }
    }

    @Test
    void theSuitesClientsAreOverTheChannelExactlyInTheSharedMemoryInvocation() throws Exception {
        boolean shm = BackendSuite.overSharedMemory();
        if (shm) assertEquals(Backend.EPOLL, backend);
        GroutServer server = fx.start("shm.sock", ServerOptions.defaults());
        assertEquals(shm, server.config().sharedMemory());
        try (GroutClient viaFixture = TestClients.connect(ServerFixture.clientOptions(server.socketPath()));
             GroutClient byPath = TestClients.connect(server.socketPath());
             GroutClient own = GroutClient.connect(server.socketPath());
             GroutClient onSocket = TestClients.connect(TestClients.options(server.socketPath()).sharedMemory(false))) {
            assertEquals(shm, viaFixture.sharedMemory());
            assertEquals(shm, byPath.sharedMemory());
            assertFalse(own.sharedMemory(),
                    "options made without TestClients do not ask: the main code has no default transport");
            assertFalse(onSocket.sharedMemory(), "options that say otherwise win");
            assertEquals(0, byPath.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {1, 2})).status());
        }
        String raw = fx.path("raw.sock");
        try (RawServer rawServer = new RawServer(raw, c -> {
                 RawRequest r = c.expect(GroutApi.PING, new byte[] {3});
                 c.respond(r.id(), 0, r.payload());
                 c.awaitEof();
             });
             GroutClient c = TestClients.connect(raw)) {
            assertEquals(shm, c.sharedMemory());
            assertArrayEquals(new byte[] {3}, c.call(GroutApi.PING, MemorySegment.ofArray(new byte[] {3}))
                    .toByteArray());
            c.close();
            rawServer.awaitScript();
        }
    }

    @Test
    void theSuiteRunsEpollThenIoUringAndSkipsIoUringOnlyWithItsReason() {
        assertEquals(List.of(Backend.EPOLL, Backend.IO_URING), BackendSuite.BACKENDS);
        assertNull(BackendSuite.skipReason(Backend.EPOLL, "kernel.io_uring_disabled is 2"));
        assertNull(BackendSuite.skipReason(Backend.IO_URING, null));
        assertEquals("io_uring unavailable: kernel.io_uring_disabled is 2",
                BackendSuite.skipReason(Backend.IO_URING, "kernel.io_uring_disabled is 2"));
    }
}
