package org.sysframe.transport.support;

import org.sysframe.unix.internal.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A real-time signal with a handler installed without SA_RESTART, so that a blocked recv or send
 * it interrupts fails with EINTR instead of being restarted by the kernel.
 *
 * <p>The handler is libc's {@code abs}: for a {@code void (int)} handler it does nothing, touches no
 * errno and is async-signal-safe. It is not an FFM upcall stub on purpose: HotSpot's upcall entry
 * requires the thread to be in native code ({@code guarantee(thread->thread_state() ==
 * _thread_in_native) failed: wrong thread state for upcall}, upcallLinker.cpp), and a signal that
 * lands while the thread runs Java code between two calls aborts the JVM.
 */
public final class RtSignal {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final MethodHandle SIGACTION = LINKER.downcallHandle(LIBC.find("sigaction").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle SIGRTMIN =
            LINKER.downcallHandle(LIBC.find("__libc_current_sigrtmin").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT));
    public static final MemorySegment NO_OP_HANDLER = LIBC.find("abs").orElseThrow();
    public static final MemorySegment SIG_IGN = MemorySegment.ofAddress(1);
    private static final long SYS_TGKILL = 234; // x86-64
    // glibc's struct sigaction on x86-64: handler, sigset_t (128 bytes), int flags, restorer.
    private static final long SIZE = 152, HANDLER = 0, FLAGS = 136;
    public static final int SA_RESTART = 0x10000000;

    /** SIGRTMIN + 4 as glibc counts it at run time (it keeps the first real-time signals for itself). */
    public static int number() {
        try {
            return (int) SIGRTMIN.invokeExact() + 4;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    public static void install(int sig, MemorySegment handler, int flags) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment act = a.allocate(SIZE, 8); // zeroed: an empty mask
            act.set(ADDRESS, HANDLER, handler);
            act.set(JAVA_INT, FLAGS, flags);
            int rc = (int) SIGACTION.invokeExact(sig, act, MemorySegment.NULL);
            if (rc != 0) throw new IllegalStateException("sigaction(" + sig + ") = " + rc);
        } catch (Throwable t) {
            throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
        }
    }

    /** The handler address and flags now installed for sig. */
    public static long[] current(int sig) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment act = a.allocate(SIZE, 8);
            int rc = (int) SIGACTION.invokeExact(sig, MemorySegment.NULL, act);
            if (rc != 0) throw new IllegalStateException("sigaction(" + sig + ") = " + rc);
            return new long[] {act.get(JAVA_LONG, HANDLER), act.get(JAVA_INT, FLAGS)};
        } catch (Throwable t) {
            throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
        }
    }

    static long tgkill(MemorySegment callState, int pid, int tid, int sig) {
        return LibC.syscall(callState, SYS_TGKILL, pid, tid, sig, 0, 0);
    }
}
