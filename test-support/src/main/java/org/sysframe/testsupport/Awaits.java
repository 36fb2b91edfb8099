package org.sysframe.testsupport;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/** Progress-based waits, bounded only as hang guards: nothing here asserts how long anything took. */
public final class Awaits {
    /** The default hang guard of a wait: long enough for a loaded 2-core machine, short of a test's own guard. */
    public static final Duration HANG_GUARD = Duration.ofSeconds(20);

    private Awaits() {}

    /** Waits until condition holds; fails with "hang guard: ..." if it does not within timeout. */
    public static void awaitUntil(BooleanSupplier condition, Duration timeout) {
        awaitUntil(condition, timeout, () -> "condition");
    }

    /** Waits until condition holds; fails naming what was awaited if it does not within timeout. */
    public static void awaitUntil(BooleanSupplier condition, Duration timeout, Supplier<String> what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("hang guard: no progress within " + timeout + ": " + what.get());
            }
            LockSupport.parkNanos(200_000);
        }
    }

    /**
     * Waits until value reads expected, then checks it once more as the assertion: the wait is the
     * hang guard, the equality is the outcome (same as {@code assertEquals(expected, value)} after it).
     */
    public static void awaitEquals(long expected, LongSupplier value, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (value.getAsLong() != expected && System.nanoTime() - deadline < 0) LockSupport.parkNanos(1_000_000);
        long actual = value.getAsLong();
        if (actual != expected) throw new AssertionError(what + " ==> expected: <" + expected + "> but was: <" + actual
                + ">");
    }
}
