package org.sysframe.bench;

import org.sysframe.unix.SyscallCounts;

/**
 * One measured run of a peer: throughput and latency from the peer's own timing, syscalls of the
 * peer's thread (or process) from the kernel, CPU of the peer and of the server loop.
 */
record PeerRun(String peer, int payload, long calls, double seconds,
               double p50Micros, double p99Micros,
               double clientCpuMicros, double serverCpuMicros,
               SyscallCounts clientKernel, SyscallCounts serverLibrary, SyscallCounts serverKernel) {

    double callsPerSecond() { return calls / seconds; }

    double clientCpuPerCall() { return clientCpuMicros / calls; }

    double serverCpuPerCall() { return serverCpuMicros / calls; }
}
