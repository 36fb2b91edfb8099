package org.sysframe.unix;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The peer of a connected AF_UNIX socket as the kernel recorded it at connect time
 * ({@code SO_PEERCRED}, {@code struct ucred}: pid, uid, gid; 12 bytes).
 */
public record PeerCredentials(int pid, int uid, int gid) {
    /** {@code struct ucred} (sys/socket.h): pid, uid and gid, 4 bytes each. */
    public static final StructLayout UCRED = MemoryLayout.structLayout(
            JAVA_INT.withName("pid"), JAVA_INT.withName("uid"), JAVA_INT.withName("gid"));
}
