/**
 * libc through the FFM API: AF_UNIX stream sockets, errno, struct layouts, epoll and syscall
 * accounting. The raw downcalls ({@code org.sysframe.unix.internal}) are not exported; of io_uring, an
 * application sees the counts and the support probe ({@code org.sysframe.unix.uring}), while the ring
 * itself ({@code org.sysframe.unix.internal.uring}: IoUring, Sqe, Cqe, BufferRing) is exported to the
 * transport alone.
 *
 * <p>The downcalls are restricted methods called from this module only: grant it native access with
 * {@code --enable-native-access=org.sysframe.unix} on the module path ({@code ALL-UNNAMED} on the
 * class path).
 */
@SuppressWarnings("module") // the transport, the one module the ring is exported to, is built after this one
module org.sysframe.unix {
    exports org.sysframe.unix;
    exports org.sysframe.unix.uring;
    exports org.sysframe.unix.internal.uring to org.sysframe.transport;
}
