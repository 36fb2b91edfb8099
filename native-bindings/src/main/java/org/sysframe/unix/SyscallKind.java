package org.sysframe.unix;

/**
 * The syscalls sysframe counts, by the kernel's names: glibc's {@code send} and {@code recv} enter the
 * kernel as {@code sendto} and {@code recvfrom}, so they are counted as those.
 */
public enum SyscallKind {
    SENDTO("sendto"),
    RECVFROM("recvfrom"),
    SENDMSG("sendmsg"),
    RECVMSG("recvmsg"),
    WRITEV("writev"),
    READV("readv"),
    EPOLL_WAIT("epoll_wait");

    private static final SyscallKind[] ALL = values();

    private final String kernelName;

    SyscallKind(String kernelName) {
        this.kernelName = kernelName;
    }

    /** The syscall's name in the kernel, e.g. {@code sendto}. */
    public String kernelName() { return kernelName; }

    /** The tracepoint that counts entries to it, e.g. {@code syscalls:sys_enter_sendto}. */
    public String tracepoint() { return "syscalls:sys_enter_" + kernelName; }

    static SyscallKind of(int ordinal) { return ALL[ordinal]; }

    static int count() { return ALL.length; }
}
