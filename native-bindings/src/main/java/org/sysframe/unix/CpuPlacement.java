package org.sysframe.unix;

import org.sysframe.unix.internal.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.BitSet;
import java.util.stream.Collectors;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Where threads run: pin the calling thread to one CPU ({@code sched_setaffinity}), read the CPUs
 * the process may use, and the CPU a thread is on now ({@code sched_getcpu}). On a shared 2-core
 * machine a round trip between threads on two cores costs several times one on a single core, so
 * every figure should say where its threads ran.
 */
public final class CpuPlacement {
    private CpuPlacement() {}

    private static final int MASK_BYTES = 128; // cpu_set_t: 1024 CPUs

    /** The CPUs the calling thread may run on now (its affinity mask). */
    public static BitSet allowedCpus() throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            MemorySegment mask = a.allocate(MASK_BYTES, 8);
            if (LibC.schedGetaffinity(cs, 0, MASK_BYTES, mask) != 0) throw new ErrnoException("sched_getaffinity",
                    Errno.read(cs));
            return BitSet.valueOf(mask.toArray(JAVA_LONG));
        }
    }

    /**
     * Pins the calling thread to cpu. A CPU outside the allowed set is refused with one line naming it
     * and the set, and changes nothing; so does a kernel refusal (cgroup, EINVAL), with its errno.
     */
    public static void pinCurrentThread(int cpu) throws ErrnoException {
        BitSet allowed = allowedCpus();
        if (cpu < 0 || cpu >= MASK_BYTES * 8 || !allowed.get(cpu)) {
            throw new ErrnoException("sched_setaffinity(CPU " + cpu + ")", Errno.EINVAL,
                    "CPU " + cpu + " is not in this process's allowed set " + describe(allowed));
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            MemorySegment mask = a.allocate(MASK_BYTES, 8);
            mask.set(JAVA_LONG, (cpu / 64) * 8L, 1L << (cpu % 64));
            if (LibC.schedSetaffinity(cs, 0, MASK_BYTES, mask) != 0) {
                throw new ErrnoException("sched_setaffinity(CPU " + cpu + ")", Errno.read(cs),
                        "the thread's placement is unchanged");
            }
        }
    }

    /**
     * Lets thread tid of this process run on cpus (every CPU of it must be in the calling thread's
     * allowed set). A thread inherits the placement of the thread that started it: a carrier of virtual
     * threads that the JDK started from a thread pinned to one CPU is pinned there too, and this undoes
     * that. A kernel refusal (ESRCH: tid ended; EINVAL; EPERM) throws with its errno and changes nothing.
     */
    public static void placeThread(int tid, BitSet cpus) throws ErrnoException {
        BitSet allowed = allowedCpus();
        BitSet outside = (BitSet) cpus.clone();
        outside.andNot(allowed);
        if (cpus.isEmpty() || !outside.isEmpty() || cpus.length() > MASK_BYTES * 8) {
            throw new ErrnoException("sched_setaffinity(" + tid + ", " + describe(cpus) + ")", Errno.EINVAL,
                    "not a non-empty subset of this thread's allowed set " + describe(allowed));
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            MemorySegment mask = a.allocate(MASK_BYTES, 8);
            long[] words = cpus.toLongArray();
            for (int i = 0; i < words.length; i++) mask.set(JAVA_LONG, i * 8L, words[i]);
            if (LibC.schedSetaffinity(cs, tid, MASK_BYTES, mask) != 0) {
                throw new ErrnoException("sched_setaffinity(" + tid + ", " + describe(cpus) + ")", Errno.read(cs),
                        "the thread's placement is unchanged");
            }
        }
    }

    /** The CPU the calling thread runs on at this instant. */
    public static int currentCpu() { return LibC.schedGetcpu(); }

    /** A CPU set as {@code {0, 1}}. */
    public static String describe(BitSet cpus) {
        return cpus.stream().mapToObj(String::valueOf).collect(Collectors.joining(", ", "{", "}"));
    }
}
