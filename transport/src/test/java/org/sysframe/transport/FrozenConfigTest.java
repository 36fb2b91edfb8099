package org.sysframe.transport;

import org.sysframe.transport.support.EachBackend;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.MessageSpecs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.unix.Errno;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.ThreadSyscall;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Options are frozen when a server starts or a client connects: changing the builder afterwards changes nothing. */
@EachBackend
class FrozenConfigTest {
    @TempDir Path dir;

    private static final int LATE = GroutApi.type(0x7a7a, 1);

    @Test
    void changingServerOptionsAfterStartChangesNothingInTheServer() throws Exception {
        String path = dir.resolve("frozen.sock").toString();
        // Epoll: the frozen send framing shows in its sendto count (io_uring copies every answer).
        ServerOptions o = ServerOptions.defaults().socketPath(path).backend(Backend.EPOLL).send(SendFraming.SPLIT)
                .flush(FlushMode.IMMEDIATE).apiVersion(11);
        try (GroutServer s = GroutServer.start(o)) {
            o.send(SendFraming.GATHER).flush(FlushMode.DEFERRED).apiVersion(12).maxIfaces(7)
                    .handle(LATE, 0, (req, reply) -> reply.ok());
            assertEquals(SendFraming.SPLIT, s.config().send());
            assertEquals(FlushMode.IMMEDIATE, s.config().flush());
            try (GroutClient c = GroutClient.connect(path); Arena a = Arena.ofConfined()) {
                assertEquals(1024, c.maxIfaces(), "max_ifaces as at start");
                ApiException e = assertThrows(ApiException.class, () -> c.call(LATE));
                assertEquals(Errno.ENOTSUP, e.status(), "a handler added after start is not served");
                // The loop counts a send when it returns, which may be after this thread has the answer:
                // read its counters only while it is parked in epoll_wait, before and after the ping.
                ThreadSyscall.awaitParked(s.loopThreadId(), Duration.ofSeconds(10));
                long before = s.counters().get(SyscallKind.SENDTO);
                c.call(GroutApi.PING, a.allocate(32));
                ThreadSyscall.awaitParked(s.loopThreadId(), Duration.ofSeconds(10));
                assertEquals(2, s.counters().get(SyscallKind.SENDTO) - before,
                        "still split (header, payload), not gathered");
                assertEquals(0, s.counters().get(SyscallKind.WRITEV), "still immediate, never a deferred writev");
            }
        }
    }

    @Test
    void changingClientOptionsAfterConnectChangesNothingInTheClient() throws Exception {
        String path = dir.resolve("client.sock").toString();
        try (GroutServer s = GroutServer.start(ServerOptions.defaults().socketPath(path))) {
            ClientOptions o = ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL).send(SendFraming.SPLIT)
                    .recv(RecvFraming.EXACT);
            try (GroutClient c = GroutClient.connect(o); Arena a = Arena.ofConfined()) {
                o.send(SendFraming.GATHER).recv(RecvFraming.READAHEAD)
                        .specs(MessageSpecs.grout().put(GroutApi.PING, 0, 64, false));
                assertEquals(SendFraming.SPLIT, c.config().send());
                assertEquals(RecvFraming.EXACT, c.config().recv());
                MemorySegment p = a.allocate(32);
                // A signal at a blocked recv (SO_RCVTIMEO is set) is an EINTR and a retry, one more recvfrom: it can
                // only add. The framing's own cost is the least of a few calls' (GATHER and READAHEAD: 1 each).
                long leastSends = Long.MAX_VALUE, leastRecvs = Long.MAX_VALUE;
                for (int i = 0; i < 5; i++) {
                    long sends = c.counters().get(SyscallKind.SENDTO);
                    long recvs = c.counters().get(SyscallKind.RECVFROM);
                    assertEquals(32, c.call(GroutApi.PING, p).length(),
                            "a 32-byte echo is not held to the minimum of 64 set after connect");
                    leastSends = Math.min(leastSends, c.counters().get(SyscallKind.SENDTO) - sends);
                    leastRecvs = Math.min(leastRecvs, c.counters().get(SyscallKind.RECVFROM) - recvs);
                }
                assertEquals(2, leastSends, "still split");
                assertEquals(2, leastRecvs, "still exact");
                c.config().specs().put(GroutApi.PING, 0, 64, false);
                assertEquals(32, c.call(GroutApi.PING, p).length(), "the config's sizes are a copy");
            }
        }
    }
}
