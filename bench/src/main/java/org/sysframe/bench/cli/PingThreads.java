package org.sysframe.bench.cli;

import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.KernelCounters;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.measure.RoundRunner;
import org.sysframe.bench.peer.CallersProbe;
import org.sysframe.bench.peer.OneClientPeer;
import org.sysframe.transport.Backend;
import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.GroutClient;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.SyscallKind;
import org.sysframe.unix.uring.UringOp;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@code ping --threads N [--virtual]}: N callers on one GroutClient (the options' backend and transport), measured
 * together, with how their calls were batched into sends; the command's other options as {@code ping} gives them.
 */
final class PingThreads {
    private final PingCommand cmd;

    /** The run cmd asks for, its options checked. */
    PingThreads(PingCommand cmd) {
        this.cmd = cmd;
    }

    /** Connects with o, runs the callers, prints the report; 0. */
    Integer run(ClientOptions o) throws Exception {
        GroutClient client;
        try {
            client = GroutClient.connect(o);
        } catch (ErrnoException e) {
            throw PingCommand.withRemedy(e);
        }
        if (cmd.transport.equals("shm") && !client.sharedMemory()) {
            System.err.println("the server did not give a shared-memory channel (it does not offer one, or --backend "
                    + "io_uring): on the socket");
        }
        String what = cmd.threads + (cmd.virtual ? " virtual" : " platform")
                + (cmd.threads == 1 ? " thread" : " threads");
        String name = "one client " + what;
        String backendName = client.backend() + (cmd.sqpoll ? " (sqpoll)" : "");
        PingRecording recording = cmd.jfr == null ? null : PingRecording.start(cmd.jfr);
        LongAdder timedOut = new LongAdder();
        MeasuredServer server = MeasuredServer.of(() -> client.serverCredentials().pid());
        try (client; CallersProbe probe = new CallersProbe(cmd.threads, cmd.virtual, i ->
                new OneClientPeer(name, client, timedOut), OneClientPeer.counts(client), server.source(), Set::of)) {
            probe.kernelKinds(OneClientPeer.kernelKinds(client));
            if (!cmd.json) {
                System.out.printf("performing %d ping calls after %d untimed warm-up calls (%d bytes; %s, each calling "
                        + "one at a time on one client; send %s, recv %s, wait %s, backend %s%s%s); latency recorded "
                        + "for every call%n", cmd.count, cmd.warmup, cmd.len, what, o.freeze().send(),
                        o.freeze().recv(), o.freeze().waitMode(), backendName,
                        client.sharedMemory() ? ", shared memory" : "", cmd.limits());
            }
            Cell cell = new Cell(name, cmd.len, "one client, " + o.freeze().send() + " / " + o.freeze().recv()
                    + ", backend " + backendName
                    + (client.sharedMemory() ? ", shared memory" : "") + cmd.limits(), cmd.count, cmd.warmup, probe);
            var s0 = client.stats();
            long sends0 = sends(client);
            Measurement r;
            try {
                r = RoundRunner.run("ping", List.of(cell), 1).get(0);
            } catch (IOException | RuntimeException e) {
                // A caller stops at its first failure; the others may still be waiting for theirs.
                long n = timedOut.sum();
                throw new IOException("one client, " + what + ": "
                        + (n == 0 ? "" : n + (n == 1 ? " call" : " calls") + " timed out; ")
                        + e.getMessage(), e);
            } finally {
                KernelCounters.closeAll();
            }
            var s1 = client.stats();
            long calls = s1.calls() - s0.calls(), batches = s1.batches() - s0.batches(), sends = sends0 < 0 ? -1
                    : sends(client) - sends0;
            if (cmd.json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("label", r.cell());
                m.put("latency_recorded_for", "every call");
                m.put("transport", client.sharedMemory() ? "shm" : "socket");
                m.put("threads", cmd.threads);
                m.put("virtual", cmd.virtual);
                m.put("max_in_flight", cmd.maxInFlight);
                m.put("connections", cmd.connections);
                m.put("timed_out", timedOut.sum());
                m.putAll(r.toMap());
                if (sends > 0) m.put("calls_per_send", (double) calls / sends);
                m.put("queued_batches", batches);
                m.put("largest_batch", s1.largestBatch());
                PingReport.printJson(m, r, probe.kernelVoid());
            } else {
                PingReport.print(r, probe.kernelVoid());
                String perSend = sends > 0 ? String.format(Locale.ROOT, "%.2f calls per send, ", (double) calls / sends)
                        : sends < 0
                                ? "calls per send not known (io_uring: the client counts the SQEs of its first "
                                        + "connection only), "
                        : "no send syscall (the shared-memory channel), ";
                System.out.printf(Locale.ROOT, "batching (warm-up included): %s%,d batches of requests queued while "
                        + "another caller did the I/O, largest %d%n", perSend, batches, s1.largestBatch());
                System.out.printf(Locale.ROOT, "timed out (warm-up included): %d calls%n", timedOut.sum());
            }
            return 0;
        } finally {
            if (recording != null) {
                String line = recording.finish();
                (cmd.json ? System.err : System.out).println(line);
            }
        }
    }

    /**
     * The sends client made so far: its send syscalls (epoll), or its send SQEs (io_uring); 0 over
     * the shared-memory channel, whose requests go through the ring; -1 on io_uring with several
     * connections (the client gives the first one's SQEs only).
     */
    private static long sends(GroutClient client) {
        if (client.sharedMemory()) return 0;
        if (client.backend() == Backend.IO_URING) {
            if (client.config().connections() > 1) return -1;
            var u = client.uringCounts();
            return u.sqes(UringOp.SEND) + u.sqes(UringOp.SENDMSG);
        }
        SyscallCounts c = client.counters().snapshot();
        return c.get(SyscallKind.SENDTO) + c.get(SyscallKind.SENDMSG) + c.get(SyscallKind.WRITEV)
                + c.get(SyscallKind.WRITE);
    }

}
