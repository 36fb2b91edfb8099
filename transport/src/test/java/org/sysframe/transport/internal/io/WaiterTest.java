package org.sysframe.transport.internal.io;

import org.sysframe.transport.WaitMode;

import org.junit.jupiter.api.Test;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.SyscallKind;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The one waiter against a fake backend (its steps) and a fake clock: which step each mode takes, and
 * what the spin budget means, for a loop's turns and for a client's whole wait alike.
 */
class WaiterTest {
    /** A backend that finds something at the looks and sleeps scripted, and logs every step with the bound asked. */
    static final class FakeSteps implements Waiter.Steps {
        final List<String> log = new ArrayList<>();
        final FakeClock clock;
        /**
         * Each look or sleep returns the next of these (0 when they ran out); a sleep advances the clock by sleepNanos.
         */
        final int[] results;
        long sleepNanos;
        long lookNanos;
        int next;

        FakeSteps(FakeClock clock, int... results) {
            this.clock = clock;
            this.results = results;
        }

        private int result() { return next < results.length ? results[next++] : 0; }

        @Override
        public int poll() {
            log.add("poll");
            clock.now += lookNanos;
            return result();
        }

        @Override
        public int block(long nanos) {
            log.add("block " + nanos);
            clock.now += sleepNanos;
            return result();
        }
    }

    static final class FakeClock {
        long now = 1_000_000; // any instant: System.nanoTime() may be negative or zero too
    }

    private final FakeClock clock = new FakeClock();
    private final SyscallCounters counters = new SyscallCounters("waiter test");

    private final int[] pauses = new int[1];

    private Waiter waiter(String mode) { return waiter(mode, Waiter.Looks.SYSCALL); }

    /** A waiter for mode on the fake clock, for looks that cost what looks says, that counts its pauses. */
    private Waiter waiter(String mode, Waiter.Looks looks) {
        return new Waiter(WaitMode.parse(mode), counters, looks, () -> clock.now, () -> pauses[0]++);
    }

    /** A spin waiter on the fake clock that counts its readings in reads[0]. */
    private Waiter spinCountingClockReads(int[] reads) { return countingClockReads("spin", false, reads); }

    /** A waiter for mode on the fake clock, its looks at memory or syscalls, that counts its readings in reads[0]. */
    private Waiter countingClockReads(String mode, boolean memoryLooks, int[] reads) {
        return new Waiter(WaitMode.parse(mode), counters, memoryLooks ? Waiter.Looks.MEMORY : Waiter.Looks.SYSCALL,
                () -> {
                    reads[0]++;
                    return clock.now;
                }, () -> pauses[0]++);
    }

    @Test
    void looksThatAreSyscallsAreNotSpacedByAPauseLooksAtMemoryAre() throws Exception {
        for (Waiter.Looks looks : Waiter.Looks.values()) {
            int perLook = looks == Waiter.Looks.SYSCALL ? 0 : 1;
            pauses[0] = 0;
            // a client's whole wait: the answer at the 100th look, 99 empty ones before it
            int[] script = new int[100];
            script[99] = 1;
            assertEquals(1, waiter("spin", looks).await(new FakeSteps(clock, script), 0, Waiter.NO_BOUND));
            assertEquals(99 * perLook, pauses[0], looks + ": spin's await");
            pauses[0] = 0;
            FakeSteps budget = new FakeSteps(clock, script);
            budget.lookNanos = 1; // within spin:10us's budget all along
            assertEquals(1, waiter("spin:10us", looks).await(budget, 0, Waiter.NO_BOUND));
            assertEquals(99 * perLook, pauses[0], looks + ": spin:10us's await");
            // a loop's turns: one look each, a pause after each empty one
            pauses[0] = 0;
            Waiter loop = waiter("spin", looks);
            FakeSteps turns = new FakeSteps(clock, 0, 0, 0, 2);
            for (int i = 0; i < 4; i++) loop.once(turns, Waiter.NO_BOUND);
            assertEquals(3 * perLook, pauses[0], looks + ": a loop's turns");
            // a loop serving channels: up to 64 looks per turn
            pauses[0] = 0;
            assertEquals(0, waiter("spin", looks).once(new FakeSteps(clock), Waiter.NO_BOUND, 64));
            assertEquals(64 * perLook, pauses[0], looks + ": a channel loop's turn of 64 empty looks");
        }
        // block and yield never pause
        pauses[0] = 0;
        waiter("yield", Waiter.Looks.MEMORY).await(new FakeSteps(clock, 0, 0, 1), 0, Waiter.NO_BOUND);
        waiter("block", Waiter.Looks.MEMORY).await(new FakeSteps(clock, 0, 1), 0, Waiter.NO_BOUND);
        assertEquals(0, pauses[0]);
    }

    @Test
    void blockSleepsAtOnceUpToTheBoundAndNeverLooksFirst() throws Exception {
        Waiter w = waiter("block");
        assertFalse(w.spins());
        FakeSteps s = new FakeSteps(clock, 3);
        assertEquals(3, w.once(s, 7_000));
        assertEquals(0, w.once(s, Waiter.NO_BOUND));
        assertEquals(0, w.once(s, 0));
        assertEquals(List.of("block 7000", "block -1", "block 0"), s.log);
    }

    @Test
    void spinLooksOncePerTurnAndNeverSleepsNorYields() throws Exception {
        Waiter w = waiter("spin");
        assertTrue(w.spins());
        FakeSteps s = new FakeSteps(clock, 0, 0, 2);
        for (int i = 0; i < 3; i++) w.once(s, Waiter.NO_BOUND);
        clock.now += 60_000_000_000L; // a minute of nothing: a spin never sleeps
        for (int i = 0; i < 3; i++) w.once(s, Waiter.NO_BOUND);
        assertEquals(List.of("poll", "poll", "poll", "poll", "poll", "poll"), s.log);
        assertEquals(0, counters.snapshot().get(SyscallKind.SCHED_YIELD));
    }

    @Test
    void yieldYieldsOnceAfterEachEmptyLookAndNotAfterOneThatFoundSomething() throws Exception {
        Waiter w = waiter("yield");
        FakeSteps s = new FakeSteps(clock, 0, 0, 1, 0);
        for (int i = 0; i < 4; i++) w.once(s, Waiter.NO_BOUND);
        assertEquals(4, s.log.size());
        assertEquals(3, counters.snapshot().get(SyscallKind.SCHED_YIELD), "three empty looks, three sched_yield");
    }

    @Test
    void aTurnWithWorkWaitingLooksAndNeitherIdlesNorSleeps() throws Exception {
        Waiter yield = waiter("yield");
        FakeSteps s = new FakeSteps(clock);
        yield.once(s, 0);
        assertEquals(0, counters.snapshot().get(SyscallKind.SCHED_YIELD));
        Waiter stb = waiter("spin:10us");
        stb.once(s, Waiter.NO_BOUND); // the budget starts
        clock.now += 1_000_000;
        stb.once(s, 0);              // past it, but work waits: no sleep, and the budget starts again
        stb.once(s, Waiter.NO_BOUND);
        assertEquals(List.of("poll", "poll", "poll", "poll"), s.log);
    }

    @Test
    void spinForADurationSleepsOnceItsBudgetPassedSinceTheFirstEmptyLookAndStartsAgainAfter() throws Exception {
        Waiter w = waiter("spin:10us");
        FakeSteps s = new FakeSteps(clock);
        w.once(s, 5_000_000);          // first empty look: the budget starts now
        clock.now += 9_999;
        w.once(s, 5_000_000);          // 1 ns short of it: still a look
        clock.now += 1;
        w.once(s, 5_000_000);          // passed: look, then sleep up to the bound
        w.once(s, 5_000_000);          // after a sleep, a new budget
        assertEquals(List.of("poll", "poll", "poll", "block 5000000", "poll"), s.log);
    }

    @Test
    void somethingFoundStartsTheBudgetAgain() throws Exception {
        Waiter w = waiter("spin:10us");
        FakeSteps s = new FakeSteps(clock, 0, 1, 0, 0);
        w.once(s, Waiter.NO_BOUND);    // empty: budget from here
        clock.now += 8_000;
        w.once(s, Waiter.NO_BOUND);    // found something
        clock.now += 8_000;
        w.once(s, Waiter.NO_BOUND);    // empty: a new budget from here, 16 us after the first empty look
        clock.now += 8_000;
        w.once(s, Waiter.NO_BOUND);    // 8 us into it: no sleep yet
        assertEquals(List.of("poll", "poll", "poll", "poll"), s.log);
    }

    @Test
    void aClientWaitOnBlockSleepsAgainAfterAnEarlyWakeUntilItsBound() throws Exception {
        Waiter w = waiter("block");
        FakeSteps s = new FakeSteps(clock, 0, 0, 5);
        s.sleepNanos = 1_000;
        long start = clock.now;
        assertEquals(5, w.await(s, start, 10_000));
        assertEquals(List.of("block 10000", "block 9000", "block 8000"), s.log);
    }

    @Test
    void aClientWaitOnBlockEndsWithNothingOnceItsBoundPassed() throws Exception {
        Waiter w = waiter("block");
        FakeSteps s = new FakeSteps(clock);
        s.sleepNanos = 10_000; // the kernel's timeout
        assertEquals(0, w.await(s, clock.now, 10_000));
        assertEquals(List.of("block 10000"), s.log, "no look after the timeout");
        FakeSteps none = new FakeSteps(clock);
        assertEquals(0, w.await(none, clock.now, 0));
        assertEquals(List.of("block 0"), none.log, "bound 0: look without sleeping");
    }

    @Test
    void aClientWaitThatSpinsEndsAtItsBoundAndYieldsAfterEachEmptyLookBeforeIt() throws Exception {
        Waiter w = waiter("yield");
        FakeSteps s = new FakeSteps(clock);
        s.lookNanos = 1_000;
        assertEquals(0, w.await(s, clock.now, 3_500));
        assertEquals(List.of("poll", "poll", "poll", "poll"), s.log,
                "looks at 1, 2, 3 and 4 us; the bound passed at 3.5");
        assertEquals(3, counters.snapshot().get(SyscallKind.SCHED_YIELD), "none after the look that found the time up");
        FakeSteps data = new FakeSteps(clock, 0, 0, 7);
        assertEquals(7, w.await(data, clock.now, Waiter.NO_BOUND));
        assertEquals(5, counters.snapshot().get(SyscallKind.SCHED_YIELD), "one per empty look: two more");
    }

    @Test
    void aClientWaitSpinsItsBudgetThenSleepsForWhatIsLeftOfItsBound() throws Exception {
        Waiter w = waiter("spin:3us");
        FakeSteps s = new FakeSteps(clock, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9);
        s.lookNanos = 1_000;
        s.sleepNanos = 50_000;
        long start = clock.now;
        assertEquals(9, w.await(s, start, 100_000));
        // Looks at 1 (the budget starts), 2, 3 and 4 us, when 3 us passed: a sleep for the 96 us left,
        // which wakes at 54 us with nothing; a new budget (looks at 55 to 58 us), then a sleep for the 42 us left.
        assertEquals(List.of("poll", "poll", "poll", "poll", "block 96000", "poll", "poll", "poll", "poll",
                "block 42000"), s.log);
    }

    @Test
    void everyClientWaitStartsWithAWholeBudget() throws Exception {
        Waiter w = waiter("spin:3us");
        FakeSteps s = new FakeSteps(clock);
        s.lookNanos = 1_000;
        assertEquals(0, w.await(s, clock.now, 2_500)); // timed out inside the budget
        s.log.clear();
        FakeSteps next = new FakeSteps(clock, 0, 0, 4);
        next.lookNanos = 1_000;
        assertEquals(4, w.await(next, clock.now, Waiter.NO_BOUND));
        assertEquals(List.of("poll", "poll", "poll"), next.log, "no sleep: the budget is this wait's own");
    }

    @Test
    void aClientSpinReadsTheClockAtEverySixtyFourthEmptyLook() throws Exception {
        int[] reads = {0};
        Waiter w = spinCountingClockReads(reads);
        FakeSteps s = new FakeSteps(clock);
        s.lookNanos = 100;
        assertEquals(0, w.await(s, clock.now, 10_000));
        // Reads after looks 64 (6.4 us) and 128 (12.8 us: the bound passed).
        assertEquals(128, s.log.size());
        assertEquals(2, reads[0]);
        reads[0] = 0;
        FakeSteps data = new FakeSteps(clock, 0, 0, 6);
        assertEquals(6, w.await(data, clock.now, 10_000));
        assertEquals(0, reads[0], "answered at the third look: no clock read");
        FakeSteps none = new FakeSteps(clock);
        assertEquals(0, w.await(none, clock.now, 0));
        assertEquals(List.of("poll"), none.log, "bound 0: one look");
        assertEquals(0, reads[0]);
        int[] late = new int[200];
        late[199] = 1;
        FakeSteps unbounded = new FakeSteps(clock, late);
        assertEquals(1, w.await(unbounded, clock.now, Waiter.NO_BOUND));
        assertEquals(200, unbounded.log.size());
        assertEquals(0, reads[0], "no bound: a spin never reads the clock");
    }

    @Test
    void aClientSpinForADurationWithCheapLooksReadsTheClockAtEverySixtyFourthEmptyLook() throws Exception {
        int[] reads = {0};
        Waiter w = countingClockReads("spin:10us", true, reads);
        FakeSteps s = new FakeSteps(clock);
        s.lookNanos = 100;
        s.sleepNanos = 1_000_000;
        assertEquals(0, w.await(s, clock.now, 1_000_000));
        // Readings after looks 64 (6.4 us: the budget starts), 128 (12.8 us) and 192 (19.2 us: 12.8 us of it passed),
        // then the sleep for the rest of the bound, which ends with nothing; the reading after 64 more looks finds the
        // bound passed.
        assertEquals(257, s.log.size());
        assertEquals("block 980800", s.log.get(192));
        assertEquals(4, reads[0]);
        reads[0] = 0;
        FakeSteps data = new FakeSteps(clock, 0, 0, 6);
        assertEquals(6, w.await(data, clock.now, 1_000_000));
        assertEquals(0, reads[0], "answered at the third look: no clock read");
        // A socket's look is a syscall: the same mode reads the clock after each empty look.
        int[] socketReads = {0};
        Waiter socket = countingClockReads("spin:10us", false, socketReads);
        FakeSteps t = new FakeSteps(clock, 0, 0, 6);
        assertEquals(6, socket.await(t, clock.now, 1_000_000));
        assertEquals(2, socketReads[0]);
    }

    @Test
    void anUnstartedWaitCountsItsBoundFromItsFirstClockReading() throws Exception {
        int[] reads = {0};
        Waiter w = spinCountingClockReads(reads);
        FakeSteps s = new FakeSteps(clock);
        s.lookNanos = 100;
        assertEquals(0, w.await(s, Waiter.UNSTARTED, 10_000));
        // The start is read after look 64 (6.4 us); 19.2 us, after look 192, is the first reading past 6.4 + 10.
        assertEquals(192, s.log.size());
        assertEquals(3, reads[0]);
        FakeSteps soon = new FakeSteps(clock, 0, 3);
        reads[0] = 0;
        assertEquals(3, w.await(soon, Waiter.UNSTARTED, 10_000));
        assertEquals(0, reads[0], "answered at the second look: no clock read");

        Waiter budget = waiter("spin:3us");
        FakeSteps b = new FakeSteps(clock, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9);
        b.lookNanos = 1_000;
        b.sleepNanos = 50_000;
        assertEquals(9, budget.await(b, Waiter.UNSTARTED, 100_000));
        // Started at the first reading, 1 us in: a sleep at 4 us for the 97 us left, which wakes at
        // 54 us with nothing; a new budget (looks at 55 to 58 us), then a sleep for the 43 us left.
        assertEquals(List.of("poll", "poll", "poll", "poll", "block 97000", "poll", "poll", "poll", "poll",
                "block 43000"), b.log);

        FakeSteps sleeps = new FakeSteps(clock);
        sleeps.sleepNanos = 4_000;
        assertEquals(0, waiter("block").await(sleeps, Waiter.UNSTARTED, 10_000));
        assertEquals(List.of("block 10000", "block 6000", "block 2000"), sleeps.log, "block: started when it began");
    }

    @Test
    void aChannelLoopsSpinLooksUpToItsCountPerTurnAndEveryOtherModeAsOnce() throws Exception {
        Waiter spin = waiter("spin");
        FakeSteps s = new FakeSteps(clock, 0, 0, 0, 5);
        assertEquals(5, spin.once(s, Waiter.NO_BOUND, 64));
        assertEquals(4, s.log.size(), "it returns at the look that found something");
        FakeSteps none = new FakeSteps(clock);
        assertEquals(0, spin.once(none, Waiter.NO_BOUND, 64));
        assertEquals(64, none.log.size());
        FakeSteps backlog = new FakeSteps(clock);
        assertEquals(0, spin.once(backlog, 0, 64));
        assertEquals(List.of("poll"), backlog.log, "work waiting: one look");
        int[] reads = {0};
        Waiter budget = countingClockReads("spin:10us", true, reads);
        FakeSteps sb = new FakeSteps(clock);
        sb.lookNanos = 100;
        assertEquals(0, budget.once(sb, Waiter.NO_BOUND, 64));
        assertEquals(64, sb.log.size(), "spin:DURATION too looks up to its count");
        assertEquals(1, reads[0], "and reads the clock once, for its budget");
        assertEquals(0, budget.once(sb, Waiter.NO_BOUND, 64));
        assertEquals(0, budget.once(sb, Waiter.NO_BOUND, 64)); // 12.8 us since the budget began: it sleeps
        assertEquals(List.of("poll", "block -1"), sb.log.subList(191, 193));
        // Something found among the looks starts the budget again: no sleep 12.8 us after its first empty look.
        Waiter found = countingClockReads("spin:10us", true, reads);
        int[] work = new int[130];
        work[70] = 1;
        FakeSteps f = new FakeSteps(clock, work);
        f.lookNanos = 100;
        assertEquals(0, found.once(f, Waiter.NO_BOUND, 64)); // the budget starts at 6.4 us
        assertEquals(1, found.once(f, Waiter.NO_BOUND, 64)); // work at the 71st look
        assertEquals(0, found.once(f, Waiter.NO_BOUND, 64));
        assertEquals(0, found.once(f, Waiter.NO_BOUND, 64));
        assertEquals(199, f.log.size());
        assertTrue(f.log.stream().allMatch("poll"::equals), "a new budget from 13.5 us: no sleep by 19.9 us");
        FakeSteps b = new FakeSteps(clock, 2);
        assertEquals(2, waiter("block").once(b, 7_000, 64));
        assertEquals(List.of("block 7000"), b.log);
        FakeSteps y = new FakeSteps(clock, 0);
        assertEquals(0, waiter("yield").once(y, Waiter.NO_BOUND, 64));
        assertEquals(List.of("poll"), y.log);
        assertEquals(1, counters.snapshot().get(SyscallKind.SCHED_YIELD));
    }
}
