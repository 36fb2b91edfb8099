package org.sysframe.bench.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The cost of one non-blocking send and recv downcall on a socketpair (send 1 byte, receive it:
 * two syscalls per op), linked four ways: plain, with errno captured (what sysframe uses), critical,
 * and critical with errno captured. Also sysframe's UnixSocket path (capture + counting + checks), and
 * the transition alone on labs(3), which makes no syscall.
 * Critical is only legal here because MSG_DONTWAIT calls never block.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class DowncallBenchmark {
    private static final int MSG_DONTWAIT = 0x40;
    private static final FunctionDescriptor IO =
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT);
    private static final Linker L = Linker.nativeLinker();
    private static final MemorySegment SEND = L.defaultLookup().find("send").orElseThrow();
    private static final MemorySegment RECV = L.defaultLookup().find("recv").orElseThrow();
    private static final Linker.Option CAPTURE = Linker.Option.captureCallState("errno");
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);

    private static final MethodHandle SEND_PLAIN = L.downcallHandle(SEND, IO);
    private static final MethodHandle RECV_PLAIN = L.downcallHandle(RECV, IO);
    private static final MethodHandle SEND_ERRNO = L.downcallHandle(SEND, IO, CAPTURE);
    private static final MethodHandle RECV_ERRNO = L.downcallHandle(RECV, IO, CAPTURE);
    private static final MethodHandle SEND_CRIT = L.downcallHandle(SEND, IO, CRITICAL);
    private static final MethodHandle RECV_CRIT = L.downcallHandle(RECV, IO, CRITICAL);
    private static final MethodHandle SEND_CRIT_ERRNO = L.downcallHandle(SEND, IO, CRITICAL, CAPTURE);
    private static final MethodHandle RECV_CRIT_ERRNO = L.downcallHandle(RECV, IO, CRITICAL, CAPTURE);

    // labs(3) does no syscall: these three show the transition cost alone.
    private static final FunctionDescriptor LABS_FD = FunctionDescriptor.of(JAVA_LONG, JAVA_LONG);
    private static final MemorySegment LABS = L.defaultLookup().find("labs").orElseThrow();
    private static final MethodHandle LABS_PLAIN = L.downcallHandle(LABS, LABS_FD);
    private static final MethodHandle LABS_ERRNO = L.downcallHandle(LABS, LABS_FD, CAPTURE);
    private static final MethodHandle LABS_CRIT = L.downcallHandle(LABS, LABS_FD, CRITICAL);

    private Arena arena;
    private long value = -42;
    private UnixSocket[] pair;
    private int a;
    private int b;
    private MemorySegment buf;
    private long addr;
    private MemorySegment errno;

    @Setup
    public void setup() throws Exception {
        arena = Arena.ofConfined();
        pair = UnixSocket.pair();
        a = pair[0].fd();
        b = pair[1].fd();
        buf = arena.allocate(64);
        addr = buf.address();
        errno = arena.allocate(Linker.Option.captureStateLayout());
    }

    @TearDown
    public void tearDown() {
        pair[0].close();
        pair[1].close();
        arena.close();
    }

    @Benchmark
    public long plain() throws Throwable {
        long s = (long) SEND_PLAIN.invokeExact(a, addr, 1L, MSG_DONTWAIT);
        return s + (long) RECV_PLAIN.invokeExact(b, addr, 64L, MSG_DONTWAIT);
    }

    @Benchmark
    public long errnoCaptured() throws Throwable {
        long s = (long) SEND_ERRNO.invokeExact(errno, a, addr, 1L, MSG_DONTWAIT);
        return s + (long) RECV_ERRNO.invokeExact(errno, b, addr, 64L, MSG_DONTWAIT);
    }

    @Benchmark
    public long critical() throws Throwable {
        long s = (long) SEND_CRIT.invokeExact(a, addr, 1L, MSG_DONTWAIT);
        return s + (long) RECV_CRIT.invokeExact(b, addr, 64L, MSG_DONTWAIT);
    }

    @Benchmark
    public long criticalErrnoCaptured() throws Throwable {
        long s = (long) SEND_CRIT_ERRNO.invokeExact(errno, a, addr, 1L, MSG_DONTWAIT);
        return s + (long) RECV_CRIT_ERRNO.invokeExact(errno, b, addr, 64L, MSG_DONTWAIT);
    }

    @Benchmark
    public long transitionOnlyPlain() throws Throwable {
        return (long) LABS_PLAIN.invokeExact(value);
    }

    @Benchmark
    public long transitionOnlyErrnoCaptured() throws Throwable {
        return (long) LABS_ERRNO.invokeExact(errno, value);
    }

    @Benchmark
    public long transitionOnlyCritical() throws Throwable {
        return (long) LABS_CRIT.invokeExact(value);
    }

    @Benchmark
    public long sysframeUnixSocket() throws Exception {
        long s = pair[0].send(buf, 0, 1, MSG_DONTWAIT);
        return s + pair[1].recv(buf, 0, 64, MSG_DONTWAIT);
    }
}
