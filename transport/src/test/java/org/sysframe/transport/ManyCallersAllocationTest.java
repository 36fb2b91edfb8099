package org.sysframe.transport;

import com.sun.management.ThreadMXBean;
import org.sysframe.transport.support.TestServers;
import org.sysframe.transport.wire.GroutApi;

import org.sysframe.unix.SyscallKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CyclicBarrier;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The blocking call allocates nothing on the heap once warm, whether the caller is alone (it sends
 * and receives on its own thread: one sendto and one recvfrom per call, and no other thread of the
 * client exists) or shares the client with other callers (its request is copied into the send queue
 * while another holds the I/O role, it parks, and is handed its answer; or it holds the role and hands
 * the others theirs). Over rounds of 10,000 calls per caller, each caller's thread allocates nothing,
 * apart from the JDK linker's capture-state slice that C2 sometimes leaves in a downcall (see
 * HotPathAllocationTest): a round that still allocates passes only with whole 40-byte slices, at most
 * one per syscall of the client in that round.
 */
class ManyCallersAllocationTest {
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final long SLICE = 40;
    private static final int CALLS = 10_000;

    @TempDir Path dir;

    private static long syscalls(GroutClient c) {
        return c.counters().get(SyscallKind.SENDTO) + c.counters().get(SyscallKind.RECVFROM)
                + c.counters().get(SyscallKind.SENDMSG);
    }

    private static void assertWholeSlices(String who, long bytes, long syscalls) {
        if (bytes == 0) return;
        assertEquals(0, bytes % SLICE, who + ": " + bytes + " B is not whole capture-state slices");
        assertTrue(bytes / SLICE <= syscalls, who + ": " + bytes / SLICE + " slices for " + syscalls + " syscalls");
    }

    @Test
    void aWarmCallerAloneAllocatesNothing() throws Exception {
        String path = dir.resolve("alloc.sock").toString();
        try (GroutServer server = TestServers.startEpoll(ServerOptions.defaults().socketPath(path));
             GroutClient c = GroutClient.connect(ClientOptions.defaults().socketPath(path).backend(Backend.EPOLL));
             Arena a = Arena.ofConfined()) {
            MemorySegment req = a.allocate(32);
            long me = Thread.currentThread().threadId();
            long callerBytes = -1, calls = 0;
            for (int attempt = 0; attempt < 12 && callerBytes != 0; attempt++) {
                long s0 = syscalls(c);
                long cb = THREADS.getThreadAllocatedBytes(me);
                for (int i = 0; i < CALLS; i++) c.call(GroutApi.PING, req, 0, 32);
                callerBytes = THREADS.getThreadAllocatedBytes(me) - cb;
                calls = syscalls(c) - s0;
            }
            assertEquals(0, c.clientThreadId(), "no thread of the client's own without futures or a listener");
            assertEquals(2L * CALLS, calls, "one sendto and one recvfrom per call, all on the caller's thread");
            assertWholeSlices("the caller", callerBytes, calls);
        }
    }

    @Test
    void callersSharingTheClientAllocateNothing() throws Exception {
        ClientStats s = callersAllocateNothing("shared-alloc.sock", c -> c);
        assertTrue(s.batches() > 0, "callers found the role taken and queued: " + s);
    }

    @Test
    void callersWaitingUnderACapOverAPoolAllocateNothing() throws Exception {
        ClientStats s = callersAllocateNothing("capped-alloc.sock", c -> c.maxInFlight(1).connections(2));
        assertEquals(0, (s.calls() - 2) % (4L * CALLS), "two hellos, then whole rounds of the four callers' calls: "
                + s);
    }

    /**
     * Four platform callers on one client (options as given) until a round where none allocated: their bytes are whole
     * capture-state slices.
     */
    private ClientStats callersAllocateNothing(String socket, UnaryOperator<ClientOptions> options) throws Exception {
        int callers = 4;
        String path = dir.resolve(socket).toString();
        try (GroutServer server = TestServers.startEpoll(ServerOptions.defaults().socketPath(path));
             GroutClient c = GroutClient.connect(options.apply(ClientOptions.defaults().socketPath(path)
                     .backend(Backend.EPOLL)))) {
            long[] bytes = new long[callers];
            Throwable[] failed = new Throwable[callers];
            CyclicBarrier start = new CyclicBarrier(callers), end = new CyclicBarrier(callers);
            long[] sys = new long[2];
            boolean[] done = new boolean[1];
            Thread[] threads = new Thread[callers];
            for (int t = 0; t < callers; t++) {
                int me = t;
                threads[t] = Thread.ofPlatform().name("caller " + t).start(() -> {
                    try (Arena a = Arena.ofConfined()) {
                        MemorySegment req = a.allocate(32);
                        long id = Thread.currentThread().threadId();
                        for (int attempt = 0; attempt < 12; attempt++) {
                            start.await();
                            if (me == 0) sys[0] = syscalls(c);
                            start.await();
                            long b0 = THREADS.getThreadAllocatedBytes(id);
                            for (int i = 0; i < CALLS; i++) c.call(GroutApi.PING, req, 0, 32);
                            bytes[me] = THREADS.getThreadAllocatedBytes(id) - b0;
                            end.await();
                            if (me == 0) {
                                sys[1] = syscalls(c) - sys[0];
                                done[0] = Arrays.stream(bytes).allMatch(x -> x == 0);
                            }
                            end.await();
                            if (done[0]) return;
                        }
                    } catch (Throwable e) {
                        failed[me] = e;
                        start.reset();
                        end.reset();
                    }
                });
            }
            for (Thread t : threads) t.join(120_000);
            for (Throwable e : failed) if (e != null) throw new AssertionError(e);
            ClientStats s = c.stats();
            for (int t = 0; t < callers; t++) assertWholeSlices("caller " + t + " (" + s + ")", bytes[t], sys[1]);
            assertEquals(0, s.inFlight());
            assertEquals(0, c.clientThreadId());
            return s;
        }
    }
}
