package org.sysframe.unix;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A thread started by a pinned thread inherits its pin (as a virtual-thread carrier the JDK starts from
 * such a thread does); {@link CpuPlacement#placeThread} gives it back the whole set from another
 * thread; a set outside the allowed one, or an ended thread, is refused.
 */
class CpuPlacementTest {
    @Test
    void aThreadStartedByAPinnedThreadInheritsThePinAndPlaceThreadUndoesIt() throws Exception {
        BitSet all = CpuPlacement.allowedCpus();
        assumeTrue(all.cardinality() >= 2, "needs two CPUs, this process may use " + CpuPlacement.describe(all));
        int first = all.nextSetBit(0);
        CompletableFuture<Integer> childTid = new CompletableFuture<>();
        CompletableFuture<BitSet> childSees = new CompletableFuture<>();
        CountDownLatch placed = new CountDownLatch(1);
        Thread parent = Thread.ofPlatform().start(() -> {
            try {
                CpuPlacement.pinCurrentThread(first);
                Thread child = Thread.ofPlatform().start(() -> {
                    try {
                        BitSet inherited = CpuPlacement.allowedCpus(); // before the test thread may place it
                        childTid.complete(Self.tid());
                        assertEquals(BitSet.valueOf(new long[] {1L << first}), inherited,
                                "inherited from the pinned parent");
                        assertEquals(true, placed.await(10, TimeUnit.SECONDS));
                        childSees.complete(CpuPlacement.allowedCpus());
                    } catch (Throwable t) {
                        childSees.completeExceptionally(t);
                    }
                });
                child.join();
            } catch (Throwable t) {
                childTid.completeExceptionally(t);
                childSees.completeExceptionally(t);
            }
        });
        CpuPlacement.placeThread(childTid.get(10, TimeUnit.SECONDS), all);
        placed.countDown();
        assertEquals(all, childSees.get(10, TimeUnit.SECONDS));
        parent.join();
    }

    @Test
    void aSetOutsideTheAllowedOneOrAnEndedThreadIsRefused() throws Exception {
        BitSet none = new BitSet();
        ErrnoException e = assertThrows(ErrnoException.class, () -> CpuPlacement.placeThread(Self.tid(), none));
        assertEquals(Errno.EINVAL, e.errno());
        BitSet beyond = new BitSet();
        beyond.set(1023);
        assumeTrue(!CpuPlacement.allowedCpus().get(1023));
        assertEquals(Errno.EINVAL, assertThrows(ErrnoException.class, () ->
                CpuPlacement.placeThread(Self.tid(), beyond)).errno());
        CompletableFuture<Integer> tid = new CompletableFuture<>();
        Thread t = Thread.ofPlatform().start(() -> tid.complete(Self.tid()));
        t.join();
        int ended = tid.get();
        // join() returns before the kernel thread is gone: wait until its task entry is.
        Path task = Path.of("/proc/self/task/" + ended);
        for (int i = 0; i < 6_000 && Files.exists(task); i++) Thread.sleep(5);
        ErrnoException gone = assertThrows(ErrnoException.class, () ->
                CpuPlacement.placeThread(ended, CpuPlacement.allowedCpus()));
        assertEquals(Errno.ESRCH, gone.errno());
    }
}
