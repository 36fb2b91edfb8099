package org.sysframe.bench.peer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.RoundRunner;
import org.sysframe.bench.measure.ServerSample;
import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.WaitMode;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallKind;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The depth table's Java lean pipelined loop on real sockets: against the embedded server, exactly one send per refill
 * and no receive that found nothing (it blocks), the kernel's count alike, every request answered, no latency recorded;
 * an answer whose id no request in flight has, or that does not echo, fails the run, and so does none within the
 * timeout.
 */
@NeedsKernelCounter
class JavaLeanPipelinePeerTest {
    static final int DEPTH = 64;
    static final int CALLS = 64 * 200;

    @Test
    void eachRefillIsOneSendAndEveryReceiveBringsAnswersTheKernelCountingAlike() throws Exception {
        Pairing p = Pairing.named("sysframe");
        try (BenchFixture f = new BenchFixture("java-lean-pipeline-test")) {
            String socket = f.socket("lean");
            GroutServer server = f.server(p.server(socket).waitMode(WaitMode.BLOCK));
            JavaLeanPipelinePeer peer = new JavaLeanPipelinePeer("lean", JavaLeanPeerTest.anyCpu(), DEPTH);
            PeerThread client = f.peer(peer, socket);
            Cell cell = new Cell("lean", 32, "", CALLS, 640, new ClientThreadsProbe(List.of(client),
                    ServerSample.Source.of(server)));
            for (Measurement m : RoundRunner.run("test", List.of(cell), 2)) {
                assertEquals(CALLS, m.calls());
                long sends = m.clientLibrary().get(SyscallKind.SENDTO);
                long recvs = m.clientLibrary().get(SyscallKind.RECVFROM);
                assertTrue(sends >= CALLS / DEPTH, "a send carries at most the window: " + m.clientLibrary());
                assertEquals(0, m.clientEmpty().get(SyscallKind.RECVFROM), "a blocking receive: " + m.clientEmpty());
                assertEquals(sends + recvs, m.clientLibrary().total(), m.clientLibrary().toString());
                assertEquals(m.clientLibrary(), m.clientKernel(), "kernel vs library");
                assertEquals(0, m.maxNanos(), "a lean run reads no clock per request: no latency");
            }
            // Every send but the hello's, warm-ups included, was a refill's one send (read once the peer's thread is
            // done with its runs).
            assertEquals(peer.refills() + 1, peer.libraryCounts().get(SyscallKind.SENDTO), "refills + hello vs sends");
        }
    }

    /** An answer for an id no request in flight has, or one whose last byte is not the request's: EBADMSG. */
    @ParameterizedTest
    @CsvSource({"ID_CHANGED, 'which no request in flight has'",
            "LAST_BYTE_CHANGED, '32 bytes of 32, or its last byte differs'"})
    void aWrongAnswerFailsTheRunSayingWhatWasWrong(JavaLeanPeerTest.Answer answer, String says) throws Exception {
        Throwable e = JavaLeanPeerTest.callAFakeServer(answer, cpu -> new JavaLeanPipelinePeer("lean", cpu, DEPTH));
        ErrnoException bad = assertInstanceOf(ErrnoException.class, e, "the run did not fail as it should");
        assertEquals(Errno.EBADMSG, bad.errno());
        assertTrue(bad.getMessage().contains(says), bad.getMessage());
    }

    @Test
    void noAnswerEndsWithEtimedoutAtTheTimeout() throws Exception {
        Throwable e = JavaLeanPeerTest.callAFakeServer(JavaLeanPeerTest.Answer.NONE,
                cpu -> new JavaLeanPipelinePeer("lean", cpu, DEPTH, 200));
        ErrnoException late = assertInstanceOf(ErrnoException.class, e, "the run did not fail as it should");
        assertEquals(Errno.ETIMEDOUT, late.errno());
        assertTrue(late.getMessage().contains("within 200 ms with 1 in flight"), late.getMessage());
    }
}
