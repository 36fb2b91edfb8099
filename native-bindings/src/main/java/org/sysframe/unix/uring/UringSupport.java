package org.sysframe.unix.uring;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether io_uring can be used here, and why not: {@link #unavailableReason()} tries a small ring
 * once and names the cause of a failure in one line (the sysctl {@code kernel.io_uring_disabled}, a
 * seccomp filter or security module, a kernel without io_uring, a missing feature).
 */
public final class UringSupport {
    private UringSupport() {}

    /** The setup flags every sysframe ring needs, besides the basic ones: the first kernel with each. */
    private static final int[] FLAGS = {IoUring.SETUP_SINGLE_ISSUER, IoUring.SETUP_DEFER_TASKRUN, IoUring.SETUP_COOP_TASKRUN};
    private static final String[] FLAG_NAMES = {"IORING_SETUP_SINGLE_ISSUER", "IORING_SETUP_DEFER_TASKRUN", "IORING_SETUP_COOP_TASKRUN"};
    private static final String[] FLAG_SINCE = {"6.0", "6.1", "5.19"};

    private static volatile String cached;

    /**
     * Null when a ring with the flags sysframe uses sets up and has the opcodes it uses; else one line
     * naming the cause. Tried once per process.
     */
    public static String unavailableReason() {
        String r = cached;
        if (r == null) {
            r = probeOnce();
            cached = r;
        }
        return r.isEmpty() ? null : r;
    }

    private static String probeOnce() {
        try (IoUring ring = new IoUring(4, 0, IoUring.SETUP_SINGLE_ISSUER | IoUring.SETUP_DEFER_TASKRUN,
                new SyscallCounters("probe"), new UringCounters())) {
            ring.probe().require(UringOp.SEND, UringOp.SENDMSG, UringOp.RECV, UringOp.ACCEPT,
                    UringOp.ASYNC_CANCEL, UringOp.POLL_ADD, UringOp.LINK_TIMEOUT);
            return "";
        } catch (ErrnoException e) {
            return "io_uring unavailable: " + e.getMessage();
        }
    }

    /** The cause of an io_uring_setup failure with errno err and the flags asked for, in words. */
    static String explainSetupFailure(int err, int flags) {
        if (err == Errno.ENOSYS) {
            return "this kernel (" + kernelRelease() + ") has no io_uring (Linux 5.1+ built with CONFIG_IO_URING)";
        }
        if (err == Errno.EPERM || err == Errno.EACCES) {
            String sysctl = readSysctl();
            if ("2".equals(sysctl)) return "kernel.io_uring_disabled = 2: io_uring is disabled for every process";
            if ("1".equals(sysctl)) return "kernel.io_uring_disabled = 1: io_uring is allowed only to members of kernel.io_uring_group";
            return "refused although kernel.io_uring_disabled = " + (sysctl == null ? "(absent)" : sysctl)
                    + ": a seccomp filter or security module denies io_uring_setup to this process";
        }
        if (err == Errno.EINVAL) {
            StringBuilder asked = new StringBuilder();
            for (int i = 0; i < FLAGS.length; i++) {
                if ((flags & FLAGS[i]) != 0) asked.append(asked.isEmpty() ? "" : ", ").append(FLAG_NAMES[i]).append(" (Linux ").append(FLAG_SINCE[i]).append(')');
            }
            if ((flags & IoUring.SETUP_SQPOLL) != 0) asked.append(asked.isEmpty() ? "" : ", ").append("IORING_SETUP_SQPOLL (which excludes the *_TASKRUN flags)");
            return "setup flags refused by this kernel (" + kernelRelease() + ")" + (asked.isEmpty() ? "" : ": " + asked);
        }
        if (err == Errno.ENOMEM) return "not enough locked memory for the rings (RLIMIT_MEMLOCK on kernels before 5.12)";
        return null;
    }

    private static String readSysctl() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/io_uring_disabled")).trim();
        } catch (IOException e) {
            return null;
        }
    }

    /** The running kernel's release, e.g. {@code 6.18.44}. */
    public static String kernelRelease() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/osrelease")).trim();
        } catch (IOException e) {
            return "unknown kernel";
        }
    }
}
