package org.sysframe.bench.peer;

import org.sysframe.unix.CpuPlacement;
import org.sysframe.unix.ErrnoException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;

/**
 * The threads of the JDK's virtual-thread scheduler (its carriers, the pollers, the unparker), the
 * library's poller and the clients' own threads, given every CPU this process may use before a run of
 * virtual callers. Linux gives
 * a new thread the placement of the thread that started it, and the JDK starts a carrier from
 * whichever thread hands it work: after the depth table, whose server loops are pinned to CPU 0, the
 * carriers and the pollers would all be pinned to CPU 0, and the concurrency table's 64 virtual callers
 * on one client would run on one core, with more client syscalls per call (docs/results.md).
 */
public final class SchedulerThreads {
    private SchedulerThreads() {}

    /** Thread-name prefixes ({@code /proc/self/task/TID/comm}: the first 15 bytes) of the threads spread. */
    static final List<String> PREFIXES = List.of("ForkJoinPool-", "sysframe-poller", "MasterPoller", "VirtualThread-u",
            "Read-Poller", "Write-Poller", "sysframe-client");

    /** Gives each such thread of this process the CPUs the calling thread may use; returns how many it placed. */
    public static int spread() throws IOException {
        BitSet all;
        try {
            all = CpuPlacement.allowedCpus();
        } catch (ErrnoException e) {
            throw new IOException(e.getMessage(), e);
        }
        int placed = 0;
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : tasks.toList()) {
                int tid = Integer.parseInt(t.getFileName().toString());
                String comm = comm(tid);
                if (PREFIXES.stream().noneMatch(comm::startsWith)) continue;
                try {
                    CpuPlacement.placeThread(tid, all);
                    placed++;
                } catch (ErrnoException ended) {
                    // ended since the listing (ESRCH): nothing to place
                }
            }
        }
        return placed;
    }

    /** Thread tid's name as the kernel keeps it (its first 15 bytes), or "" once it ended. */
    static String comm(int tid) {
        try {
            return Files.readString(Path.of("/proc/self/task/" + tid + "/comm")).trim();
        } catch (IOException gone) {
            return "";
        }
    }
}
