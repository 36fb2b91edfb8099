package org.sysframe.micrometer;

import org.sysframe.unix.SyscallKind;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/** The syscall kinds a binder makes a counter of: those the library counts. */
final class Syscalls {
    /** {@link SyscallKind#LIBRARY} and futex (a shared-memory channel's sleeps and wake-ups). */
    static final Set<SyscallKind> KINDS;

    static {
        EnumSet<SyscallKind> kinds = EnumSet.copyOf(SyscallKind.LIBRARY);
        kinds.add(SyscallKind.FUTEX);
        KINDS = Collections.unmodifiableSet(kinds);
    }

    private Syscalls() {}
}
