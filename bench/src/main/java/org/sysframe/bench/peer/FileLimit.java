package org.sysframe.bench.peer;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * This process's limit of open files (RLIMIT_NOFILE), raised from its soft value to its hard one: the
 * processes the bench starts inherit it (the C client raises its own too, the C server does not, a
 * child JVM does as HotSpot does at start, {@code -XX:+MaxFDLimit}). The project's native bindings have
 * no rlimit call, so this is the bench's own downcall, as {@link ThreadClock} is.
 *
 * @param before the soft limit found
 * @param soft   the soft limit now
 * @param hard   the hard limit (only root raises it)
 * @param failure why raising failed, or null
 */
public record FileLimit(long before, long soft, long hard, String failure) {
    /** RLIMIT_NOFILE on Linux (asm-generic/resource.h, every architecture the bench runs on). */
    static final int RLIMIT_NOFILE = 7;
    /** rlim_t's "no limit" (RLIM_INFINITY): all bits set. */
    static final long INFINITY = -1L;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final FunctionDescriptor RLIMIT_CALL = FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS);
    private static final MethodHandle GETRLIMIT =
            LINKER.downcallHandle(LINKER.defaultLookup().find("getrlimit").orElseThrow(), RLIMIT_CALL);
    private static final MethodHandle SETRLIMIT =
            LINKER.downcallHandle(LINKER.defaultLookup().find("setrlimit").orElseThrow(), RLIMIT_CALL);

    /** The limits as they are: {cur, max}. */
    static long[] read() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment rl = a.allocate(JAVA_LONG, 2);
            int r = (int) GETRLIMIT.invokeExact(RLIMIT_NOFILE, rl);
            if (r != 0) throw new IllegalStateException("getrlimit(RLIMIT_NOFILE) failed");
            return new long[] {rl.getAtIndex(JAVA_LONG, 0), rl.getAtIndex(JAVA_LONG, 1)};
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Raises the soft limit to the hard one when it is below it; says what it found and what it got. */
    public static synchronized FileLimit raise() {
        long[] now = read();
        if (now[0] == now[1]) return new FileLimit(now[0], now[0], now[1], null);
        String failure = null;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment rl = a.allocate(JAVA_LONG, 2);
            rl.setAtIndex(JAVA_LONG, 0, now[1]);
            rl.setAtIndex(JAVA_LONG, 1, now[1]);
            int r = (int) SETRLIMIT.invokeExact(RLIMIT_NOFILE, rl);
            if (r != 0) failure = "setrlimit(RLIMIT_NOFILE) failed";
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        long[] after = read();
        return new FileLimit(now[0], after[0], after[1], failure);
    }

    /** The soft limit as a count; {@link Long#MAX_VALUE} for no limit. */
    public long descriptors() { return soft == INFINITY ? Long.MAX_VALUE : soft; }

    /** Whether n connections and spare more descriptors fit in one process. */
    public boolean fits(long n, long spare) { return n + spare <= descriptors(); }

    private static String number(long v) { return v == INFINITY ? "unlimited" : String.format(Locale.ROOT, "%d", v); }

    /**
     * e.g. {@code open files (RLIMIT_NOFILE): 20000 per process (the soft limit was the hard one already:
     * HotSpot raises it at start, -XX:+MaxFDLimit); ...}, or
     * {@code ... (soft raised from 1024 to the hard limit); ...}.
     */
    public String describe() {
        String how = failure != null ? "soft " + number(before) + ", not raised to the hard " + number(hard) + ": "
                + failure
                : before == soft
                        ? "the soft limit was the hard one already: HotSpot raises it at start, -XX:+MaxFDLimit"
                : "soft raised from " + number(before) + " to the hard limit";
        return "open files (RLIMIT_NOFILE): " + number(soft) + " per process (" + how
                + "); the processes the bench starts inherit it";
    }
}
