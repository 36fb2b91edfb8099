package org.sysframe.unix;

import org.sysframe.unix.internal.LibC;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The kernel's own count of syscalls entered by one thread: one {@code perf_event_open} counter per
 * {@link SyscallKind} on the tracepoint {@code syscalls:sys_enter_<name>}, bound to that thread only
 * (no inherit, any CPU).
 *
 * <p>The counters form one perf group, read with one {@code read(2)} ({@code PERF_FORMAT_GROUP}); when
 * the thread reads its own counters, those reads are taken out of the {@code read} count, so only the
 * measured work is in it.
 *
 * <p>Needs tracefs (for the tracepoint ids), a kernel with syscall tracepoints, and the right to trace
 * the thread (root, CAP_PERFMON, or a low {@code perf_event_paranoid}). {@link #unavailableReason()}
 * says what is missing instead of failing; {@link SyscallCounters} work either way.
 */
public final class KernelSyscallCounter implements AutoCloseable {
    private static final long SYS_PERF_EVENT_OPEN = 298; // x86-64
    private static final int PERF_TYPE_TRACEPOINT = 2;
    private static final int PERF_ATTR_SIZE_VER0 = 64; // the kernel accepts the first published size
    private static final long PERF_FLAG_FD_CLOEXEC = 8;
    private static final long PERF_FORMAT_GROUP = 8;
    private static final long PERF_EVENT_IOC_SET_FILTER = 0x40082406L; // _IOW('$', 6, char *)
    // FUTEX_WAIT (0) and FUTEX_WAKE (1) without FUTEX_PRIVATE_FLAG (128) or any other flag: Futex's calls.
    private static final String SHARED_FUTEX_FILTER = "op == 0 || op == 1";
    private static final Path[] TRACEFS = {
        Path.of("/sys/kernel/tracing"), Path.of("/sys/kernel/debug/tracing"),
    };

    private final int tid;
    private final int[] fds = new int[SyscallKind.count()];
    private final Arena arena = Arena.ofShared();
    private final MemorySegment callState = Errno.newCallState(arena);
    private final MemorySegment values = arena.allocate(JAVA_LONG, 1 + SyscallKind.count());
    private long ownReads;
    // Kinds in the order they joined the group: the order of the values one group read returns.
    private final SyscallKind[] order = new SyscallKind[SyscallKind.count()];
    private int members;

    private KernelSyscallCounter(int tid) {
        this.tid = tid;
        Arrays.fill(fds, -1);
    }

    /** Counts the calling thread's syscalls of the library's kinds from now on. */
    public static KernelSyscallCounter forCurrentThread() throws Unavailable {
        return forThread(LibC.gettid(), SyscallKind.LIBRARY);
    }

    /** Counts syscalls of the library's kinds made by thread tid (a kernel thread id, see {@link LibC#gettid()}). */
    public static KernelSyscallCounter forThread(int tid) throws Unavailable {
        return forThread(tid, SyscallKind.LIBRARY);
    }

    /**
     * Counts the given kinds of syscalls made by thread tid from now on; other kinds read as 0. Include
     * {@link SyscallKind#READ} and {@link SyscallKind#WRITE} to measure transports that use those, not
     * for a JVM thread compared with the library: class loading on that thread reads files too. Futex
     * calls, if counted, are all of them ({@link FutexCalls#ALL}).
     */
    public static KernelSyscallCounter forThread(int tid, Set<SyscallKind> kinds) throws Unavailable {
        return forThread(tid, kinds, FutexCalls.ALL);
    }

    /**
     * Counts the given kinds of syscalls made by thread tid from now on, {@link SyscallKind#FUTEX} (if
     * among them) as futex says; other kinds read as 0.
     */
    public static KernelSyscallCounter forThread(int tid, Set<SyscallKind> kinds, FutexCalls futex)
            throws Unavailable {
        Objects.requireNonNull(futex, "futex");
        if (kinds.isEmpty()) throw new IllegalArgumentException("no syscall kinds to count");
        Map<SyscallKind, Long> ids = tracepointIds();
        KernelSyscallCounter c = new KernelSyscallCounter(tid);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = a.allocate(PERF_ATTR_SIZE_VER0, 8);
            for (SyscallKind k : kinds) {
                attr.fill((byte) 0);
                attr.set(JAVA_INT, 0, PERF_TYPE_TRACEPOINT); // type
                attr.set(JAVA_INT, 4, PERF_ATTR_SIZE_VER0);  // size
                attr.set(JAVA_LONG, 8, ids.get(k));          // config: the tracepoint id
                attr.set(JAVA_LONG, 32, PERF_FORMAT_GROUP);  // read_format: the leader reads the whole group
                // flags at offset 40 stay 0: enabled from the start, no inherit, kernel side counted
                long leader = c.members == 0 ? -1 : c.fds[c.order[0].ordinal()];
                long fd = LibC.syscall(c.callState, SYS_PERF_EVENT_OPEN, attr.address(), tid, -1, leader,
                        PERF_FLAG_FD_CLOEXEC);
                if (fd < 0) {
                    int err = Errno.read(c.callState);
                    c.close();
                    throw new Unavailable(explainOpenFailure(k, tid, err), err == Errno.ESRCH);
                }
                c.fds[k.ordinal()] = (int) fd;
                c.order[c.members++] = k;
                if (k == SyscallKind.FUTEX && futex == FutexCalls.SHARED) {
                    // Set before the group is read for the first time; what the thread entered in between was
                    // counted unfiltered, which a reading's difference takes out.
                    MemorySegment filter = a.allocateFrom(SHARED_FUTEX_FILTER);
                    if (LibC.ioctl(c.callState, (int) fd, PERF_EVENT_IOC_SET_FILTER, filter.address()) < 0) {
                        int err = Errno.read(c.callState);
                        c.close();
                        throw new Unavailable("ioctl(PERF_EVENT_IOC_SET_FILTER, \"" + SHARED_FUTEX_FILTER + "\") on "
                                + k.tracepoint() + ": " + Errno.name(err) + " " + Errno.text(err));
                    }
                }
            }
        }
        return c;
    }

    /** Null when counters can be opened here, else one line saying why not. */
    public static String unavailableReason() {
        try (KernelSyscallCounter c = forCurrentThread()) {
            return null;
        } catch (Unavailable e) {
            return e.getMessage();
        }
    }

    /** The kernel thread id being counted. */
    public int tid() { return tid; }

    /** Each kind's count since the counter was opened (one read of the group). */
    public SyscallCounts read() {
        // The read below is itself a read(2) of the counted thread when it counts itself; its entry is
        // counted before the values are taken, so it is already in this reading.
        if (LibC.gettid() == tid) ownReads++;
        long want = 8L * (1 + members);
        long n = LibC.read(callState, fds[order[0].ordinal()], values, want);
        if (n != want) {
            throw new IllegalStateException("read(perf group of tid " + tid + "): "
                    + (n < 0 ? new ErrnoException("read", Errno.read(callState)).getMessage() : n + " bytes"));
        }
        long[] counts = new long[fds.length];
        for (int i = 0; i < members; i++) counts[order[i].ordinal()] = values.getAtIndex(JAVA_LONG, 1 + i);
        if (fds[SyscallKind.READ.ordinal()] >= 0) counts[SyscallKind.READ.ordinal()] -= ownReads;
        return new SyscallCounts(counts);
    }

    @Override
    public synchronized void close() {
        for (int i = 0; i < fds.length; i++) {
            if (fds[i] >= 0) {
                LibC.close(callState, fds[i]);
                fds[i] = -1;
            }
        }
        if (arena.scope().isAlive()) arena.close();
    }

    private static Map<SyscallKind, Long> tracepointIds() throws Unavailable {
        Path root = null;
        for (Path p : TRACEFS) {
            if (Files.isDirectory(p.resolve("events"))) {
                root = p;
                break;
            }
        }
        if (root == null) {
            for (Path p : TRACEFS) {
                // A directory we may not list (tracefs is mode 0700 root) looks like a missing one.
                if (Files.isDirectory(p) && !Files.isReadable(p) && tracefsMounted(p)) {
                    throw new Unavailable("tracefs is mounted at " + p + " but not readable by uid " + Self.uid()
                            + ": run as root, or grant CAP_PERFMON and make tracefs readable");
                }
            }
            throw new Unavailable("tracefs is not mounted (no /sys/kernel/tracing/events): as root, "
                    + "mount -t tracefs nodev /sys/kernel/tracing");
        }
        Map<SyscallKind, Long> ids = new EnumMap<>(SyscallKind.class);
        for (SyscallKind k : SyscallKind.values()) {
            Path id = root.resolve("events/syscalls/sys_enter_" + k.kernelName() + "/id");
            try {
                ids.put(k, Long.parseLong(Files.readString(id).trim()));
            } catch (IOException | NumberFormatException e) {
                throw new Unavailable("cannot read tracepoint id " + id + " (" + e.getMessage()
                        + "): the kernel needs CONFIG_FTRACE_SYSCALLS, and reading it needs root");
            }
        }
        return ids;
    }

    /** Whether /proc/self/mounts lists a tracefs at p. */
    private static boolean tracefsMounted(Path p) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/mounts"))) {
                String[] f = line.split(" ");
                if (f.length > 2 && f[2].equals("tracefs") && Path.of(f[1]).equals(p)) return true;
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    private static String explainOpenFailure(SyscallKind k, int tid, int err) {
        String base = "perf_event_open(" + k.tracepoint() + ", tid " + tid + "): " + Errno.name(err) + " "
                + Errno.text(err);
        if (err == Errno.EACCES || err == Errno.EPERM) {
            String paranoid;
            try {
                paranoid = Files.readString(Path.of("/proc/sys/kernel/perf_event_paranoid")).trim();
            } catch (IOException e) {
                paranoid = "unknown";
            }
            return base + " (perf_event_paranoid is " + paranoid
                    + "; tracepoints need root or CAP_PERFMON, or perf_event_paranoid <= -1)";
        }
        if (err == Errno.ENOSYS) return base + " (this kernel has no perf events)";
        return base;
    }

    /** Which of a thread's futex calls a counter of {@link SyscallKind#FUTEX} counts. */
    public enum FutexCalls {
        /**
         * Every one: the library's, and the JVM's own on that thread (a contended lock, a park or a sleep, a
         * method queued for the JIT waking a compiler thread, a stop at a safepoint).
         */
        ALL,
        /**
         * Only FUTEX_WAIT and FUTEX_WAKE on words shared between processes (no FUTEX_PRIVATE_FLAG), the
         * calls {@link Futex} makes: a filter on the tracepoint's {@code op}, in the kernel. The JVM's own
         * futex calls are glibc's on process-private locks and conditions, FUTEX_PRIVATE_FLAG set, and are
         * left out; so the count of a thread that uses a shared-memory channel is the channel's exactly.
         */
        SHARED
    }

    /**
     * Kernel counters cannot be opened here, or not for that thread: the message says why, and {@link #threadGone()}
     * whether it is only that the thread had ended (ESRCH), which says nothing about counters for other threads.
     */
    public static final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;
        private final boolean threadGone;

        /** Unavailable for the reason why, which is the message. */
        public Unavailable(String why) {
            this(why, false);
        }

        /** Unavailable for the reason why; threadGone when the thread counted had ended. */
        public Unavailable(String why, boolean threadGone) {
            super(why);
            this.threadGone = threadGone;
        }

        /** Whether the thread to be counted had ended (ESRCH): counters still open for the threads that live. */
        public boolean threadGone() { return threadGone; }
    }
}
