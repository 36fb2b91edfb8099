package org.sysframe.unix;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * The syscalls sysframe counts, by the kernel's names: glibc's {@code send} and {@code recv} enter the
 * kernel as {@code sendto} and {@code recvfrom}, so they are counted as those. The library makes the
 * kinds of {@link #LIBRARY} ({@code io_uring_enter} with the io_uring backends, {@code sched_yield}
 * when a wait mode yields between empty tries);
 * {@code read} and {@code write} are what other transports (JDK channels, jnr) use on sockets, so the
 * kernel counter counts them too when it measures those peers. {@code futex} is what a shared-memory
 * channel sleeps and wakes its peer with; it is not in {@link #LIBRARY} because the JVM itself enters
 * futex on any thread (safepoints, contended locks, parking): a kernel count of it is meaningful only
 * over a window where the thread runs nothing but the channel (ask for it with
 * {@link KernelSyscallCounter#forThread(int, java.util.Set)}). The JVM yields on a thread now and then
 * too (seen once over 19,500 short-lived callers: its table of resolved methods, as a method handle
 * was resolved), so a kernel count of {@code sched_yield} over a thread that runs more than the
 * library holds the library's rather than equals it.
 */
public enum SyscallKind {
    /** {@code sendto} (glibc's {@code send} enters the kernel as {@code sendto}). */
    SENDTO("sendto"),
    /** {@code recvfrom} (glibc's {@code recv} enters the kernel as {@code recvfrom}). */
    RECVFROM("recvfrom"),
    /** {@code sendmsg}: a send described by a {@code struct msghdr} (gathered buffers, ancillary data). */
    SENDMSG("sendmsg"),
    /** {@code recvmsg}: a receive described by a {@code struct msghdr} (scattered buffers, ancillary data). */
    RECVMSG("recvmsg"),
    /** {@code writev}: a write gathered from an iovec array. */
    WRITEV("writev"),
    /** {@code readv}: a read scattered into an iovec array. */
    READV("readv"),
    /** {@code epoll_wait}: a wait for ready descriptors ({@link Epoll#await}). */
    EPOLL_WAIT("epoll_wait"),
    /** {@code io_uring_enter}: submits to an io_uring and/or waits for its completions (the io_uring backends). */
    IO_URING_ENTER("io_uring_enter"),
    /** {@code sched_yield}: a wait mode yielding the CPU between empty tries. */
    SCHED_YIELD("sched_yield"),
    /** {@code read}: an {@link EventFd} take, or another transport's read of a socket. */
    READ("read"),
    /** {@code write}: an {@link EventFd} signal, or another transport's write to a socket. */
    WRITE("write"),
    /** {@code futex}: a shared-memory channel sleeping or waking its peer; not in {@link #LIBRARY}. */
    FUTEX("futex");

    private static final SyscallKind[] ALL = values();

    /** The kinds the library itself makes and counts. */
    public static final Set<SyscallKind> LIBRARY =
            Collections.unmodifiableSet(EnumSet.range(SENDTO, SCHED_YIELD));

    private final String kernelName;

    SyscallKind(String kernelName) {
        this.kernelName = kernelName;
    }

    /** The syscall's name in the kernel, e.g. {@code sendto}. */
    public String kernelName() { return kernelName; }

    /** The tracepoint that counts entries to it, e.g. {@code syscalls:sys_enter_sendto}. */
    public String tracepoint() { return "syscalls:sys_enter_" + kernelName; }

    static int count() { return ALL.length; }
}
