package org.sysframe.unix;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The kernel's own count of syscalls entered by one thread: one {@code perf_event_open} counter per
 * {@link SyscallKind} on the tracepoint {@code syscalls:sys_enter_<name>}, bound to that thread only
 * (no inherit, any CPU).
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
    private static final Path[] TRACEFS = {
        Path.of("/sys/kernel/tracing"), Path.of("/sys/kernel/debug/tracing"),
    };

    private final int tid;
    private final int[] fds = new int[SyscallKind.count()];
    private final Arena arena = Arena.ofShared();
    private final MemorySegment callState = Errno.newCallState(arena);
    private final MemorySegment value = arena.allocate(JAVA_LONG);

    private KernelSyscallCounter(int tid) {
        this.tid = tid;
        java.util.Arrays.fill(fds, -1);
    }

    /** Counts the calling thread's syscalls from now on. */
    public static KernelSyscallCounter forCurrentThread() throws Unavailable {
        return forThread(LibC.gettid());
    }

    /** Counts syscalls of thread tid (a kernel thread id, see {@link LibC#gettid()}) from now on. */
    public static KernelSyscallCounter forThread(int tid) throws Unavailable {
        Map<SyscallKind, Long> ids = tracepointIds();
        KernelSyscallCounter c = new KernelSyscallCounter(tid);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = a.allocate(PERF_ATTR_SIZE_VER0, 8);
            for (SyscallKind k : SyscallKind.values()) {
                attr.fill((byte) 0);
                attr.set(JAVA_INT, 0, PERF_TYPE_TRACEPOINT); // type
                attr.set(JAVA_INT, 4, PERF_ATTR_SIZE_VER0);  // size
                attr.set(JAVA_LONG, 8, ids.get(k));          // config: the tracepoint id
                // flags at offset 40 stay 0: enabled from the start, no inherit, kernel side counted
                long fd = LibC.syscall(c.callState, SYS_PERF_EVENT_OPEN, attr.address(), tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
                if (fd < 0) {
                    int err = Errno.read(c.callState);
                    c.close();
                    throw new Unavailable(explainOpenFailure(k, tid, err));
                }
                c.fds[k.ordinal()] = (int) fd;
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

    /** Each kind's count since the counter was opened. */
    public SyscallCounts read() {
        long[] counts = new long[fds.length];
        for (int i = 0; i < fds.length; i++) {
            long n = LibC.read(callState, fds[i], value, 8);
            if (n != 8) {
                throw new IllegalStateException("read(perf counter " + SyscallKind.of(i).tracepoint() + "): "
                        + (n < 0 ? new ErrnoException("read", Errno.read(callState)).getMessage() : n + " bytes"));
            }
            counts[i] = value.get(JAVA_LONG, 0);
        }
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

    /** Kernel counters cannot be opened here; the message says why. */
    public static final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;

        public Unavailable(String why) {
            super(why);
        }
    }
}
