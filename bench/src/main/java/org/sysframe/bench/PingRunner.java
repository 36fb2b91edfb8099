package org.sysframe.bench;

import org.HdrHistogram.Histogram;
import org.sysframe.transport.GroutApi;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.Response;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.Self;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * Grout's ping_perf workload on a sysframe client: n GR_PING calls of len bytes (or GR_PING2 with its
 * 32 bytes), each response checked, timed per call, counted by the library and (where it can be
 * opened) the kernel, on the client thread and, for a server in this process, on its loop thread.
 */
public final class PingRunner {
    private PingRunner() {}

    public static PingResult run(String label, GroutClient client, boolean ping2, int len, long n, GroutServer server)
            throws IOException {
        int type = ping2 ? GroutApi.PING2 : GroutApi.PING;
        int size = ping2 ? GroutApi.PING2_SIZE : len;
        Histogram latency = new Histogram(10_000_000_000L, 3);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment payload = a.allocate(Math.max(1, size));
            for (int i = 0; i < size; i++) payload.set(JAVA_BYTE, i, (byte) (i * 31 + 7));
            byte last = size == 0 ? 0 : payload.get(JAVA_BYTE, size - 1);
            int tid = Self.tid();
            KernelSyscallCounter ck = KernelCounters.of(tid, SyscallKind.LIBRARY);
            // A server in this JVM is measured by its loop thread; one elsewhere on this machine by its process.
            long serverPid = server == null ? otherServerPid(client) : -1;
            ServerSample s0 = server == null ? null : ServerSample.take(server);
            ThreadCpu otherServer0 = serverPid > 0 ? ThreadCpu.ofProcess(serverPid) : null;
            SyscallCounts cl0 = client.counters().snapshot();
            SyscallCounts ck0 = ck == null ? null : ck.read();
            ThreadCpu cc0 = ThreadCpu.of(tid);
            long t0 = System.nanoTime();
            long prev = t0;
            for (long i = 0; i < n; i++) {
                Response r = client.sendRecv(type, payload, 0, size);
                if (r.length() != size || (size > 0 && r.getByte(size - 1) != last)) {
                    throw new ErrnoException("ping " + i, Errno.EBADMSG, "echo differs: " + r);
                }
                long now = System.nanoTime();
                latency.recordValue(Math.min(now - prev, latency.getHighestTrackableValue()));
                prev = now;
            }
            long elapsed = System.nanoTime() - t0;
            SyscallCounts cl1 = client.counters().snapshot();
            SyscallCounts ck1 = ck == null ? null : ck.read();
            ThreadCpu cc1 = ThreadCpu.of(tid);
            ServerSample sd = server == null ? null : ServerSample.take(server).minus(s0);
            ThreadCpu otherServer = otherServer0 == null ? null : ThreadCpu.ofProcess(serverPid).minus(otherServer0);
            return new PingResult(label, n, size, elapsed / 1e9,
                    latency.getValueAtPercentile(50), latency.getValueAtPercentile(90),
                    latency.getValueAtPercentile(99), latency.getValueAtPercentile(99.9), latency.getMaxValue(),
                    cl1.minus(cl0), ck == null ? null : ck1.minus(ck0),
                    sd == null ? null : sd.library(), sd == null ? null : sd.kernel(),
                    cc1.minus(cc0), sd != null ? sd.cpu() : otherServer);
        }
    }

    /** The pid of a server in another process on this machine whose /proc we can read, else -1. */
    private static long otherServerPid(GroutClient client) {
        try {
            long pid = client.serverCredentials().pid();
            boolean readable = pid > 0 && pid != ProcessHandle.current().pid()
                    && java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/" + pid + "/task"));
            return readable ? pid : -1;
        } catch (ErrnoException e) {
            return -1;
        }
    }

    /** Why kernel counts are missing, or null. */
    static String kernelUnavailable() { return KernelCounters.unavailable(); }
}
