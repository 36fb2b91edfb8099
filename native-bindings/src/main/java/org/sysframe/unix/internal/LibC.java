package org.sysframe.unix.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Every libc downcall sysframe makes, one {@code static final MethodHandle} each, built in one place,
 * each linked on its first call (a holder class per function): a client links only the dozen it uses,
 * not all of them, at its first connect.
 * Internal: not part of the API (the bindings' public classes wrap these calls with counting, EINTR
 * handling and exceptions); applications and other modules use those classes instead.
 *
 * <p>Each method takes, first, the errno capture segment of its caller; after a
 * call that returned -1, {@code Errno.read} holds the errno the call set. None of the handles is
 * {@code critical}: the blocking ones must let the JVM reach safepoints while they wait. These are raw
 * calls: no retries, no counting, no exceptions; {@code UnixSocket}, {@code Epoll} and
 * {@code KernelSyscallCounter} add those.
 *
 * <p>Raw addresses: the hot-path data arguments of send, recv and writev are passed as
 * {@code long} addresses, not segments, so that pointing into the middle of a buffer allocates no
 * slice object per call. The callers check bounds against the owning segment and keep it alive.
 */
public final class LibC {
    private LibC() {}

    /** Layout of the capture segment: {@code errno} only. */
    public static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    public static final long ERRNO_OFFSET =
            CAPTURE_LAYOUT.byteOffset(MemoryLayout.PathElement.groupElement("errno"));

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");

    private static MethodHandle errnoCall(String name, FunctionDescriptor fd, Linker.Option... extra) {
        Linker.Option[] options = new Linker.Option[extra.length + 1];
        options[0] = ERRNO;
        System.arraycopy(extra, 0, options, 1, extra.length);
        return LINKER.downcallHandle(symbol(name), fd, options);
    }

    private static MemorySegment symbol(String name) {
        return LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc has no symbol " + name));
    }

    private static FunctionDescriptor ints(int argc) {
        MemoryLayout[] args = new MemoryLayout[argc];
        Arrays.fill(args, JAVA_INT);
        return FunctionDescriptor.of(JAVA_INT, args);
    }

    private static final class Socket { static final MethodHandle H = errnoCall("socket", ints(3)); }
    private static final class Socketpair {
        static final MethodHandle H = errnoCall("socketpair",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
    }
    private static final class Bind {
        static final MethodHandle H = errnoCall("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    }
    private static final class Listen { static final MethodHandle H = errnoCall("listen", ints(2)); }
    private static final class Accept4 {
        static final MethodHandle H = errnoCall("accept4",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    }
    private static final class Connect {
        static final MethodHandle H = errnoCall("connect",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    }
    private static final class Close { static final MethodHandle H = errnoCall("close", ints(1)); }
    private static final class Shutdown { static final MethodHandle H = errnoCall("shutdown", ints(2)); }
    private static final class Unlink {
        static final MethodHandle H = errnoCall("unlink", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }
    private static final class Renameat2 {
        static final MethodHandle H = errnoCall("renameat2",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT));
    }
    private static final class Fchmodat {
        static final MethodHandle H = errnoCall("fchmodat",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    }
    private static final class Mkdtemp {
        static final MethodHandle H = errnoCall("mkdtemp", FunctionDescriptor.of(ADDRESS, ADDRESS));
    }
    // openat(int, const char *, int, ...): the mode is the first variadic argument.
    private static final class Openat {
        static final MethodHandle H = errnoCall("openat",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
                Linker.Option.firstVariadicArg(3));
    }
    private static final class Fstatat {
        static final MethodHandle H = errnoCall("fstatat",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    }
    private static final class Unlinkat {
        static final MethodHandle H = errnoCall("unlinkat",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    }
    private static final class Send {
        static final MethodHandle H = errnoCall("send",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
    }
    private static final class Recv {
        static final MethodHandle H = errnoCall("recv",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
    }
    private static final class Sendmsg {
        static final MethodHandle H = errnoCall("sendmsg",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    }
    private static final class Writev {
        static final MethodHandle H = errnoCall("writev",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));
    }
    private static final class Read {
        static final MethodHandle H = errnoCall("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    }
    private static final class Write {
        static final MethodHandle H = errnoCall("write",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    }
    private static final class Eventfd { static final MethodHandle H = errnoCall("eventfd", ints(2)); }
    // fcntl(int, int, ...) and ioctl(int, unsigned long, ...) are variadic: the third argument is the first variadic
    // one.
    private static final class Fcntl {
        static final MethodHandle H = errnoCall("fcntl", ints(3), Linker.Option.firstVariadicArg(2));
    }
    private static final class Ioctl {
        static final MethodHandle H = errnoCall("ioctl",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG), Linker.Option.firstVariadicArg(2));
    }
    private static final class Getsockopt {
        static final MethodHandle H = errnoCall("getsockopt",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    }
    private static final class Setsockopt {
        static final MethodHandle H = errnoCall("setsockopt",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    }
    private static final class EpollCreate1 { static final MethodHandle H = errnoCall("epoll_create1", ints(1)); }
    private static final class EpollCtl {
        static final MethodHandle H = errnoCall("epoll_ctl",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
    }
    private static final class EpollWait {
        static final MethodHandle H = errnoCall("epoll_wait",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    }
    // long syscall(long number, ...): all six possible arguments passed as longs, as the kernel reads registers.
    private static final class Syscall6 {
        static final MethodHandle H = errnoCall("syscall",
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
                Linker.Option.firstVariadicArg(1));
    }
    // long syscall(long number, ...) with six arguments (io_uring_enter takes six).
    private static final class Syscall7 {
        static final MethodHandle H = errnoCall("syscall",
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG), Linker.Option.firstVariadicArg(1));
    }
    private static final class Mmap {
        static final MethodHandle H = errnoCall("mmap",
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    }
    private static final class MemfdCreate {
        static final MethodHandle H = errnoCall("memfd_create", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    }
    private static final class Ftruncate {
        static final MethodHandle H = errnoCall("ftruncate", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG));
    }
    private static final class Lseek {
        static final MethodHandle H = errnoCall("lseek",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));
    }
    private static final class Recvmsg {
        static final MethodHandle H = errnoCall("recvmsg",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    }
    private static final class Munmap {
        static final MethodHandle H = errnoCall("munmap", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
    }
    private static final class SchedSetaffinity {
        static final MethodHandle H = errnoCall("sched_setaffinity",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS));
    }
    private static final class SchedGetaffinity {
        static final MethodHandle H = errnoCall("sched_getaffinity",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS));
    }
    private static final class SchedYield {
        static final MethodHandle H = LINKER.downcallHandle(symbol("sched_yield"), FunctionDescriptor.of(JAVA_INT));
    }
    private static final class SchedGetcpu {
        static final MethodHandle H = LINKER.downcallHandle(symbol("sched_getcpu"), FunctionDescriptor.of(JAVA_INT));
    }
    private static final class Gettid {
        static final MethodHandle H = LINKER.downcallHandle(symbol("gettid"), FunctionDescriptor.of(JAVA_INT));
    }
    private static final class Getpid {
        static final MethodHandle H = LINKER.downcallHandle(symbol("getpid"), FunctionDescriptor.of(JAVA_INT));
    }
    private static final class Getuid {
        static final MethodHandle H = LINKER.downcallHandle(symbol("getuid"), FunctionDescriptor.of(JAVA_INT));
    }
    private static final class Geteuid {
        static final MethodHandle H = LINKER.downcallHandle(symbol("geteuid"), FunctionDescriptor.of(JAVA_INT));
    }
    private static final class Strerror {
        static final MethodHandle H = LINKER.downcallHandle(symbol("strerror"),
                FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    public static int socket(MemorySegment cs, int domain, int type, int protocol) {
        try { return (int) Socket.H.invokeExact(cs, domain, type, protocol); } catch (Throwable t) { throw rethrow(t); }
    }

    public static int socketpair(MemorySegment cs, int domain, int type, int protocol, MemorySegment sv) {
        try {
            return (int) Socketpair.H.invokeExact(cs, domain, type, protocol, sv);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int bind(MemorySegment cs, int fd, MemorySegment addr, int len) {
        try { return (int) Bind.H.invokeExact(cs, fd, addr, len); } catch (Throwable t) { throw rethrow(t); }
    }

    public static int listen(MemorySegment cs, int fd, int backlog) {
        try { return (int) Listen.H.invokeExact(cs, fd, backlog); } catch (Throwable t) { throw rethrow(t); }
    }

    public static int accept4(MemorySegment cs, int fd, MemorySegment addr, MemorySegment addrLen, int flags) {
        try {
            return (int) Accept4.H.invokeExact(cs, fd, addr, addrLen, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int connect(MemorySegment cs, int fd, MemorySegment addr, int len) {
        try { return (int) Connect.H.invokeExact(cs, fd, addr, len); } catch (Throwable t) { throw rethrow(t); }
    }

    public static int close(MemorySegment cs, int fd) {
        try { return (int) Close.H.invokeExact(cs, fd); } catch (Throwable t) { throw rethrow(t); }
    }

    public static int shutdown(MemorySegment cs, int fd, int how) {
        try { return (int) Shutdown.H.invokeExact(cs, fd, how); } catch (Throwable t) { throw rethrow(t); }
    }

    public static int unlink(MemorySegment cs, MemorySegment path) {
        try { return (int) Unlink.H.invokeExact(cs, path); } catch (Throwable t) { throw rethrow(t); }
    }

    /** renameat2(2): flags such as RENAME_NOREPLACE (1) make the rename fail rather than replace. */
    public static int renameat2(MemorySegment cs, int oldDirFd, MemorySegment oldPath, int newDirFd,
            MemorySegment newPath, int flags) {
        try {
            return (int) Renameat2.H.invokeExact(cs, oldDirFd, oldPath, newDirFd, newPath, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * fchmodat(2): the mode of name relative to the directory dirFd (flags 0: Linux has no AT_SYMLINK_NOFOLLOW here).
     */
    public static int fchmodat(MemorySegment cs, int dirFd, MemorySegment name, int mode, int flags) {
        try {
            return (int) Fchmodat.H.invokeExact(cs, dirFd, name, mode, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * mkdtemp(3): turns the template's trailing XXXXXX into a fresh directory of mode 0700, in place; NULL on failure.
     */
    public static MemorySegment mkdtemp(MemorySegment cs, MemorySegment template) {
        try { return (MemorySegment) Mkdtemp.H.invokeExact(cs, template); } catch (Throwable t) { throw rethrow(t); }
    }

    public static int openat(MemorySegment cs, int dirFd, MemorySegment path, int flags, int mode) {
        try {
            return (int) Openat.H.invokeExact(cs, dirFd, path, flags, mode);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** fstatat(2) into a {@code struct stat} ({@code FileStat.LAYOUT}). */
    public static int fstatat(MemorySegment cs, int dirFd, MemorySegment path, MemorySegment stat, int flags) {
        try {
            return (int) Fstatat.H.invokeExact(cs, dirFd, path, stat, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** unlinkat(2); flags AT_REMOVEDIR (0x200) removes an empty directory. */
    public static int unlinkat(MemorySegment cs, int dirFd, MemorySegment path, int flags) {
        try { return (int) Unlinkat.H.invokeExact(cs, dirFd, path, flags); } catch (Throwable t) { throw rethrow(t); }
    }

    /** send(2) of len bytes at the raw address buf (see the class comment on raw addresses). */
    public static long send(MemorySegment cs, int fd, long buf, long len, int flags) {
        try { return (long) Send.H.invokeExact(cs, fd, buf, len, flags); } catch (Throwable t) { throw rethrow(t); }
    }

    public static long recv(MemorySegment cs, int fd, long buf, long len, int flags) {
        try { return (long) Recv.H.invokeExact(cs, fd, buf, len, flags); } catch (Throwable t) { throw rethrow(t); }
    }

    public static long sendmsg(MemorySegment cs, int fd, MemorySegment msg, int flags) {
        try { return (long) Sendmsg.H.invokeExact(cs, fd, msg, flags); } catch (Throwable t) { throw rethrow(t); }
    }

    public static long writev(MemorySegment cs, int fd, long iov, int iovcnt) {
        try { return (long) Writev.H.invokeExact(cs, fd, iov, iovcnt); } catch (Throwable t) { throw rethrow(t); }
    }

    public static long read(MemorySegment cs, int fd, MemorySegment buf, long len) {
        try { return (long) Read.H.invokeExact(cs, fd, buf, len); } catch (Throwable t) { throw rethrow(t); }
    }

    public static long write(MemorySegment cs, int fd, MemorySegment buf, long len) {
        try { return (long) Write.H.invokeExact(cs, fd, buf, len); } catch (Throwable t) { throw rethrow(t); }
    }

    public static int eventfd(MemorySegment cs, int initval, int flags) {
        try { return (int) Eventfd.H.invokeExact(cs, initval, flags); } catch (Throwable t) { throw rethrow(t); }
    }

    public static int fcntl(MemorySegment cs, int fd, int cmd, int arg) {
        try { return (int) Fcntl.H.invokeExact(cs, fd, cmd, arg); } catch (Throwable t) { throw rethrow(t); }
    }

    public static int ioctl(MemorySegment cs, int fd, long request, long arg) {
        try { return (int) Ioctl.H.invokeExact(cs, fd, request, arg); } catch (Throwable t) { throw rethrow(t); }
    }

    public static int getsockopt(MemorySegment cs, int fd, int level, int name, MemorySegment val, MemorySegment len) {
        try {
            return (int) Getsockopt.H.invokeExact(cs, fd, level, name, val, len);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int setsockopt(MemorySegment cs, int fd, int level, int name, MemorySegment val, int len) {
        try {
            return (int) Setsockopt.H.invokeExact(cs, fd, level, name, val, len);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int epollCreate1(MemorySegment cs, int flags) {
        try { return (int) EpollCreate1.H.invokeExact(cs, flags); } catch (Throwable t) { throw rethrow(t); }
    }

    public static int epollCtl(MemorySegment cs, int epfd, int op, int fd, MemorySegment event) {
        try { return (int) EpollCtl.H.invokeExact(cs, epfd, op, fd, event); } catch (Throwable t) { throw rethrow(t); }
    }

    public static int epollWait(MemorySegment cs, int epfd, MemorySegment events, int max, int timeoutMs) {
        try {
            return (int) EpollWait.H.invokeExact(cs, epfd, events, max, timeoutMs);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static long syscall(MemorySegment cs, long nr, long a1, long a2, long a3, long a4, long a5) {
        try {
            return (long) Syscall6.H.invokeExact(cs, nr, a1, a2, a3, a4, a5);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** syscall(2) with six arguments, for io_uring_enter; the hot path of the io_uring backends. */
    public static long syscall(MemorySegment cs, long nr, long a1, long a2, long a3, long a4, long a5, long a6) {
        try {
            return (long) Syscall7.H.invokeExact(cs, nr, a1, a2, a3, a4, a5, a6);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** mmap(2): the mapped address, or -1 (MAP_FAILED) with errno set. */
    public static long mmap(MemorySegment cs, long addr, long len, int prot, int flags, int fd, long offset) {
        try {
            return (long) Mmap.H.invokeExact(cs, addr, len, prot, flags, fd, offset);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** memfd_create(2): an anonymous file's descriptor, or -1. */
    public static int memfdCreate(MemorySegment cs, MemorySegment name, int flags) {
        try { return (int) MemfdCreate.H.invokeExact(cs, name, flags); } catch (Throwable t) { throw rethrow(t); }
    }

    public static int ftruncate(MemorySegment cs, int fd, long length) {
        try { return (int) Ftruncate.H.invokeExact(cs, fd, length); } catch (Throwable t) { throw rethrow(t); }
    }

    public static long lseek(MemorySegment cs, int fd, long offset, int whence) {
        try { return (long) Lseek.H.invokeExact(cs, fd, offset, whence); } catch (Throwable t) { throw rethrow(t); }
    }

    public static long recvmsg(MemorySegment cs, int fd, MemorySegment msg, int flags) {
        try { return (long) Recvmsg.H.invokeExact(cs, fd, msg, flags); } catch (Throwable t) { throw rethrow(t); }
    }

    public static int munmap(MemorySegment cs, long addr, long len) {
        try { return (int) Munmap.H.invokeExact(cs, addr, len); } catch (Throwable t) { throw rethrow(t); }
    }

    /** sched_setaffinity(2); pid 0 is the calling thread. */
    public static int schedSetaffinity(MemorySegment cs, int pid, long size, MemorySegment mask) {
        try {
            return (int) SchedSetaffinity.H.invokeExact(cs, pid, size, mask);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int schedGetaffinity(MemorySegment cs, int pid, long size, MemorySegment mask) {
        try {
            return (int) SchedGetaffinity.H.invokeExact(cs, pid, size, mask);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** sched_yield(2): always succeeds on Linux. */
    public static int schedYield() {
        try { return (int) SchedYield.H.invokeExact(); } catch (Throwable t) { throw rethrow(t); }
    }

    /** The CPU the calling thread runs on now (glibc reads it without a syscall where the vDSO allows). */
    public static int schedGetcpu() {
        try { return (int) SchedGetcpu.H.invokeExact(); } catch (Throwable t) { throw rethrow(t); }
    }

    /** The calling thread's kernel thread id. */
    public static int gettid() {
        try { return (int) Gettid.H.invokeExact(); } catch (Throwable t) { throw rethrow(t); }
    }

    public static int getpid() {
        try { return (int) Getpid.H.invokeExact(); } catch (Throwable t) { throw rethrow(t); }
    }

    public static int getuid() {
        try { return (int) Getuid.H.invokeExact(); } catch (Throwable t) { throw rethrow(t); }
    }

    public static int geteuid() {
        try { return (int) Geteuid.H.invokeExact(); } catch (Throwable t) { throw rethrow(t); }
    }

    /** strerror text; only called on error paths and cached by {@code Errno}. */
    public static String strerror(int errno) {
        try {
            MemorySegment s = (MemorySegment) Strerror.H.invokeExact(errno);
            return s.reinterpret(1024).getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** A capture segment for a caller that has no owner of its own (slow paths): auto-freed. */
    public static MemorySegment newCallState(Arena arena) {
        return arena.allocate(CAPTURE_LAYOUT);
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) return r;
        if (t instanceof Error e) throw e;
        return new IllegalStateException("unexpected checked exception from a downcall", t);
    }
}
