package org.sysframe.unix.internal.uring;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.internal.LibC;
import org.sysframe.unix.uring.UringCounters;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * One io_uring instance through raw syscalls (io_uring_setup, io_uring_enter, io_uring_register via
 * {@code syscall(2)}; no liburing): the SQ and CQ rings and the SQE array are mmapped and read as
 * MemorySegments, heads and tails with acquire loads and release stores, as the kernel's ring protocol
 * requires.
 *
 * <p>Use: {@link #nextSqe()} and a {@code prep*} method per operation, then {@link #submit(int, long)}
 * (one io_uring_enter that submits what was prepared and, if asked, waits for completions), then
 * {@link #peek()}/{@link #advance()} over the completions. Every io_uring_enter is counted as
 * {@link SyscallKind#IO_URING_ENTER} in the counters given (and as empty when it submitted and reaped
 * nothing); SQEs by opcode and CQEs in {@link #uringCounters()}.
 *
 * <p>Single-threaded: one owner thread prepares, submits and reaps (the ring is meant for
 * {@link #SETUP_SINGLE_ISSUER}). Completions that do not fit the CQ are kept by the kernel
 * ({@link #FEAT_NODROP}, required) and flushed into the CQ by {@link #peek()} when the ring flags
 * an overflow. {@link #close()} unmaps and closes; the owner must first have every operation it
 * started completed or cancelled (their buffers are the owner's).
 */
public final class IoUring implements AutoCloseable {
    public static final int SETUP_SQPOLL = 1 << 1;
    public static final int SETUP_SQ_AFF = 1 << 2;
    public static final int SETUP_CQSIZE = 1 << 3;
    public static final int SETUP_CLAMP = 1 << 4;
    public static final int SETUP_SUBMIT_ALL = 1 << 7;
    public static final int SETUP_COOP_TASKRUN = 1 << 8;
    public static final int SETUP_TASKRUN_FLAG = 1 << 9;
    public static final int SETUP_SINGLE_ISSUER = 1 << 12;
    public static final int SETUP_DEFER_TASKRUN = 1 << 13;

    public static final int FEAT_SINGLE_MMAP = 1;
    public static final int FEAT_NODROP = 1 << 1;
    public static final int FEAT_EXT_ARG = 1 << 8;

    static final int ENTER_GETEVENTS = 1;
    static final int ENTER_SQ_WAKEUP = 1 << 1;
    static final int ENTER_EXT_ARG = 1 << 3;
    static final int ENTER_REGISTERED_RING = 1 << 4;

    static final int SQ_NEED_WAKEUP = 1;
    static final int SQ_CQ_OVERFLOW = 1 << 1;
    static final int SQ_TASKRUN = 1 << 2;

    static final int REGISTER_FILES = 2;
    static final int REGISTER_PROBE = 8;
    static final int REGISTER_RING_FDS = 20;
    static final int REGISTER_PBUF_RING = 22;
    static final int UNREGISTER_PBUF_RING = 23;

    static final long NR_SETUP = 425;
    static final long NR_ENTER = 426;
    static final long NR_REGISTER = 427;

    private static final long OFF_SQ_RING = 0L;
    private static final long OFF_SQES = 0x10000000L;
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_SHARED_POPULATE = 0x01 | 0x8000;

    private static final VarHandle INT = JAVA_INT.varHandle();
    // once: a timed wait allocates nothing
    private static final long WAIT_ARG_TS = UringLayouts.offset(UringLayouts.GETEVENTS_ARG, "ts");

    /** Returned by {@link #submit(int, long)} when its wait timed out (ETIME). */
    public static final int TIMED_OUT = -1;

    // closed by close(), possibly from another thread once the owner stopped
    private final Arena arena = Arena.ofShared();
    private final MemorySegment callState = Errno.newCallState(arena);
    private final MemorySegment waitArg = arena.allocate(UringLayouts.GETEVENTS_ARG);
    private final MemorySegment timespec = arena.allocate(UringLayouts.TIMESPEC);
    private final SyscallCounters counters;
    private final UringCounters uringCounters;
    private final int ringFd;
    private final int flags;
    private final int features;
    private final long ringAddr;
    private final long ringLen;
    private final long sqesAddr;
    private final long sqesLen;
    private final MemorySegment ring;  // SQ ring and CQ ring: one mapping (FEAT_SINGLE_MMAP)
    private final MemorySegment sqes;
    private final long sqHead, sqTail, sqFlags, sqDropped;
    private final long cqHead, cqTail, cqOverflow, cqesOffset;
    private final int sqMask, sqEntries, cqMask, cqEntries;
    private final Sqe sqe;
    private final Cqe cqe;
    private int enterFd;
    private int enterFlags;
    private int localSqTail; // SQEs prepared (published to the kernel by submit)
    private int localCqHead; // CQEs consumed
    private boolean closed;

    /**
     * Sets up a ring of sqEntries submissions (a power of two), cqEntries completions (0: twice
     * sqEntries) and the {@code SETUP_*} flags given. Fails naming the cause when io_uring is
     * unavailable (see {@link org.sysframe.unix.uring.UringSupport#unavailableReason()}).
     */
    public IoUring(int sqEntries, int cqEntries, int setupFlags, SyscallCounters counters, UringCounters uringCounters)
            throws ErrnoException {
        this.counters = counters;
        this.uringCounters = uringCounters;
        MemorySegment params = arena.allocate(UringLayouts.PARAMS);
        int f = setupFlags | (cqEntries > 0 ? SETUP_CQSIZE : 0);
        params.set(JAVA_INT, UringLayouts.offset(UringLayouts.PARAMS, "flags"), f);
        if (cqEntries > 0) params.set(JAVA_INT, UringLayouts.offset(UringLayouts.PARAMS, "cq_entries"), cqEntries);
        long fd = LibC.syscall(callState, NR_SETUP, sqEntries, params.address(), 0, 0, 0);
        if (fd < 0) {
            int err = Errno.read(callState);
            throw new ErrnoException("io_uring_setup", err, SetupFailure.explain(err, f));
        }
        this.ringFd = (int) fd;
        this.enterFd = ringFd;
        this.flags = f;
        this.features = params.get(JAVA_INT, UringLayouts.offset(UringLayouts.PARAMS, "features"));
        try {
            if ((features & FEAT_SINGLE_MMAP) == 0 || (features & FEAT_NODROP) == 0) {
                throw new ErrnoException("io_uring_setup", Errno.ENOTSUP,
                        "this kernel's io_uring lacks " + ((features & FEAT_NODROP) == 0 ? "IORING_FEAT_NODROP"
                        : "IORING_FEAT_SINGLE_MMAP")
                                + " (needs Linux 5.5)");
            }
            this.sqEntries = param(params, "sq_entries");
            this.cqEntries = param(params, "cq_entries");
            long sqArray = param(params, "sq_off", "array");
            long sqLen = sqArray + 4L * this.sqEntries;
            this.cqesOffset = param(params, "cq_off", "cqes");
            long cqLen = cqesOffset + UringLayouts.CQE.byteSize() * this.cqEntries;
            this.ringLen = Math.max(sqLen, cqLen);
            this.ringAddr = map(ringLen, OFF_SQ_RING);
            this.sqesLen = Sqe.SIZE * this.sqEntries;
            long sa;
            try {
                sa = map(sqesLen, OFF_SQES);
            } catch (ErrnoException e) {
                LibC.munmap(callState, ringAddr, ringLen);
                throw e;
            }
            this.sqesAddr = sa;
            this.ring = MemorySegment.ofAddress(ringAddr).reinterpret(ringLen);
            this.sqes = MemorySegment.ofAddress(sqesAddr).reinterpret(sqesLen);
            this.sqHead = param(params, "sq_off", "head");
            this.sqTail = param(params, "sq_off", "tail");
            this.sqFlags = param(params, "sq_off", "flags");
            this.sqDropped = param(params, "sq_off", "dropped");
            this.sqMask = ring.get(JAVA_INT, param(params, "sq_off", "ring_mask"));
            this.cqHead = param(params, "cq_off", "head");
            this.cqTail = param(params, "cq_off", "tail");
            this.cqOverflow = param(params, "cq_off", "overflow");
            this.cqMask = ring.get(JAVA_INT, param(params, "cq_off", "ring_mask"));
            // SQ slot i always holds SQE i: the index array is filled once, and SQEs are used in ring order.
            for (int i = 0; i < this.sqEntries; i++) ring.set(JAVA_INT, sqArray + 4L * i, i);
            this.localSqTail = (int) INT.getAcquire(ring, sqTail);
            this.localCqHead = (int) INT.getAcquire(ring, cqHead);
            this.sqe = new Sqe(sqes, uringCounters);
            this.cqe = new Cqe(ring);
        } catch (ErrnoException | RuntimeException e) {
            LibC.close(callState, ringFd);
            arena.close();
            throw e;
        }
    }

    private static int param(MemorySegment params, String field) {
        return params.get(JAVA_INT, UringLayouts.offset(UringLayouts.PARAMS, field));
    }

    private static int param(MemorySegment params, String group, String field) {
        return params.get(JAVA_INT, UringLayouts.offset(UringLayouts.PARAMS, group, field));
    }

    private long map(long len, long offset) throws ErrnoException {
        long a = LibC.mmap(callState, 0, len, PROT_READ_WRITE, MAP_SHARED_POPULATE, ringFd, offset);
        if (a == -1) throw new ErrnoException("mmap(io_uring " + (offset == 0 ? "rings" : "SQEs") + ")",
                Errno.read(callState));
        return a;
    }

    /** The ring's file descriptor. */
    public int fd() { return ringFd; }

    /** The setup flags the ring runs with. */
    public int setupFlags() { return flags; }

    /** IORING_FEAT_* bits the kernel reported. */
    public int features() { return features; }

    public int sqEntries() { return sqEntries; }

    public int cqEntries() { return cqEntries; }

    /** io_uring_enter calls, by this ring's owner. */
    public SyscallCounters counters() { return counters; }

    /** SQEs by opcode and CQEs. */
    public UringCounters uringCounters() { return uringCounters; }

    /**
     * The next free SQE, zeroed, as the reusable flyweight. When the SQ is full, what was prepared is
     * submitted first (one counted io_uring_enter that does not wait).
     */
    public Sqe nextSqe() throws ErrnoException {
        if (localSqTail - (int) INT.getAcquire(ring, sqHead) >= sqEntries) submit(0, 0);
        sqe.position(Sqe.SIZE * (localSqTail & sqMask));
        localSqTail++;
        return sqe;
    }

    /**
     * Adds IOSQE flags to the SQE prepared last, while it is not submitted yet: e.g. {@link Sqe#IO_LINK}
     * once another SQE must start only after it.
     */
    public void flagLast(int iosqeFlags) {
        if (pending() == 0) throw new IllegalStateException("no SQE prepared since the last submit");
        long at = Sqe.SIZE * ((localSqTail - 1) & sqMask) + Sqe.FLAGS;
        sqes.set(JAVA_BYTE, at, (byte) (sqes.get(JAVA_BYTE, at) | iosqeFlags));
    }

    /** SQEs prepared and not yet consumed by the kernel. */
    public int pending() {
        return localSqTail - (int) INT.getAcquire(ring, sqHead);
    }

    /**
     * One io_uring_enter: submits every SQE prepared and, when minComplete > 0, waits until at least
     * that many completions are in the CQ, or timeoutNanos has passed (0: no limit; then returns
     * {@link #TIMED_OUT}). Returns the number of SQEs the kernel consumed. EINTR is retried (the
     * retry submits only what the kernel has not consumed yet).
     */
    public int submit(int minComplete, long timeoutNanos) throws ErrnoException {
        INT.setRelease(ring, sqTail, localSqTail);
        int flagsNow = enterFlags | (minComplete > 0 ? ENTER_GETEVENTS : 0);
        long arg = 0, argLen = 0;
        if (minComplete > 0 && timeoutNanos > 0) {
            timespec.set(JAVA_LONG, 0, timeoutNanos / 1_000_000_000L);
            timespec.set(JAVA_LONG, 8, timeoutNanos % 1_000_000_000L);
            waitArg.set(JAVA_LONG, WAIT_ARG_TS, timespec.address());
            arg = waitArg.address();
            argLen = UringLayouts.GETEVENTS_ARG.byteSize();
            flagsNow |= ENTER_EXT_ARG;
        }
        if ((flags & SETUP_SQPOLL) != 0) {
            VarHandle.fullFence(); // the tail store must be visible before the wake-up flag is read
            if ((ring.get(JAVA_INT, sqFlags) & SQ_NEED_WAKEUP) != 0) flagsNow |= ENTER_SQ_WAKEUP;
            else if (minComplete == 0) return 0; // the SQ thread is awake and takes the SQEs: no syscall
        }
        while (true) {
            int toSubmit = (flags & SETUP_SQPOLL) != 0 ? 0 : pending();
            long r = LibC.syscall(callState, NR_ENTER, enterFd, toSubmit, minComplete, flagsNow, arg, argLen);
            counters.increment(SyscallKind.IO_URING_ENTER);
            if (r >= 0) {
                if (toSubmit == 0 && ready() == 0) counters.incrementEmpty(SyscallKind.IO_URING_ENTER);
                return (int) r;
            }
            int err = Errno.read(callState);
            if (err == Errno.EINTR) continue;
            if (err == Errno.ETIME) return TIMED_OUT;
            if (err == Errno.EBUSY || err == Errno.EAGAIN) {
                // The CQ is full and the kernel holds completions back: the caller must reap first.
                return 0;
            }
            throw new ErrnoException("io_uring_enter", err);
        }
    }

    /**
     * With {@link #SETUP_COOP_TASKRUN} | {@link #SETUP_TASKRUN_FLAG}: whether the kernel has work queued
     * for this thread (a completion to post) that runs on its next io_uring_enter; a spinning owner
     * checks it beside the CQ and calls {@link #runTaskWork()} when set.
     */
    public boolean taskWorkPending() {
        return (ring.get(JAVA_INT, sqFlags) & SQ_TASKRUN) != 0;
    }

    /** One io_uring_enter that only runs the work queued for this thread (posting its completions); counted. */
    public void runTaskWork() throws ErrnoException {
        flushOverflow();
    }

    public int ready() {
        return (int) INT.getAcquire(ring, cqTail) - localCqHead;
    }

    /**
     * The completion at the head of the CQ, as the reusable flyweight, or null when the CQ is empty.
     * When the kernel flagged completions kept back (CQ overflow), they are flushed into the CQ first
     * (one counted io_uring_enter): none is lost.
     */
    public Cqe peek() throws ErrnoException {
        if (ready() == 0) {
            if ((ring.get(JAVA_INT, sqFlags) & SQ_CQ_OVERFLOW) == 0) return null;
            flushOverflow();
            if (ready() == 0) return null;
        }
        cqe.position(cqesOffset + UringLayouts.CQE.byteSize() * (localCqHead & cqMask));
        return cqe;
    }

    private void flushOverflow() throws ErrnoException {
        long r = LibC.syscall(callState, NR_ENTER, enterFd, 0, 0, enterFlags | ENTER_GETEVENTS, 0, 0);
        counters.increment(SyscallKind.IO_URING_ENTER);
        if (r < 0 && Errno.read(callState) != Errno.EINTR) throw new ErrnoException("io_uring_enter(flush overflow)",
                Errno.read(callState));
    }

    /** Consumes the completion {@link #peek()} returned. */
    public void advance() {
        localCqHead++;
        INT.setRelease(ring, cqHead, localCqHead);
        uringCounters.completed();
    }

    /** Completions the kernel had to keep back since setup because the CQ was full (the CQ ring's overflow counter). */
    public int overflowCount() {
        return (int) INT.getAcquire(ring, cqOverflow);
    }

    /** SQEs the kernel dropped as invalid (the SQ ring's dropped counter). */
    public int droppedCount() {
        return (int) INT.getAcquire(ring, sqDropped);
    }

    /**
     * Registers the ring's own fd with itself (IORING_REGISTER_RING_FDS, Linux 5.18), so that every
     * io_uring_enter skips the fd look-up; false when the kernel does not support it or this thread
     * already registered its maximum of 16 rings (nothing changes then). The registration belongs to
     * the calling thread: only it may enter the ring afterwards.
     */
    public boolean registerRingFd() throws ErrnoException {
        MemorySegment upd = arena.allocate(UringLayouts.RSRC_UPDATE);
        upd.set(JAVA_INT, 0, -1); // any free slot
        upd.set(JAVA_LONG, UringLayouts.offset(UringLayouts.RSRC_UPDATE, "data"), ringFd);
        long r = register(REGISTER_RING_FDS, upd.address(), 1);
        if (r < 0) {
            if (-r == Errno.EINVAL || -r == Errno.EBUSY) return false;
            throw new ErrnoException("io_uring_register(RING_FDS)", (int) -r);
        }
        enterFd = upd.get(JAVA_INT, 0);
        enterFlags = ENTER_REGISTERED_RING;
        return true;
    }

    /** Whether io_uring_enter goes through the registered ring fd. */
    public boolean ringFdRegistered() { return enterFlags == ENTER_REGISTERED_RING; }

    /** Registers fds as the ring's fixed files; an SQE names one by index with {@link Sqe#FIXED_FILE}. */
    public void registerFiles(int... fds) throws ErrnoException {
        MemorySegment arr = arena.allocate(JAVA_INT, fds.length);
        for (int i = 0; i < fds.length; i++) arr.setAtIndex(JAVA_INT, i, fds[i]);
        long r = register(REGISTER_FILES, arr.address(), fds.length);
        if (r < 0) throw new ErrnoException("io_uring_register(FILES)", (int) -r);
    }

    /** The opcodes this kernel supports (IORING_REGISTER_PROBE). */
    public UringProbe probe() throws ErrnoException {
        long size = UringLayouts.PROBE.byteSize() + UringLayouts.PROBE_OP.byteSize() * 256;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(size, 8);
            long r = register(REGISTER_PROBE, p.address(), 256);
            if (r < 0) throw new ErrnoException("io_uring_register(PROBE)", (int) -r, "needs Linux 5.6");
            return UringProbe.read(p);
        }
    }

    /** io_uring_register(2): the result, or -errno. Setup-time only: not counted per transaction. */
    long register(int opcode, long arg, int nrArgs) {
        long r = LibC.syscall(callState, NR_REGISTER, ringFd, opcode, arg, nrArgs, 0);
        return r < 0 ? -Errno.read(callState) : r;
    }

    /** Unmaps the rings and closes the ring fd (idempotent). Every operation must be complete or cancelled. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        LibC.munmap(callState, sqesAddr, sqesLen);
        LibC.munmap(callState, ringAddr, ringLen);
        LibC.close(callState, ringFd);
        arena.close();
    }
}
