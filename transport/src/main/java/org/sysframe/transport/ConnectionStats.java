package org.sysframe.transport;

import org.sysframe.unix.SyscallCounts;

/** What one server connection did, recorded when it closed. */
public record ConnectionStats(int peerPid, int peerUid, long requests, SyscallCounts syscalls, String closeReason) {
    @Override
    public String toString() {
        return "pid " + peerPid + " uid " + peerUid + ": " + requests + " requests, " + syscalls + " (" + closeReason
                + ")";
    }
}
