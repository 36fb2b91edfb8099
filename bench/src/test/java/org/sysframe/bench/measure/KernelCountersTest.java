package org.sysframe.bench.measure;

import org.junit.jupiter.api.Test;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.KernelSyscallCounter.FutexCalls;
import org.sysframe.unix.Self;
import org.sysframe.unix.SyscallKind;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The JVM-wide counters of the bench's probes: a thread that ended between a probe's listing of the threads and the
 * opening of its counter (ESRCH) is one thread gone, not counters gone for every later run of this JVM.
 */
class KernelCountersTest {
    @Test
    void aThreadThatEndedBeforeItsCounterOpenedGetsNoneAndTheCountersStayAvailable() throws Exception {
        assumeTrue(KernelSyscallCounter.unavailableReason() == null, () -> "kernel counters: "
                + KernelSyscallCounter.unavailableReason());
        int[] tid = new int[1];
        Thread t = Thread.ofPlatform().start(() -> tid[0] = Self.tid());
        t.join();
        Path task = Path.of("/proc/self/task/" + tid[0]);
        for (int i = 0; i < 400 && Files.exists(task); i++) Thread.sleep(5); // until the kernel let it go
        assertFalse(Files.exists(task), "thread " + tid[0] + " still listed");

        KernelSyscallCounter.Unavailable gone = assertThrows(KernelSyscallCounter.Unavailable.class,
                () -> KernelSyscallCounter.forThread(tid[0], SyscallKind.LIBRARY));
        assertTrue(gone.threadGone() && gone.getMessage().contains("ESRCH"), gone.getMessage());

        try {
            assertNull(KernelCounters.of(tid[0], SyscallKind.LIBRARY, FutexCalls.ALL), "none for an ended thread");
            assertNull(KernelCounters.unavailable(), "the counters stay available");
            assertNotNull(KernelCounters.of(Self.tid(), SyscallKind.LIBRARY, FutexCalls.ALL), "a live thread's opens");
        } finally {
            KernelCounters.closeAll();
        }
    }
}
