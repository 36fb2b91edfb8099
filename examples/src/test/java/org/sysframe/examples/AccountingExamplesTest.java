package org.sysframe.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.testsupport.NeedsKernelCounter;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.SyscallCounts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The snippet of docs/syscall-accounting.md: the library's and the kernel's counts of one thread, equal. */
class AccountingExamplesTest {
    @TempDir
    Path dir;

    @Test
    @NeedsKernelCounter
    void libraryAndKernelCountTheSameCalls() throws Exception {
        String socketPath = dir.resolve("counted.sock").toString();
        try (GroutServer server = GroutServer.start(ServerOptions.defaults().socketPath(socketPath))) {
            String out = Printed.by(() -> {
                try (GroutClient client = GroutClient.connect(socketPath);
                     KernelSyscallCounter kernel = KernelSyscallCounter.forCurrentThread();  // this thread, from now on
                     Arena arena = Arena.ofConfined()) {
                    MemorySegment payload = arena.allocate(32);
                    SyscallCounts libraryBefore = client.counters().snapshot(), kernelBefore = kernel.read();
                    for (int i = 0; i < 1000; i++) client.call(GroutApi.PING, payload);
                    SyscallCounts library = client.counters().snapshot().minus(libraryBefore);
                    SyscallCounts entered = kernel.read().minus(kernelBefore);
                    // sendto=1000 recvfrom=1000, both
                    System.out.println("library " + library + ", kernel " + entered);
                }
            });
            assertEquals("library sendto=1000 recvfrom=1000, kernel sendto=1000 recvfrom=1000\n", out);
        }
    }
}
