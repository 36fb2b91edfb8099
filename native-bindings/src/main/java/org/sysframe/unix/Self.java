package org.sysframe.unix;

import org.sysframe.unix.internal.LibC;

/** The calling thread and process as the kernel knows them: thread id, process id, real uid. */
public final class Self {
    private Self() {}

    /** The calling thread's kernel thread id (for {@link KernelSyscallCounter#forThread(int)}). */
    public static int tid() { return LibC.gettid(); }

    /** The process id. */
    public static int pid() { return LibC.getpid(); }

    /** Gives the CPU to another runnable thread (sched_yield), counted as one sched_yield in counters. */
    public static void yield(SyscallCounters counters) {
        LibC.schedYield();
        counters.increment(SyscallKind.SCHED_YIELD);
    }

    /** The real user id of the process. */
    public static int uid() { return LibC.getuid(); }
}
