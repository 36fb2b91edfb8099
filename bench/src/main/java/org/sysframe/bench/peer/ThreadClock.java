package org.sysframe.bench.peer;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The on-CPU time of a thread of this process, exact to the call: {@code clock_gettime} on its
 * thread CPU clock, which brings a thread running on another CPU up to date first. {@code
 * /proc/TID/schedstat} does not: for a thread that never leaves its CPU (a loop spinning for a channel) it
 * only advances at scheduler ticks, so a run shorter than a few ticks reads 0 there.
 */
final class ThreadClock {
    private ThreadClock() {}

    private static final MethodHandle CLOCK_GETTIME = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("clock_gettime").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));

    /**
     * Linux's clock id of thread tid's CPU time: CPUCLOCK_SCHED (2) | CPUCLOCK_PERTHREAD_MASK (4), tid complemented
     * above.
     */
    static int clockOf(int tid) { return (~tid << 3) | 6; }

    /** Thread tid's on-CPU nanoseconds so far; IllegalStateException when it is gone. */
    static long cpuNanos(int tid) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ts = a.allocate(16, 8);
            int rc = (int) CLOCK_GETTIME.invokeExact(clockOf(tid), ts);
            if (rc != 0) throw new IllegalStateException("clock_gettime(CPU clock of thread " + tid
                    + ") failed: the thread is gone");
            return ts.get(JAVA_LONG, 0) * 1_000_000_000L + ts.get(JAVA_LONG, 8);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
