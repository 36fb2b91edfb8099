package org.sysframe.unix;

import org.sysframe.unix.internal.LibC;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Reference;
import java.util.Arrays;
import java.util.Objects;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * An AF_UNIX stream socket: its file descriptor, its own errno capture segment and the counters its
 * data calls go to.
 *
 * <p>Data calls ({@link #send}, {@link #recv}, {@link #sendmsg}, {@link #writev}) are counted in {@link #counters()} on
 * every return, retry EINTR (each attempt is a syscall and is counted), return {@link #WOULD_BLOCK} for EAGAIN, and
 * throw {@link ErrnoException} for anything else. They are meant for one thread at a time (the owner). {@link #close()}
 * may be called from any thread, any number of times: the descriptor is closed exactly once.
 */
public final class UnixSocket implements AutoCloseable {
    /** Returned by data calls when a non-blocking socket (or a receive timeout) has nothing to give. */
    public static final long WOULD_BLOCK = -1;

    /** SOCK_STREAM: the socket type of a connected, reliable byte stream. */
    public static final int SOCK_STREAM = 1;
    /** SOCK_NONBLOCK: the new descriptor is non-blocking (O_NONBLOCK). */
    public static final int SOCK_NONBLOCK = 0x800;
    /** SOCK_CLOEXEC: the new descriptor is closed on exec (FD_CLOEXEC). */
    public static final int SOCK_CLOEXEC = 0x80000;
    /** MSG_DONTWAIT: this one call does not block; EAGAIN (here {@link #WOULD_BLOCK}) instead. */
    public static final int MSG_DONTWAIT = 0x40;
    /** MSG_NOSIGNAL: a send to a closed peer gives EPIPE, not SIGPIPE. */
    public static final int MSG_NOSIGNAL = 0x4000;
    /** MSG_WAITALL: a receive waits for all len bytes; on an io_uring SEND, a short send counts as failed. */
    public static final int MSG_WAITALL = 0x100;
    static final int SOL_SOCKET = 1;
    static final int SO_SNDBUF = 7;
    static final int SO_RCVBUF = 8;
    static final int SO_PEERCRED = 17;
    static final int SO_RCVTIMEO = 20;
    static final int SO_SNDTIMEO = 21;
    static final int SHUT_RDWR = 2;
    static final int F_GETFL = 3;
    static final int F_SETFL = 4;
    static final int O_NONBLOCK = 0x800;

    private static final VarHandle FD;
    static {
        try {
            FD = MethodHandles.lookup().findVarHandle(UnixSocket.class, "fd", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // accessed through FD
    private volatile int fd;
    private final String name;
    private final MemorySegment callState;
    private final MemorySegment timeval = Arena.ofAuto().allocate(16, 8);
    private final SyscallCounters counters;
    private final SocketFile.Id boundFile;

    /**
     * Wraps an open descriptor. The capture segment comes from an automatic arena: it is 4 bytes, and
     * being GC-freed it stays valid for a call that is still returning when another thread closes.
     */
    public UnixSocket(int fd, String name, SyscallCounters counters) {
        this(fd, name, counters, null);
    }

    private UnixSocket(int fd, String name, SyscallCounters counters, SocketFile.Id boundFile) {
        if (fd < 0) throw new IllegalArgumentException("fd " + fd);
        this.fd = fd;
        this.name = name;
        this.counters = Objects.requireNonNull(counters);
        this.callState = Errno.newCallState(Arena.ofAuto());
        this.boundFile = boundFile;
    }

    /** Connects a blocking socket to path (see {@link SockaddrUn} for abstract names). */
    public static UnixSocket connect(String path) throws ErrnoException {
        return connect(path, new SyscallCounters("client " + path));
    }

    /** Connects a blocking socket to path, its calls counted in counters; no connect timeout. */
    public static UnixSocket connect(String path, SyscallCounters counters) throws ErrnoException {
        return connect(path, counters, 0);
    }

    /**
     * As {@link #connect(String, SyscallCounters)}, giving up after timeoutMillis (0: never) when the
     * listener's backlog is full (a server that does not accept): ETIMEDOUT. The socket's SO_SNDTIMEO
     * is timeoutMillis afterwards (set it again for the sends).
     */
    public static UnixSocket connect(String path, SyscallCounters counters, long timeoutMillis) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            SockaddrUn.Address sa = SockaddrUn.of(a, path);
            int fd = LibC.socket(cs, SockaddrUn.AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            if (fd < 0) throw new ErrnoException("socket(AF_UNIX)", Errno.read(cs));
            int rc;
            try {
                if (timeoutMillis > 0) setTimeout(a.allocate(16, 8), cs, fd, path, SO_SNDTIMEO, "SO_SNDTIMEO",
                        timeoutMillis);
            } catch (ErrnoException e) {
                LibC.close(cs, fd);
                throw e;
            }
            do {
                rc = LibC.connect(cs, fd, sa.segment(), sa.length());
            } while (rc < 0 && Errno.read(cs) == Errno.EINTR);
            if (rc < 0) {
                int err = Errno.read(cs);
                LibC.close(cs, fd);
                if (err == Errno.EAGAIN && timeoutMillis > 0) {
                    throw new ErrnoException("connect(" + path + ")", Errno.ETIMEDOUT,
                            "the server accepted no connection within the connect timeout of "
                            + timeoutMillis
                                    + " ms (its listen backlog is full: it does not accept, or not fast enough)");
                }
                throw new ErrnoException("connect(" + path + ")", err);
            }
            return new UnixSocket(fd, path, counters);
        }
    }

    /**
     * Binds path, sets its file mode (ignored for abstract names; -1 keeps the umask's), and listens.
     *
     * <p>With a mode, the socket never has a wider mode at path than asked, and the mode is never set
     * through a path another user can change: it is bound, given its mode and made to listen inside a
     * fresh private directory (0700) beside path, then moved to path with renameat2(RENAME_NOREPLACE),
     * which never replaces what is there; path is then checked to hold that socket with that mode
     * ({@link SocketFile#bindPrivately}; {@link #boundFile()} is its identity). Anything that appeared at
     * path meanwhile is left as it is and the call fails with one line saying what is there.
     * The socket's own address ({@code getsockname}) is then the private directory's, not path.
     */
    public static UnixSocket listen(String path, int mode, int backlog, boolean nonBlocking) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            SockaddrUn.Address sa = SockaddrUn.of(a, path);
            int fd = LibC.socket(cs, SockaddrUn.AF_UNIX,
                    SOCK_STREAM | SOCK_CLOEXEC | (nonBlocking ? SOCK_NONBLOCK : 0), 0);
            if (fd < 0) throw new ErrnoException("socket(AF_UNIX)", Errno.read(cs));
            SocketFile.Id file = null;
            try {
                if (!sa.isAbstract() && mode >= 0) {
                    file = SocketFile.bindPrivately(fd, path, mode, backlog);
                } else {
                    if (LibC.bind(cs, fd, sa.segment(), sa.length()) < 0) throw new ErrnoException("bind(" + path
                            + ")", Errno.read(cs));
                    if (LibC.listen(cs, fd, backlog) < 0) throw new ErrnoException("listen(" + path + ")",
                            Errno.read(cs));
                    if (!sa.isAbstract()) file = SocketFile.socketAt(path);
                }
            } catch (ErrnoException | RuntimeException e) {
                LibC.close(cs, fd);
                throw e;
            }
            return new UnixSocket(fd, path, new SyscallCounters("listener " + path), file);
        }
    }

    /** A connected pair of blocking sockets ({@code socketpair(AF_UNIX, SOCK_STREAM)}). */
    public static UnixSocket[] pair() throws ErrnoException {
        return pair(new SyscallCounters("pair[0]"), new SyscallCounters("pair[1]"));
    }

    /** As {@link #pair()}, the two sockets' calls counted in first and second. */
    public static UnixSocket[] pair(SyscallCounters first, SyscallCounters second) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            MemorySegment sv = a.allocate(JAVA_INT, 2);
            if (LibC.socketpair(cs, SockaddrUn.AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
                throw new ErrnoException("socketpair(AF_UNIX)", Errno.read(cs));
            }
            return new UnixSocket[] {
                new UnixSocket(sv.getAtIndex(JAVA_INT, 0), "pair[0]", first),
                new UnixSocket(sv.getAtIndex(JAVA_INT, 1), "pair[1]", second),
            };
        }
    }

    /**
     * Accepts one connection, non-blocking and close-on-exec; null when none is pending on a
     * non-blocking listener.
     */
    public UnixSocket accept(SyscallCounters counters) throws ErrnoException {
        int lfd = fd();
        while (true) {
            int c = LibC.accept4(callState, lfd, MemorySegment.NULL, MemorySegment.NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (c >= 0) return new UnixSocket(c, name + "#" + c, counters);
            int err = Errno.read(callState);
            if (err == Errno.EINTR || err == Errno.ECONNABORTED) continue;
            if (err == Errno.EAGAIN) return null;
            throw new ErrnoException("accept4(" + name + ")", err);
        }
    }

    /** send(2) of len bytes of seg at offset; always with MSG_NOSIGNAL (a closed peer gives EPIPE, not a signal). */
    public long send(MemorySegment seg, long offset, long len, int flags) throws ErrnoException {
        long addr = NativeAddress.of(seg, offset, len);
        try {
            long n;
            do {
                n = outcome(LibC.send(callState, fd(), addr, len, flags | MSG_NOSIGNAL), SyscallKind.SENDTO, "send");
            } while (n == RETRY);
            return n;
        } finally {
            Reference.reachabilityFence(seg);
        }
    }

    /** recv(2) of at most len bytes into seg at offset; 0 means the peer closed its end. */
    public long recv(MemorySegment seg, long offset, long len, int flags) throws ErrnoException {
        long addr = NativeAddress.of(seg, offset, len);
        try {
            long n;
            do {
                n = outcome(LibC.recv(callState, fd(), addr, len, flags), SyscallKind.RECVFROM, "recv");
            } while (n == RETRY);
            return n;
        } finally {
            Reference.reachabilityFence(seg);
        }
    }

    /** sendmsg(2) of the pending entries of iov, with MSG_NOSIGNAL; does not advance it. */
    public long sendmsg(IovArray iov, int flags) throws ErrnoException {
        MemorySegment msg = iov.pendingMsghdr();
        long n;
        do {
            n = outcome(LibC.sendmsg(callState, fd(), msg, flags | MSG_NOSIGNAL), SyscallKind.SENDMSG, "sendmsg");
        } while (n == RETRY);
        return n;
    }

    /** writev(2) of the pending entries of iov; does not advance it. */
    public long writev(IovArray iov) throws ErrnoException {
        long n;
        do {
            n = outcome(LibC.writev(callState, fd(), iov.pendingAddress(), iov.pending()), SyscallKind.WRITEV,
                    "writev");
        } while (n == RETRY);
        return n;
    }

    private static final long RETRY = -2;

    /**
     * Counts one returned data call and sorts its result: the byte count, {@link #WOULD_BLOCK} for
     * EAGAIN, {@link #RETRY} for EINTR (the call may be restarted), an exception for anything else.
     */
    private long outcome(long n, SyscallKind kind, String call) throws ErrnoException {
        counters.increment(kind);
        if (n >= 0) return n;
        int err = Errno.read(callState);
        if (err == Errno.EINTR) return RETRY;
        if (err == Errno.EAGAIN) {
            counters.incrementEmpty(kind);
            return WOULD_BLOCK;
        }
        throw new ErrnoException(call + "(" + name + ")", err);
    }

    /**
     * Sends len bytes with as many send calls as it takes, until all are out or a non-blocking socket
     * is full; returns the bytes sent.
     */
    public long sendUntilFull(MemorySegment seg, long offset, long len) throws ErrnoException {
        long done = 0;
        while (done < len) {
            long n = send(seg, offset + done, len - done, 0);
            if (n == WOULD_BLOCK) break;
            done += n;
        }
        return done;
    }

    /** Sends all len bytes, blocking; a would-block on a non-blocking socket is an error here. */
    public void sendFully(MemorySegment seg, long offset, long len) throws ErrnoException {
        if (sendUntilFull(seg, offset, len) < len) throw new ErrnoException("send(" + name + ")", Errno.EAGAIN);
    }

    static final int SCM_RIGHTS = 1;
    static final int MSG_CTRUNC = 0x8;
    static final int MSG_CMSG_CLOEXEC = 0x40000000;
    private static final long CMSG_HEADER = 16;       // struct cmsghdr { size_t len; int level; int type; }
    /** The most descriptors {@link #sendFds} passes at once. */
    public static final int MAX_FDS = 8;
    private static final long CONTROL_ROOM = 128;     // a receiver's room for the descriptors a hostile peer may attach

    /**
     * Sends len bytes of seg at offset (at least 1) with the descriptors passFds attached, in their order
     * (one sendmsg with one SCM_RIGHTS control message, MSG_NOSIGNAL), blocking; returns the bytes sent
     * (the descriptors travel with the first of them). Counted as one sendmsg.
     */
    public long sendFds(MemorySegment seg, long offset, long len, int... passFds) throws ErrnoException {
        if (len < 1) throw new IllegalArgumentException("a descriptor travels with at least one byte");
        if (passFds.length < 1 || passFds.length > MAX_FDS) {
            throw new IllegalArgumentException(passFds.length + " descriptors: 1 to " + MAX_FDS + " travel at once");
        }
        long addr = NativeAddress.of(seg, offset, len);
        long cmsgLen = CMSG_HEADER + 4L * passFds.length; // CMSG_LEN
        long cmsgSpace = (cmsgLen + 7) & ~7L;             // CMSG_SPACE
        try (Arena a = Arena.ofConfined()) {
            MemorySegment iov = a.allocate(16, 8);
            iov.set(JAVA_LONG, 0, addr);
            iov.set(JAVA_LONG, 8, len);
            MemorySegment control = a.allocate(cmsgSpace, 8);
            control.set(JAVA_LONG, 0, cmsgLen);
            control.set(JAVA_INT, 8, SOL_SOCKET);
            control.set(JAVA_INT, 12, SCM_RIGHTS);
            for (int i = 0; i < passFds.length; i++) control.set(JAVA_INT, CMSG_HEADER + 4L * i, passFds[i]);
            MemorySegment msg = a.allocate(IovArray.MSGHDR);
            msg.set(JAVA_LONG, 16, iov.address());
            msg.set(JAVA_LONG, 24, 1);
            msg.set(JAVA_LONG, 32, control.address());
            msg.set(JAVA_LONG, 40, cmsgSpace);
            long n;
            do {
                n = outcome(LibC.sendmsg(callState, fd(), msg, MSG_NOSIGNAL), SyscallKind.SENDMSG, "sendmsg");
            } while (n == RETRY);
            return n;
        } finally {
            Reference.reachabilityFence(seg);
        }
    }

    /**
     * Receives at most len bytes into seg at offset with one recvmsg (close-on-exec for descriptors,
     * blocking as the socket is set), and the descriptors that came with them, in their order: fdOut[i]
     * is the i-th, -1 where fewer came. Descriptors beyond fdOut's length (a peer may attach many) are
     * closed, and so is every descriptor of a control message the kernel had to cut short (MSG_CTRUNC):
     * then fdOut holds -1 only. Returns the byte count, 0 at EOF, {@link #WOULD_BLOCK}. Counted as one
     * recvmsg (or more when EINTR restarts it).
     */
    public long recvFds(MemorySegment seg, long offset, long len, int[] fdOut) throws ErrnoException {
        long addr = NativeAddress.of(seg, offset, len);
        Arrays.fill(fdOut, -1);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment iov = a.allocate(16, 8);
            iov.set(JAVA_LONG, 0, addr);
            iov.set(JAVA_LONG, 8, len);
            MemorySegment control = a.allocate(CONTROL_ROOM, 8);
            MemorySegment msg = a.allocate(IovArray.MSGHDR);
            long n;
            do {
                msg.fill((byte) 0);
                msg.set(JAVA_LONG, 16, iov.address());
                msg.set(JAVA_LONG, 24, 1);
                msg.set(JAVA_LONG, 32, control.address());
                msg.set(JAVA_LONG, 40, CONTROL_ROOM);
                n = outcome(LibC.recvmsg(callState, fd(), msg, MSG_CMSG_CLOEXEC), SyscallKind.RECVMSG, "recvmsg");
            } while (n == RETRY);
            if (n <= 0) return n;
            long controlLen = Math.min(msg.get(JAVA_LONG, 40), CONTROL_ROOM);
            boolean truncated = (msg.get(JAVA_INT, 48) & MSG_CTRUNC) != 0;
            long at = 0;
            int kept = 0;
            while (at + CMSG_HEADER <= controlLen) {
                long clen = control.get(JAVA_LONG, at);
                if (clen < CMSG_HEADER || at + clen > controlLen) break;
                if (control.get(JAVA_INT, at + 8) == SOL_SOCKET && control.get(JAVA_INT, at + 12) == SCM_RIGHTS) {
                    for (long p = at + CMSG_HEADER; p + 4 <= at + clen; p += 4) {
                        int got = control.get(JAVA_INT, p);
                        if (kept < fdOut.length && !truncated) fdOut[kept++] = got;
                        else LibC.close(callState, got);
                    }
                }
                at += (clen + 7) & ~7L;
            }
            return n;
        } finally {
            Reference.reachabilityFence(seg);
        }
    }

    /** Receives exactly len bytes, blocking; EOF before that is ECONNRESET. */
    public void recvFully(MemorySegment seg, long offset, long len) throws ErrnoException {
        long want = len;
        while (len > 0) {
            long n = recv(seg, offset, len, 0);
            if (n == WOULD_BLOCK) throw new ErrnoException("recv(" + name + ")", Errno.EAGAIN, "receive timed out");
            if (n == 0) {
                throw new ErrnoException("recv(" + name + ")", Errno.ECONNRESET,
                        "peer closed after " + (want - len) + " of " + want + " bytes");
            }
            offset += n;
            len -= n;
        }
    }

    /** Sets (on) or clears O_NONBLOCK on the descriptor, with fcntl. */
    public void setNonBlocking(boolean on) throws ErrnoException { setNonBlocking(fd(), name, on); }

    /** Sets (on) or clears O_NONBLOCK on descriptor fd (named name in an error), with fcntl. */
    static void setNonBlocking(int fd, String name, boolean on) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            int flags = LibC.fcntl(cs, fd, F_GETFL, 0);
            if (flags < 0) throw new ErrnoException("fcntl(" + name + ", F_GETFL)", Errno.read(cs));
            int next = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK;
            if (LibC.fcntl(cs, fd, F_SETFL, next) < 0) {
                throw new ErrnoException("fcntl(" + name + ", F_SETFL)", Errno.read(cs));
            }
        }
    }

    /** SO_SNDBUF; the kernel doubles the value asked for and applies its minimum. */
    public void setSendBufferSize(int bytes) throws ErrnoException { setIntOption(SO_SNDBUF, "SO_SNDBUF", bytes); }

    /** SO_RCVBUF; the kernel doubles the value asked for and applies its minimum. */
    public void setReceiveBufferSize(int bytes) throws ErrnoException { setIntOption(SO_RCVBUF, "SO_RCVBUF", bytes); }

    /** SO_SNDBUF as the kernel reports it. */
    public int sendBufferSize() throws ErrnoException { return intOption(SO_SNDBUF, "SO_SNDBUF"); }

    /** SO_RCVBUF as the kernel reports it. */
    public int receiveBufferSize() throws ErrnoException { return intOption(SO_RCVBUF, "SO_RCVBUF"); }

    /** SO_RCVTIMEO: a blocking receive that waits longer returns {@link #WOULD_BLOCK}; 0 waits forever. */
    public void setReceiveTimeout(long millis) throws ErrnoException {
        setTimeout(SO_RCVTIMEO, "SO_RCVTIMEO", millis);
    }

    /**
     * SO_SNDTIMEO: a blocking send that waits longer returns what it sent so far, or {@link #WOULD_BLOCK}
     * when nothing; a blocking connect to a listener whose backlog is full waits this long too; 0 waits forever.
     */
    public void setSendTimeout(long millis) throws ErrnoException {
        setTimeout(SO_SNDTIMEO, "SO_SNDTIMEO", millis);
    }

    /**
     * One thread at a time (the socket's user): the timeval is the socket's own, so that a client that
     * shortens its receive timeout for a wait allocates nothing.
     */
    private void setTimeout(int option, String optionName, long millis) throws ErrnoException {
        setTimeout(timeval, callState, fd(), name, option, optionName, millis);
    }

    /** setsockopt of a struct timeval { long tv_sec; long tv_usec; } written into tv. */
    private static void setTimeout(MemorySegment tv, MemorySegment cs, int fd, String name, int option,
            String optionName, long millis)
            throws ErrnoException {
        tv.set(JAVA_LONG, 0, millis / 1000);
        tv.set(JAVA_LONG, 8, (millis % 1000) * 1000);
        if (LibC.setsockopt(cs, fd, SOL_SOCKET, option, tv, 16) < 0) {
            throw new ErrnoException("setsockopt(" + name + ", " + optionName + ")", Errno.read(cs));
        }
    }

    /** The connected peer's pid, uid and gid (SO_PEERCRED). */
    public PeerCredentials peerCredentials() throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            MemorySegment cred = a.allocate(PeerCredentials.UCRED);
            MemorySegment len = a.allocate(JAVA_INT);
            len.set(JAVA_INT, 0, (int) cred.byteSize());
            if (LibC.getsockopt(cs, fd(), SOL_SOCKET, SO_PEERCRED, cred, len) < 0) {
                throw new ErrnoException("getsockopt(" + name + ", SO_PEERCRED)", Errno.read(cs));
            }
            return new PeerCredentials(cred.get(JAVA_INT, 0), cred.get(JAVA_INT, 4), cred.get(JAVA_INT, 8));
        }
    }

    private void setIntOption(int opt, String optName, int value) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            MemorySegment v = a.allocate(JAVA_INT);
            v.set(JAVA_INT, 0, value);
            if (LibC.setsockopt(cs, fd(), SOL_SOCKET, opt, v, 4) < 0) {
                throw new ErrnoException("setsockopt(" + name + ", " + optName + ")", Errno.read(cs));
            }
        }
    }

    private int intOption(int opt, String optName) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            MemorySegment v = a.allocate(JAVA_INT);
            MemorySegment len = a.allocate(JAVA_INT);
            len.set(JAVA_INT, 0, 4);
            if (LibC.getsockopt(cs, fd(), SOL_SOCKET, opt, v, len) < 0) {
                throw new ErrnoException("getsockopt(" + name + ", " + optName + ")", Errno.read(cs));
            }
            return v.get(JAVA_INT, 0);
        }
    }

    /** The descriptor, or -1 once closed (a call on it then fails with EBADF). */
    public int fd() { return (int) FD.getAcquire(this); }

    /** Whether the socket is still open (not closed yet). */
    public boolean isOpen() { return fd() >= 0; }

    /** What this socket is connected to or bound at, for messages. */
    public String name() { return name; }

    /**
     * The socket file {@link #listen} put at its path, as it was checked there; null for an abstract
     * name and for sockets that are not listeners.
     */
    public SocketFile.Id boundFile() { return boundFile; }

    /** The counters every data call on this socket goes to. */
    public SyscallCounters counters() { return counters; }

    /**
     * Ends the connection both ways and keeps the descriptor: a thread blocked in recv or send on it
     * returns, later receives read the end of the stream and sends fail with EPIPE, and the peer sees
     * the hang-up. The descriptor's number stays this socket's until {@link #close}: a thread that read
     * it before cannot reach another file opened meanwhile. Does nothing once closed (not to be called
     * at the same time as close); errors (the peer gone already) are ignored.
     */
    public void shutdown() {
        int fd = fd();
        if (fd < 0) return;
        try (Arena a = Arena.ofConfined()) {
            LibC.shutdown(Errno.newCallState(a), fd, SHUT_RDWR);
        }
    }

    /**
     * Closes the descriptor once, whichever thread gets here first; later calls do nothing. A shutdown
     * first wakes a thread blocked in recv on it, which close alone would not. Close only when no other
     * thread may still use the descriptor (it may have read its number already): {@link #shutdown}
     * first, when one may.
     */
    @Override
    public void close() {
        int old = fd();
        while (old >= 0) {
            if (FD.compareAndSet(this, old, -1)) {
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment cs = Errno.newCallState(a);
                    LibC.shutdown(cs, old, SHUT_RDWR);
                    LibC.close(cs, old); // Linux frees the descriptor even when close reports EINTR: never retry
                }
                return;
            }
            old = fd();
        }
    }

    /** Removes a socket file; false if it did not exist. Abstract names have no file. */
    public static boolean unlink(String path) throws ErrnoException {
        if (path.startsWith("@")) return false;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cs = Errno.newCallState(a);
            if (LibC.unlink(cs, a.allocateFrom(path)) == 0) return true;
            int err = Errno.read(cs);
            if (err == Errno.ENOENT) return false;
            throw new ErrnoException("unlink(" + path + ")", err);
        }
    }

    @Override
    public String toString() {
        return "UnixSocket[" + name + ", fd " + fd() + "]";
    }
}
