package org.sysframe.bench.peer;

import org.junit.jupiter.api.Test;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.RoundRunner;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.WaitMode;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.wire.RequestHeader;
import org.sysframe.transport.wire.ResponseHeader;
import org.sysframe.unix.CpuPlacement;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.UnixSocket;

import org.HdrHistogram.Histogram;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The wait table's Java lean loop on real sockets: against the embedded server, exactly one send per call and one
 * receive that brings its answer (the others found nothing), the kernel's count alike, no latency recorded; an answer
 * that does not echo fails its call, and so does none within the timeout.
 */
@NeedsKernelCounter
class JavaLeanPeerTest {
    static final int CALLS = 2_000;

    static int anyCpu() throws ErrnoException { return CpuPlacement.allowedCpus().nextSetBit(0); }

    @Test
    void eachCallIsOneSendAndOneReceiveThatBringsTheAnswerTheKernelCountingAlike() throws Exception {
        Pairing p = Pairing.named("sysframe");
        try (BenchFixture f = new BenchFixture("java-lean-test")) {
            String socket = f.socket("lean");
            GroutServer server = f.server(p.server(socket).waitMode(WaitMode.BLOCK));
            PeerThread client = f.peer(new JavaLeanPeer("lean", anyCpu()), socket);
            Cell cell = new Cell("lean", 32, "", CALLS, 100, new ClientThreadsProbe(List.of(client),
                    ServerSample.Source.of(server)));
            for (Measurement m : RoundRunner.run("test", List.of(cell), 2)) {
                assertEquals(CALLS, m.calls());
                assertEquals(CALLS, m.clientLibrary().get(SyscallKind.SENDTO), m.clientLibrary().toString());
                long recvs = m.clientLibrary().get(SyscallKind.RECVFROM);
                assertEquals(CALLS, recvs - m.clientEmpty().get(SyscallKind.RECVFROM), m.clientLibrary() + ", empty "
                        + m.clientEmpty());
                assertEquals(CALLS + recvs, m.clientLibrary().total());
                assertEquals(m.clientLibrary(), m.clientKernel(), "kernel vs library");
                assertEquals(0, m.maxNanos(), "a lean run reads no clock per call: no latency");
                // the server answered each request with one send
                assertEquals(CALLS, m.serverLibrary().get(SyscallKind.SENDTO), m.serverLibrary().toString());
            }
        }
    }

    @Test
    void anAnswerThatDoesNotEchoFailsItsCallNamingWhatCame() throws Exception {
        Throwable e = callAFakeServer(Answer.LAST_BYTE_CHANGED, cpu -> new JavaLeanPeer("lean", cpu));
        ErrnoException bad = assertInstanceOf(ErrnoException.class, e, "the call did not fail as it should");
        assertEquals(Errno.EBADMSG, bad.errno());
        assertTrue(bad.getMessage().contains("32 bytes of 32 (44 read), or its last byte differs"), bad.getMessage());
    }

    @Test
    void aCallNotAnsweredEndsWithEtimedoutAtItsTimeout() throws Exception {
        Throwable e = callAFakeServer(Answer.NONE, cpu -> new JavaLeanPeer("lean", cpu, 200));
        ErrnoException late = assertInstanceOf(ErrnoException.class, e, "the call did not fail as it should");
        assertEquals(Errno.ETIMEDOUT, late.errno());
        assertTrue(late.getMessage().contains("within 200 ms"), late.getMessage());
    }

    /** How {@link #callAFakeServer} answers the one ping. */
    enum Answer { LAST_BYTE_CHANGED, ID_CHANGED, NONE }

    /** A peer whose thread runs on the cpu given. */
    interface PeerOn {
        PingPeer on(int cpu);
    }

    /**
     * One ping of 32 bytes from a peer (made by peer) to a server that says hello, then answers it as answer says:
     * what the call threw (null: nothing).
     */
    static Throwable callAFakeServer(Answer answer, PeerOn peerOn) throws Exception {
        try (BenchFixture f = new BenchFixture("java-lean-fake")) {
            String path = f.socket("fake");
            UnixSocket listener = f.closing(UnixSocket.listen(path, 0600, 1, false));
            CompletableFuture<Void> server = CompletableFuture.runAsync(() -> {
                try (Arena a = Arena.ofConfined(); UnixSocket s = listener.accept(SyscallCounters.summing("fake"))) {
                    s.setNonBlocking(false);
                    MemorySegment b = a.allocate(256, 8);
                    s.recvFully(b, 0, RequestHeader.SIZE + GroutApi.HELLO_REQUEST_SIZE);
                    ResponseHeader.write(b, 0, RequestHeader.id(b, 0), 0, GroutApi.HELLO_RESPONSE_SIZE);
                    s.sendFully(b, 0, ResponseHeader.SIZE + GroutApi.HELLO_RESPONSE_SIZE);
                    s.recvFully(b, 0, RequestHeader.SIZE + 32);
                    if (answer != Answer.NONE) {
                        int id = RequestHeader.id(b, 0);
                        ResponseHeader.write(b, 0, answer == Answer.ID_CHANGED ? id + 1 : id, 0, 32);
                        if (answer == Answer.LAST_BYTE_CHANGED) {
                            b.set(JAVA_BYTE, ResponseHeader.SIZE + 31, (byte) ~b.get(JAVA_BYTE,
                                    ResponseHeader.SIZE + 31));
                        }
                        s.sendFully(b, 0, ResponseHeader.SIZE + 32);
                    }
                    s.recvFully(b, 0, 1); // until the client closes: EOF ends the read with an error
                } catch (ErrnoException e) {
                    // the client closed, as the test ends
                }
            });
            // On a thread of its own: the peer pins the thread it connects on (this one runs the next tests).
            BitSet allowed = CpuPlacement.allowedCpus();
            int cpu = anyCpu();
            CompletableFuture<Throwable> failed = new CompletableFuture<>();
            Thread client = new Thread(() -> {
                PingPeer peer = peerOn.on(cpu);
                try {
                    peer.open(path);
                    peer.prepare(32);
                    peer.pingMany(1, new Histogram(3));
                    failed.complete(null);
                } catch (Throwable e) {
                    failed.complete(e);
                } finally {
                    try {
                        peer.close();
                    } catch (Exception e) {
                        failed.complete(e);
                    }
                }
            }, "java-lean-fake-server");
            client.start();
            Throwable e = failed.get(30, TimeUnit.SECONDS);
            client.join(10_000);
            server.get(10, TimeUnit.SECONDS);
            assertEquals(allowed, CpuPlacement.allowedCpus(), "the test's own thread is left where it may run");
            return e;
        }
    }
}
