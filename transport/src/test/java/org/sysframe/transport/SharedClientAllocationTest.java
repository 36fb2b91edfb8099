package org.sysframe.transport;

import org.sysframe.transport.support.TestServers;
import org.sysframe.transport.wire.GroutApi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared client's blocking call allocates nothing on the heap once warm: over rounds of 10,000
 * calls of one caller, which sends and receives on its own thread (no other thread of the client
 * exists: the standby receiver starts only with a future), the caller's thread allocates nothing,
 * apart from the JDK linker's capture-state slice that C2 sometimes leaves in a downcall (see
 * HotPathAllocationTest): a round that still allocates passes only with whole 40-byte slices, at
 * most one per syscall made.
 */
class SharedClientAllocationTest {
    private static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final long SLICE = 40;

    @TempDir Path dir;

    @Test
    void aWarmBlockingCallAllocatesNothingOnTheCallersThread() throws Exception {
        String path = dir.resolve("alloc.sock").toString();
        try (GroutServer server = TestServers.start(ServerOptions.defaults().socketPath(path));
             SharedGroutClient c = SharedGroutClient.connect(path);
             Arena a = Arena.ofConfined()) {
            MemorySegment req = a.allocate(32), out = a.allocate(32);
            long me = Thread.currentThread().threadId();
            long callerBytes = -1, calls = 0;
            for (int attempt = 0; attempt < 12 && callerBytes != 0; attempt++) {
                long s0 = c.sendCounters().get(org.sysframe.unix.SyscallKind.SENDTO);
                long r0 = c.receiveCounters().get(org.sysframe.unix.SyscallKind.RECVFROM);
                long cb = THREADS.getThreadAllocatedBytes(me);
                for (int i = 0; i < 10_000; i++) c.call(GroutApi.PING, req, 0, 32, out);
                callerBytes = THREADS.getThreadAllocatedBytes(me) - cb;
                calls = c.sendCounters().get(org.sysframe.unix.SyscallKind.SENDTO) - s0
                        + c.receiveCounters().get(org.sysframe.unix.SyscallKind.RECVFROM) - r0;
            }
            assertEquals(0, c.readerThreadId(), "no standby receiver without futures");
            assertEquals(20_000, calls, "one sendto and one recvfrom per call, all on the caller's thread");
            if (callerBytes != 0) {
                assertEquals(0, callerBytes % SLICE, callerBytes + " B is not whole capture-state slices");
                assertTrue(callerBytes / SLICE <= calls, callerBytes / SLICE + " slices for " + calls + " syscalls");
            }
        }
    }
}
