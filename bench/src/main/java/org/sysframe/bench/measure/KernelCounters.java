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

    /**
     * The counter of tid for kinds, futex calls among them as futex says (a library's are the shared ones,
     * {@link FutexCalls#SHARED}), opened on first use; null when counters cannot be opened here.
     */
    public static synchronized KernelSyscallCounter of(int tid, Set<SyscallKind> kinds, FutexCalls futex) {
        Key key = new Key(tid, Set.copyOf(kinds), futex);
        KernelSyscallCounter c = OPEN.get(key);
        if (c == null && unavailable == null) {
            try {
                c = KernelSyscallCounter.forThread(tid, kinds, futex);
                OPEN.put(key, c);
            } catch (KernelSyscallCounter.Unavailable e) {
                unavailable = e.getMessage();
            }
        }
        return c;
    }

    /** A counter owned by the caller (a process measured once): close it after use. */
    public static KernelSyscallCounter openOnce(int tid, Set<SyscallKind> kinds) {
        try {
            return KernelSyscallCounter.forThread(tid, kinds);
        } catch (KernelSyscallCounter.Unavailable e) {
            synchronized (KernelCounters.class) {
                unavailable = e.getMessage();
            }
            return null;
        }
    }

    /** Why kernel counts are missing, or null. */
    public static synchronized String unavailable() { return unavailable; }

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
