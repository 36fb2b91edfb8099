package org.sysframe.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sysframe.transport.support.BackendSuite;
import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.support.ServerFixture;
import org.sysframe.transport.support.TestServers;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The behaviour suite's own contract ({@link EachBackend}): in each invocation the servers and clients
 * that do not choose a backend run on the invocation's, whichever way a test makes them; one that
 * chooses still gets its own; io_uring's tests are skipped only with the reason it is unavailable.
 */
@EachBackend
class BackendSuiteTest {
    @RegisterExtension
    final ServerFixture fx = new ServerFixture();

    private final Backend backend;

    BackendSuiteTest(Backend backend) { this.backend = backend; }

    @Test
    void serversAndClientsThatChooseNoBackendRunOnTheInvocationsWhicheverWayTheyAreMade() throws Exception {
        assertEquals(backend, Backend.configuredDefault());
        GroutServer viaFixture = fx.start("fixture.sock", ServerOptions.defaults());
        GroutServer viaTestServers = fx.track(TestServers.start(ServerOptions.defaults().socketPath(fx.path("direct.sock"))));
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
        try (GroutClient c = GroutClient.connect(ServerFixture.clientOptions(epoll.socketPath()).backend(Backend.EPOLL));
             GroutClient other = GroutClient.connect(epoll.socketPath())) {
            assertEquals(Backend.EPOLL, c.backend());
            assertEquals(backend, other.backend());
        }
    }

    @Test
    void theSuiteRunsEpollThenIoUringAndSkipsIoUringOnlyWithItsReason() {
        assertEquals(List.of(Backend.EPOLL, Backend.IO_URING), BackendSuite.BACKENDS);
        assertNull(BackendSuite.skipReason(Backend.EPOLL, "kernel.io_uring_disabled is 2"));
        assertNull(BackendSuite.skipReason(Backend.IO_URING, null));
        assertEquals("io_uring unavailable: kernel.io_uring_disabled is 2", BackendSuite.skipReason(Backend.IO_URING, "kernel.io_uring_disabled is 2"));
    }
}
