/**
 * libc through the FFM API: AF_UNIX stream sockets, errno, struct layouts, epoll and syscall
 * accounting. The raw downcalls ({@code org.sysframe.unix.internal}) are not exported.
 *
 * <p>The downcalls are restricted methods called from this module only: grant it native access with
 * {@code --enable-native-access=org.sysframe.unix} on the module path ({@code ALL-UNNAMED} on the
 * class path).
 */
module org.sysframe.unix {
    exports org.sysframe.unix;
    exports org.sysframe.unix.uring;
}
