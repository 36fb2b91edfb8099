package org.sysframe.transport.internal.server;

import org.sysframe.transport.WaitMode;
import org.sysframe.transport.internal.io.Waiter;

import org.sysframe.unix.SyscallCounters;

import java.util.ArrayList;
import java.util.List;

/**
 * The shared-memory channels one loop serves, and how the loop waits while it serves them. A loop with
 * channels waits as the most eager of its own wait mode and its channels' ones ({@link #waiter()}):
 * a channel that asked to spin makes its loop spin while it is open, since a sleeping loop would
 * cost each of its calls a wake-up. Loop thread only.
 */
public final class LoopChannels {
    /** The tag of every channel's wake-up descriptor in its loop's wait: the loop looks at all its channels anyway. */
    public static final long TAG = -3;
    /**
     * A loop spinning for its channels looks at its sockets (a syscall: epoll_wait(0), or io_uring_enter
     * for completions its ring defers) at most once per so many ns: a socket's request waits at most that
     * long, and a channel's call pays no syscall.
     */
    public static final long SOCKETS_EVERY_NANOS = 20_000;
    /** A loop spinning for its channels reads the clock once per so many looks at their rings. */
    static final int LOOKS_PER_CLOCK = 64;
    /** A loop spinning for its channels looks this many times per turn before the turn's own work (timers, tasks). */
    public static final int LOOKS_PER_TURN = 64;

    private final List<HostedChannel> list = new ArrayList<>();
    private final WaitMode loopMode;
    private final SyscallCounters counters;
    private Waiter waiter;
    private int looks;         // looks at the rings since the clock was last read
    private long socketsSeen;  // when the loop last looked at its sockets while spinning for its channels

    LoopChannels(WaitMode loopMode, SyscallCounters counters) {
        this.loopMode = loopMode;
        this.counters = counters;
    }

    public boolean isEmpty() { return list.isEmpty(); }

    public int size() { return list.size(); }

    /** How the loop waits while it has channels (null while it has none). */
    public Waiter waiter() { return waiter; }

    void add(HostedChannel c) {
        list.add(c);
        modeChanged();
    }

    void remove(HostedChannel c) {
        list.remove(c);
        modeChanged();
    }

    private void modeChanged() {
        if (list.isEmpty()) {
            waiter = null;
            return;
        }
        WaitMode m = loopMode;
        for (int i = 0; i < list.size(); i++) m = eager(m, list.get(i).waitMode());
        waiter = new Waiter(m, counters, Waiter.Looks.MEMORY); // a look at the rings is no syscall
    }

    /** The more eager of two modes: spin, then yield, then the longer spin before a block, then block. */
    public static WaitMode eager(WaitMode a, WaitMode b) {
        int ra = rank(a), rb = rank(b);
        if (ra != rb) return ra > rb ? a : b;
        return a.spinNanos() >= b.spinNanos() ? a : b;
    }

    private static int rank(WaitMode m) {
        return switch (m.kind()) {
            case SPIN -> 3;
            case YIELD -> 2;
            case SPIN_THEN_BLOCK -> 1;
            case BLOCK -> 0;
        };
    }

    /**
     * At a look of a loop spinning for its channels: whether it should look at its sockets now. The clock
     * is read once per {@value #LOOKS_PER_CLOCK} looks, and the answer is yes once
     * {@value #SOCKETS_EVERY_NANOS} ns passed since the last yes.
     */
    public boolean socketsDue() {
        if (++looks < LOOKS_PER_CLOCK) return false;
        looks = 0;
        long now = System.nanoTime();
        if (now - socketsSeen < SOCKETS_EVERY_NANOS) return false;
        socketsSeen = now;
        return true;
    }

    /** A look at every channel without a syscall: true when one has work. */
    public boolean ready() {
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i).ready()) return true;
        }
        return false;
    }

    /**
     * Before the loop sleeps: every channel says it sleeps and looks again; true when the loop may
     * sleep, false (every channel awake again) when work came meanwhile.
     */
    public boolean sleep() {
        boolean work = false;
        for (int i = 0; i < list.size(); i++) work |= list.get(i).sleeping();
        if (work) awake();
        return !work;
    }

    /** After the loop's sleep: no channel's peer need wake it. */
    public void awake() {
        for (int i = 0; i < list.size(); i++) list.get(i).awake();
    }

    /** In the turn: each channel takes what came (from the last: one may close and leave the list). */
    void serve() {
        for (int i = list.size() - 1; i >= 0; i--) list.get(i).serve();
    }

    /** The end of the turn: each channel publishes what it wrote (from the last, as above). */
    void endOfTurn() {
        for (int i = list.size() - 1; i >= 0; i--) list.get(i).endOfTurn();
    }
}
