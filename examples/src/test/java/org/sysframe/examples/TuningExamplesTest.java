package org.sysframe.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.transport.Backend;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.FlushMode;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.Pipeline;
import org.sysframe.transport.PipelineOptions;
import org.sysframe.transport.RecvFraming;
import org.sysframe.transport.SendFraming;
import org.sysframe.transport.ServerOptions;
import org.sysframe.transport.WaitMode;
import org.sysframe.unix.CpuPlacement;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.uring.UringSupport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The snippets of docs/tuning.md, run against real servers on sockets in a temp dir; each test says what it checks. */
class TuningExamplesTest {
    @TempDir
    Path dir;

    /** Waiting and placement: the options as shown, a server and a client made with them, one ping answered. */
    @Test
    void waitingAndPlacement() throws Exception {
        assumeTrue(CpuPlacement.allowedCpus().get(0) && CpuPlacement.allowedCpus().get(1),
                "the snippet pins to CPUs 0 and 1; this process may run on "
                + CpuPlacement.describe(CpuPlacement.allowedCpus()));
        String socketPath = dir.resolve("wait.sock").toString();

        ClientOptions lowLatencyClient = ClientOptions.defaults().socketPath(socketPath)
                .waitMode(WaitMode.parse("spin:50us"))    // spin up to 50 us for an answer, then sleep
                // pin the thread that connects to CPU 1 (other callers are not moved)
                .cpu(1);
        ServerOptions lowLatencyServer = ServerOptions.defaults().socketPath(socketPath)
                .waitMode(WaitMode.spinThenBlock(Duration.ofNanos(50_000)))  // the same for every event loop
                .cpus(0);                                 // loop i runs on the i-th CPU given, repeating

        assertEquals(lowLatencyClient.freeze().waitMode(), lowLatencyServer.freeze().waitMode(),
                "spin:50us parses to the same mode");
        try (GroutServer server = GroutServer.start(lowLatencyServer)) {
            // On a thread of its own: pinning is the connecting thread's, and this one is JUnit's.
            int cpu = CompletableFuture.supplyAsync(() -> {
                try (GroutClient client = GroutClient.connect(lowLatencyClient); Arena arena = Arena.ofConfined()) {
                    client.call(GroutApi.PING, arena.allocate(32));
                    return CpuPlacement.currentCpu();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, r -> new Thread(r, "pinned client").start()).get(30, TimeUnit.SECONDS);
            assertEquals(1, cpu, "the client's thread ran on CPU 1");
            assertEquals(1, server.loopCount());
        }
    }

    /**
     * Pipelining: 64 pings in one send, 64 answers, and the client's sendto count says so (GR_HELLO's, then the
     * batch's).
     */
    @Test
    void pipelining() throws Exception {
        String socketPath = dir.resolve("pipeline.sock").toString();
        try (GroutServer server = GroutServer.start(ServerOptions.defaults().socketPath(socketPath))) {
            String out = Printed.by(() -> {
                try (GroutClient client = GroutClient.connect(socketPath);
                     Arena arena = Arena.ofConfined();
                     Pipeline p = client.pipeline(PipelineOptions.window(64).requestTimeoutMillis(1000))) {
                    MemorySegment payload = arena.allocate(32);
                    int[] answered = {0};
                    // status 0, or an errno
                    Pipeline.AnswerHandler onAnswer = (id, status, seg, off, len, latencyNanos) -> answered[0]++;
                    for (int i = 0; i < 64; i++) p.queue(GroutApi.PING, payload, 0, 32);  // corked: nothing sent yet
                    p.flush();                                                            // one send for the 64
                    // what one recv brings, any order
                    while (p.inFlight() > 0) p.poll(onAnswer, 64, true);
                    System.out.println(answered[0] + " answers; " + client.counters().snapshot());
                }
            });
            assertTrue(out.startsWith("64 answers; sendto=2 recvfrom="), out);
        }
    }

    /** io_uring: an AUTO server, an IO_URING client, one ping in one io_uring_enter (plus GR_HELLO's). */
    @Test
    void ioUring() throws Exception {
        String unavailable = UringSupport.unavailableReason();
        assumeTrue(unavailable == null, "io_uring is not usable here: " + unavailable);
        String socketPath = dir.resolve("uring.sock").toString();
        String out = Printed.by(() -> {
            ServerOptions anyKernel = ServerOptions.defaults().socketPath(socketPath)
                    // io_uring where usable, else epoll and one WARNING naming why
                    .backend(Backend.AUTO);
            try (GroutServer server = GroutServer.start(anyKernel);
                 GroutClient client = GroutClient.connect(ClientOptions.defaults().socketPath(socketPath)
                         // fails at connect, in one line, where io_uring is unusable
                         .backend(Backend.IO_URING));
                 Arena arena = Arena.ofConfined()) {
                // the SEND and the RECV of its answer: one io_uring_enter
                client.call(GroutApi.PING, arena.allocate(32));
                System.out.println(client.counters().snapshot() + "; SQEs " + client.uringCounts().describe(1));
            }
        });
        assertEquals("io_uring_enter=2; SQEs 2 SEND + 2 RECV\n", out, "GR_HELLO and the ping, one enter each");
    }

    /** Framing: the seed patch's client against the merged change's server: one sendto and one recvfrom per ping. */
    @Test
    void framing() throws Exception {
        String socketPath = dir.resolve("framing.sock").toString();

        ClientOptions seedPatch = ClientOptions.defaults().socketPath(socketPath)
                // header and payload copied into 1024 bytes, one send; above: split
                .send(SendFraming.copy(1024))
                .recv(RecvFraming.readAhead(1024));       // read ahead 1024 bytes: one recv for a small answer
        ServerOptions mergedServer = ServerOptions.defaults().socketPath(socketPath)
                .send(SendFraming.GATHER)                 // one sendmsg with a two-entry iovec, no copy
                .flush(FlushMode.DEFERRED)                // the answers to one read leave in one writev
                .highWater(64 * 1024);                    // ... or earlier, once 64 KiB are queued

        assertEquals(FlushMode.DEFAULT_HIGH_WATER, mergedServer.freeze().highWater(),
                "64 KiB is the default high-water mark");
        try (GroutServer server = GroutServer.start(mergedServer);
             GroutClient client = GroutClient.connect(seedPatch);
             Arena arena = Arena.ofConfined()) {
            MemorySegment payload = arena.allocate(32);
            SyscallCounts before = client.counters().snapshot();
            for (int i = 0; i < 1000; i++) client.call(GroutApi.PING, payload);
            SyscallCounts used = client.counters().snapshot().minus(before);
            assertEquals(1000, used.get(SyscallKind.SENDTO), used.toString());
            assertEquals(1000, used.get(SyscallKind.RECVFROM), used.toString());
            assertEquals(2000, used.total(), used.toString());
        }
    }
}
