package org.sysframe.bench;

import org.sysframe.unix.ThreadSyscall;
import org.sysframe.transport.GroutServer;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;

import java.io.IOException;
import java.time.Duration;

/**
 * An in-process server's loop thread at one instant: its library counts, the kernel's count of it
 * (null when counters cannot be opened) and its CPU. Taken only while the loop is parked in
 * epoll_wait, where the two counts agree (see {@link org.sysframe.unix.ThreadSyscall}); subtract two samples to
 * get what the loop spent in between.
 */
record ServerSample(SyscallCounts library, SyscallCounts kernel, ThreadCpu cpu) {

    static ServerSample take(GroutServer server) throws IOException {
        ThreadSyscall.awaitEpollWait(server.loopThreadId(), Duration.ofSeconds(10));
        KernelSyscallCounter k = KernelCounters.of(server.loopThreadId(), SyscallKind.LIBRARY);
        return new ServerSample(server.counters().snapshot(), k == null ? null : k.read(), ThreadCpu.of(server.loopThreadId()));
    }

    ServerSample minus(ServerSample earlier) {
        return new ServerSample(library.minus(earlier.library),
                kernel == null || earlier.kernel == null ? null : kernel.minus(earlier.kernel), cpu.minus(earlier.cpu));
    }
}
