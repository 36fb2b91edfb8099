package org.sysframe.transport;

import org.sysframe.transport.support.TestServers;
import org.sysframe.unix.ThreadSyscall;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The hot paths allocate nothing on the Java heap once compiled: the calling thread's allocated-bytes
 * counter (HotSpot's per-thread TLAB accounting) does not move over 10,000 calls (client), requests
 * (server loop) or 64,000 pipelined calls. The build runs this class in a JVM of its own (transport's
 * pom): in the JVM shared by the whole suite, call sites made polymorphic by other tests' classes now
 * and then left one compiled path allocating 40 B per call that this class never sees alone.
 */
class HotPathAllocationTest {
    @TempDir Path dir;

    @Test
    void sendRecvAllocatesNothingPerCallWithEveryClientFraming() throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        String path = dir.resolve("alloc.sock").toString();
        try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath(path)); Arena a = Arena.ofConfined()) {
            MemorySegment payload = a.allocate(1024);
            for (SendFraming send : new SendFraming[] {SendFraming.SPLIT, SendFraming.COPY, SendFraming.GATHER, SendFraming.COPY_GATHER}) {
                for (RecvFraming recv : new RecvFraming[] {RecvFraming.EXACT, RecvFraming.READAHEAD}) {
                    try (GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).send(send).recv(recv))) {
                        for (int len : new int[] {0, 32, 1024}) {
                            long bytes = Long.MAX_VALUE;
                            // Up to 40 attempts of 10,000 calls: the first ones run before the JIT is done (an
                            // interpreted FFM downcall allocates; the compiled one does not), and on a loaded
                            // machine C2 can take a while to get to it.
                            for (int attempt = 0; attempt < 40 && bytes != 0; attempt++) {
                                long before = threads.getCurrentThreadAllocatedBytes();
                                for (int i = 0; i < 10_000; i++) c.sendRecv(GroutApi.PING, payload, 0, len);
                                bytes = threads.getCurrentThreadAllocatedBytes() - before;
                            }
                            assertEquals(0, bytes, "heap bytes allocated by 10,000 calls, " + send + "/" + recv + ", " + len + " B");
                        }
                    }
                }
            }
        }
    }

    @Test
    void serverLoopAllocatesNothingPerRequestInEitherFlushMode() throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (FlushMode flush : FlushMode.values()) {
            String path = dir.resolve("srv-" + flush + ".sock").toString();
            try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath(path).flush(flush));
                 GroutClient c = GroutClient.connect(path);
                 Arena a = Arena.ofConfined()) {
                long loopId = Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.getName().equals("sysframe-server-0 " + path)).findFirst().orElseThrow().threadId();
                MemorySegment payload = a.allocate(1024);
                long bytes = Long.MAX_VALUE;
                for (int attempt = 0; attempt < 5 && bytes != 0; attempt++) {
                    ThreadSyscall.awaitParked(s.loopThreadId(), java.time.Duration.ofSeconds(10));
                    long before = threads.getThreadAllocatedBytes(loopId);
                    for (int i = 0; i < 20_000; i++) c.sendRecv(GroutApi.PING, payload, 0, (i & 1) == 0 ? 32 : 1024);
                    ThreadSyscall.awaitParked(s.loopThreadId(), java.time.Duration.ofSeconds(10));
                    bytes = threads.getThreadAllocatedBytes(loopId) - before;
                }
                assertEquals(0, bytes, "heap bytes allocated by the server loop over 20,000 requests, " + flush);
            }
        }
    }

    @Test
    void aPipelinedClientAllocatesNothingPerRequest() throws Exception {
        String path = dir.resolve("pipeline-alloc.sock").toString();
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (GroutServer s = TestServers.start(ServerOptions.defaults().socketPath(path));
             GroutClient c = GroutClient.connect(path); Arena a = Arena.ofConfined(); Pipeline p = c.pipeline(PipelineOptions.window(64))) {
            MemorySegment payload = a.allocate(32);
            long[] n = {0};
            Pipeline.Handler count = (id, status, pl, off, len, lat) -> n[0]++;
            long bytes = Long.MAX_VALUE;
            // Up to 20 attempts of 1,000 batches: the first ones run before the JIT has compiled the
            // pipeline's methods (an interpreted FFM downcall allocates; the compiled one does not).
            for (int attempt = 0; attempt < 20 && bytes != 0; attempt++) {
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int b = 0; b < 1000; b++) {
                    for (int i = 0; i < 64; i++) p.queue(GroutApi.PING, payload, 0, 32);
                    while (p.inFlight() > 0) p.poll(count, 64, true);
                }
                bytes = threads.getCurrentThreadAllocatedBytes() - before;
            }
            assertEquals(0, bytes, "heap bytes allocated over 64,000 pipelined calls");
        }
    }
}
