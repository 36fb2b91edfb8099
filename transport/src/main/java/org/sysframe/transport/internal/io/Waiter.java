package org.sysframe.transport.internal.io;

import org.sysframe.transport.WaitMode;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.Self;
import org.sysframe.unix.SyscallCounters;

import java.util.function.LongSupplier;

/**
 * The one implementation of the {@link WaitMode}s, for every backend, client and server (the model is
 * Agrona's IdleStrategy: the strategy decides, the caller does the work). A backend gives its two
 * steps ({@link Steps}): look once without sleeping, and sleep in the kernel up to a bound; the waiter
 * chooses between them as the mode says:
 * <ul>
 * <li>{@code block}: sleep at once, up to the bound;</li>
 * <li>{@code spin}: look again and again, never sleep (between two looks at memory, {@link Thread#onSpinWait()};
 *     none between two syscalls, which space the looks by themselves: {@link Looks});</li>
 * <li>{@code yield}: look, and {@code sched_yield} after each look that found nothing (counted);</li>
 * <li>{@code spin:DURATION}: look as {@code spin} does until the <em>spin budget</em> passed, then
 *     sleep once, up to the bound.</li>
 * </ul>
 * The spin budget means one thing everywhere: how long a waiter keeps looking, counted from its first
 * look that found nothing since it last found something or slept; a sleep, whatever it brings, starts
 * a new budget, and so does every {@link #await} (a client's receive). Whether a look is a syscall is
 * the backend's: epoll's is an empty {@code epoll_wait(0)} or {@code recv(MSG_DONTWAIT)}, io_uring's
 * reads the completion queue and the ring's task-work flag in user space (no syscall).
 *
 * <p>An event loop calls {@link #once} per turn (state carries over turns); a client calls
 * {@link #await} per receive. One owner thread; nothing allocated per call.
 */
public final class Waiter {
    /** A bound that is none: sleep until something comes. */
    public static final long NO_BOUND = -1;

    /**
     * A start for {@link #await} that the caller did not read: the wait's first clock reading is its
     * start. A spinning receive over shared memory, answered within {@value #LOOKS_PER_CLOCK} looks,
     * then reads the clock not at all; its bound counts from at most that many looks after it began.
     */
    public static final long UNSTARTED = Long.MIN_VALUE;

    /**
     * What a backend's look costs: whether the waiter spaces its looks with a pause, and how often {@code
     * spin:DURATION} reads the clock for its budget.
     */
    public enum Looks {
        /**
         * Each look is a syscall ({@code recv(MSG_DONTWAIT)}, {@code epoll_wait(0)}): no pause between them (on this
         * project's AMD guest a {@link Thread#onSpinWait()} costs 25 ns, which only delays the look that finds the
         * answer; C's spinning clients make none), and the clock after each.
         */
        SYSCALL,
        /**
         * Each look reads memory and now and then makes a syscall (io_uring's completion queue and task-work flag,
         * submitting what waits): a pause between them, the clock after each.
         */
        MOSTLY_MEMORY,
        /**
         * Each look reads memory only (a shared-memory channel's rings): a pause between them, the clock once per
         * {@value #LOOKS_PER_CLOCK} (a reading costs more than such a look).
         */
        MEMORY
    }

    /** A backend's two ways of finding work. */
    public interface Steps {
        /** Looks once without sleeping: more than 0 when it found something (events, data, completions), else 0. */
        int poll() throws ErrnoException;

        /**
         * Sleeps in the kernel until something comes or at most nanos passed (0: look without
         * sleeping; {@link #NO_BOUND}: no limit); returns as {@link #poll}. It may end earlier with nothing.
         */
        int block(long nanos) throws ErrnoException;
    }

    private final WaitMode.Kind kind;
    private final long budget;
    private final SyscallCounters counters;
    private final LongSupplier clock;
    private final Looks looks;
    private final Runnable pause; // between two empty looks: none for Looks.SYSCALL
    private boolean idle;   // spin:DURATION: a look found nothing since something was found or the waiter slept
    private long idleSince; // ... and when that look was

    /** A waiter for mode, for looks that cost what looks says; its sched_yields are counted in counters. */
    public Waiter(WaitMode mode, SyscallCounters counters, Looks looks) {
        this(mode, counters, looks, System::nanoTime, Thread::onSpinWait);
    }

    /** As above, with a clock of System.nanoTime()'s kind and a pause between looks (tests give fakes). */
    Waiter(WaitMode mode, SyscallCounters counters, Looks looks, LongSupplier clock, Runnable pause) {
        this.kind = mode.kind();
        this.budget = mode.spinNanos();
        this.counters = counters;
        this.looks = looks;
        this.pause = looks == Looks.SYSCALL ? Waiter::noPause : pause;
        this.clock = clock;
    }

    /** Whether the mode looks from user space before it sleeps (every mode but block). */
    public boolean spins() { return kind != WaitMode.Kind.BLOCK; }

    /**
     * One step of an event loop's turn: a sleep of at most bound ns ({@link #NO_BOUND}: none) for
     * block, else one look, and what the mode does after a look that found nothing. Bound 0 means the
     * loop has work waiting: look, and neither sleep nor idle. Returns what the step returned.
     */
    public int once(Steps steps, long bound) throws ErrnoException {
        if (kind == WaitMode.Kind.BLOCK) return steps.block(bound);
        int n = steps.poll();
        if (n > 0 || bound == 0) {
            idle = false;
            return n;
        }
        return afterEmptyLook(steps, bound, kind == WaitMode.Kind.SPIN_THEN_BLOCK ? clock.getAsLong() : 0);
    }

    /**
     * As {@link #once(Steps, long)}, for a loop whose looks cost no syscall (a loop serving shared-memory
     * channels): {@code spin} and {@code spin:DURATION} look up to looks times (a pause between, unless
     * {@link Looks#SYSCALL}) before the step {@link #once(Steps, long)} takes, so that the loop's turn (its
     * clock read, its timer and task checks) and the spin budget's clock reading come once per something
     * found or per looks empty looks, not after every look (a budget then ends within looks looks of its
     * time). Every other mode, and a bound of 0, is {@link #once(Steps, long)}.
     */
    public int once(Steps steps, long bound, int looks) throws ErrnoException {
        boolean spins = kind == WaitMode.Kind.SPIN || kind == WaitMode.Kind.SPIN_THEN_BLOCK;
        if (!spins || bound == 0) return once(steps, bound);
        for (int i = 1; i < looks; i++) {
            int n = steps.poll();
            if (n > 0) {
                idle = false; // something found: spin:DURATION's next budget starts at its next empty look
                return n;
            }
            pause.run();
        }
        return once(steps, bound);
    }

    /**
     * How often a client's {@code spin} reads the clock for its bound (and, with looks that cost no syscall,
     * {@code spin:DURATION} for its budget too): once every this many empty looks. A clock read (clock_gettime
     * through the vDSO) costs more than a look at a shared-memory ring (docs/shared-memory.md), and a spin
     * needs the time for nothing but its bound and budget, which it keeps within this many looks.
     */
    static final int LOOKS_PER_CLOCK = 64;

    /**
     * A whole wait: steps until one finds something, or until nanos passed since start (a reading of
     * the clock, or {@link #UNSTARTED}; {@link #NO_BOUND}: no limit; 0: look once). Returns the count
     * of the step that found something, 0 when the time ran out first. {@code spin} reads the clock at
     * every {@value #LOOKS_PER_CLOCK}th empty look (a wait answered sooner reads it never), and so does
     * {@code spin:DURATION} when looks are cheap; the other modes after every empty look.
     */
    public int await(Steps steps, long start, long nanos) throws ErrnoException {
        if (kind == WaitMode.Kind.BLOCK) {
            if (start == UNSTARTED && nanos > 0) start = clock.getAsLong();
            long left = nanos;
            while (true) {
                int n = steps.block(left);
                if (n > 0 || left == 0) return n;
                if (nanos != NO_BOUND && (left = nanos - (clock.getAsLong() - start)) <= 0) return 0;
            }
        }
        idle = false;
        boolean clocked = nanos != NO_BOUND || kind == WaitMode.Kind.SPIN_THEN_BLOCK;
        int every = kind == WaitMode.Kind.SPIN || kind == WaitMode.Kind.SPIN_THEN_BLOCK && looks == Looks.MEMORY
                ? LOOKS_PER_CLOCK : 1;
        int sinceClock = 0;
        long now = 0;
        while (true) {
            int n = steps.poll();
            if (n > 0) {
                idle = false;
                return n;
            }
            if (nanos == 0) return 0;
            long left = NO_BOUND;
            if (clocked && ++sinceClock == every) {
                sinceClock = 0;
                now = clock.getAsLong();
                if (start == UNSTARTED) start = now;
                if (nanos != NO_BOUND && (left = nanos - (now - start)) <= 0) return 0;
            } else if (kind == WaitMode.Kind.SPIN_THEN_BLOCK) {
                pause.run(); // no reading at this look: the budget is looked at with the next one
                continue;
            }
            n = afterEmptyLook(steps, left, now);
            if (n > 0) return n;
        }
    }

    /** What the mode does after a look that found nothing: spin, yield, or sleep once the budget passed. */
    private int afterEmptyLook(Steps steps, long bound, long now) throws ErrnoException {
        switch (kind) {
            case YIELD -> Self.yield(counters);
            case SPIN_THEN_BLOCK -> {
                if (!idle) {
                    idle = true;
                    idleSince = now;
                }
                if (now - idleSince < budget) {
                    pause.run();
                    return 0;
                }
                idle = false;
                return steps.block(bound);
            }
            default -> pause.run();
        }
        return 0;
    }

    /** Syscall looks' pause: none (the syscall spaces them). */
    private static void noPause() {}
}
