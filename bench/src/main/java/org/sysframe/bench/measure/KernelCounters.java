package org.sysframe.bench.measure;

import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.KernelSyscallCounter.FutexCalls;
import org.sysframe.unix.SyscallKind;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Kernel counters kept open for the threads a benchmark measures again and again. Opening one costs
 * little, but closing a perf event waits for the kernel to retire it (milliseconds): a counter per
 * thread for the whole run, not one per measurement. Counters are cumulative, so reuse needs no reset.
 */
public final class KernelCounters {
    private KernelCounters() {}

    private record Key(int tid, Set<SyscallKind> kinds, FutexCalls futex) {}

    private static final Map<Key, KernelSyscallCounter> OPEN = new HashMap<>();
    private static String unavailable;
    private static String off; // why counters are left off for now (a command's choice), or null

    /**
     * The counter of tid for kinds, futex calls among them as futex says (a library's are the shared ones,
     * {@link FutexCalls#SHARED}), opened on first use; null when counters cannot be opened here ({@link #unavailable()}
     * says why), or when tid ended before its counter opened (it makes no calls; counters stay available).
     */
    public static synchronized KernelSyscallCounter of(int tid, Set<SyscallKind> kinds, FutexCalls futex) {
        if (off != null) return null;
        Key key = new Key(tid, Set.copyOf(kinds), futex);
        KernelSyscallCounter c = OPEN.get(key);
        if (c == null && unavailable == null) {
            try {
                c = KernelSyscallCounter.forThread(tid, kinds, futex);
                OPEN.put(key, c);
            } catch (KernelSyscallCounter.Unavailable e) {
                failed(e);
            }
        }
        return c;
    }

    /** A counter owned by the caller (a process measured once): close it after use. */
    public static KernelSyscallCounter openOnce(int tid, Set<SyscallKind> kinds) {
        synchronized (KernelCounters.class) {
            if (off != null) return null;
        }
        try {
            return KernelSyscallCounter.forThread(tid, kinds);
        } catch (KernelSyscallCounter.Unavailable e) {
            failed(e);
            return null;
        }
    }

    /**
     * A counter did not open: counters are unavailable from now on, unless only its thread had ended (it makes no
     * calls: no counter for it, the counters stay).
     */
    private static synchronized void failed(KernelSyscallCounter.Unavailable e) {
        if (!e.threadGone()) unavailable = e.getMessage();
    }

    /** Why kernel counts are missing, or null. */
    public static synchronized String unavailable() { return off != null ? off : unavailable; }

    /**
     * No counter is opened until the returned scope closes, and {@link #unavailable()} says why: a run timed without
     * their cost, a tracepoint handler on every syscall a counted thread makes (2-5 % of the calls a second of a client
     * spinning on a socket, some five syscalls a call, on this project's AMD guest). Counters already open are
     * closed.
     */
    public static synchronized Off off(String why) {
        closeAll();
        off = why;
        return new Off();
    }

    /** The scope of {@link #off}: counters open again once it closes. */
    public static final class Off implements AutoCloseable {
        private Off() {}

        @Override
        public void close() {
            synchronized (KernelCounters.class) {
                off = null;
            }
        }
    }

    /** Closes the kept counters of a thread that is gone (a server or client made for one run). */
    static synchronized void forget(int tid) {
        OPEN.entrySet().removeIf(e -> {
            if (e.getKey().tid() != tid) return false;
            e.getValue().close();
            return true;
        });
    }

    /** Closes every kept counter (end of a command). */
    public static synchronized void closeAll() {
        OPEN.values().forEach(KernelSyscallCounter::close);
        OPEN.clear();
    }
}
