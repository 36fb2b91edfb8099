package org.sysframe.unix.internal.uring;

import org.sysframe.unix.Errno;
import org.sysframe.unix.uring.UringSupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The cause of an io_uring_setup failure in words, for its {@code ErrnoException}. */
final class SetupFailure {
    private SetupFailure() {}

    /** The setup flags every sysframe ring needs, besides the basic ones: the first kernel with each. */
    private static final int[] FLAGS = {IoUring.SETUP_SINGLE_ISSUER, IoUring.SETUP_DEFER_TASKRUN,
            IoUring.SETUP_COOP_TASKRUN};
    private static final String[] FLAG_NAMES =
            {"IORING_SETUP_SINGLE_ISSUER", "IORING_SETUP_DEFER_TASKRUN", "IORING_SETUP_COOP_TASKRUN"};
    private static final String[] FLAG_SINCE = {"6.0", "6.1", "5.19"};

    /** The cause of an io_uring_setup failure with errno err and the flags asked for, in words. */
    static String explain(int err, int flags) {
        if (err == Errno.ENOSYS) {
            return "this kernel (" + UringSupport.kernelRelease()
                    + ") has no io_uring (Linux 5.1+ built with CONFIG_IO_URING)";
        }
        if (err == Errno.EPERM || err == Errno.EACCES) {
            String sysctl = readSysctl();
            if ("2".equals(sysctl)) return "kernel.io_uring_disabled = 2: io_uring is disabled for every process";
            if ("1".equals(
                    sysctl)) return "kernel.io_uring_disabled = 1: io_uring is allowed only to members of "
                    + "kernel.io_uring_group";
            return "refused although kernel.io_uring_disabled = " + (sysctl == null ? "(absent)" : sysctl)
                    + ": a seccomp filter or security module denies io_uring_setup to this process";
        }
        if (err == Errno.EINVAL) {
            StringBuilder asked = new StringBuilder();
            for (int i = 0; i < FLAGS.length; i++) {
                if ((flags & FLAGS[i]) != 0) asked.append(asked.isEmpty() ? "" : ", ").append(FLAG_NAMES[i])
                        .append(" (Linux ").append(FLAG_SINCE[i]).append(')');
            }
            if ((flags & IoUring.SETUP_SQPOLL) != 0) asked.append(asked.isEmpty() ? "" : ", ")
                    .append("IORING_SETUP_SQPOLL (which excludes the *_TASKRUN flags)");
            return "setup flags refused by this kernel (" + UringSupport.kernelRelease() + ")"
                    + (asked.isEmpty() ? "" : ": " + asked);
        }
        if (err == Errno.ENOMEM) return "not enough locked memory for the rings (RLIMIT_MEMLOCK on kernels before "
                + "5.12)";
        return null;
    }

    private static String readSysctl() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/io_uring_disabled")).trim();
        } catch (IOException e) {
            return null;
        }
    }

}
