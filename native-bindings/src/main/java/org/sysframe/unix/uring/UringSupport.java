package org.sysframe.unix.uring;

import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounters;
import org.sysframe.unix.internal.uring.IoUring;

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

    /** The running kernel's release, e.g. {@code 6.18.44}. */
    public static String kernelRelease() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/osrelease")).trim();
        } catch (IOException e) {
            return "unknown kernel";
        }
    }
}
