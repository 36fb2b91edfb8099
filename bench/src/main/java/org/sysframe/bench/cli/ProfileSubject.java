package org.sysframe.bench.cli;

import org.sysframe.bench.measure.Cell;
import org.sysframe.bench.measure.Measurement;
import org.sysframe.bench.peer.CShmPingPong;
import org.sysframe.bench.profile.PerfRecording;

import java.io.IOException;

/** A client profiled: its cell, its timed run with perf enabled around its calls, whose samples are its. */
interface ProfileSubject {
    Cell cell();

    /** The timed run of calls, perf enabled for its calls only. */
    Measurement profiled(long calls, PerfRecording perf) throws IOException;

    /** perf report's filter of its samples ({@code --tid=...}, {@code --pid=...}), known once it ran. */
    String filter() throws IOException;

    /** The file name of the C program's binary, or null for sysframe's client. */
    String program();

    /** Whether both sides of a call are profiled (the server's CPU counted with the client's). */
    boolean bothSides();

    /** Its CPU time in the run, ns: the client's, and the server's too where both sides are profiled. */
    default double clockNanos(Measurement m) {
        return (bothSides() ? m.totalCpuMicrosPerCall() : m.clientCpuMicrosPerCall()) * 1000 * m.calls();
    }

    /** A subject whose threads are known before its run: perf enabled around the probe's run. */
    record Known(Cell cell, Id ids, String program, boolean bothSides) implements ProfileSubject {
        @Override
        public Measurement profiled(long calls, PerfRecording perf) throws IOException {
            perf.enable();
            Measurement m = cell.probe().measure(cell, calls, 1);
            perf.disable();
            return m;
        }

        @Override
        public String filter() throws IOException { return ids.get(); }
    }

    /** perf report's filter of a subject's samples. */
    interface Id {
        String get() throws IOException;
    }

    /**
     * The C ping-pong: a new pair of processes each run, warmed up by itself; perf enabled once they are ready and
     * disabled once their summary is in, their pids kept for the filter.
     */
    final class PingPong implements ProfileSubject {
        private final CShmPingPong probe;
        private final Cell cell;
        private String pids;

        PingPong(CShmPingPong probe, int len) {
            this.probe = probe;
            this.cell = new Cell("c-shm", len, probe.describe(), 0, 0, probe);
        }

        @Override
        public Cell cell() { return cell; }

        @Override
        public Measurement profiled(long calls, PerfRecording perf) throws IOException {
            probe.watch(new CShmPingPong.Watch() {
                @Override
                public void ready(long clientPid, long serverPid) throws IOException {
                    pids = "--pid=" + clientPid + "," + serverPid;
                    perf.enable();
                }

                @Override
                public void done() throws IOException { perf.disable(); }
            });
            try {
                return probe.measure(cell, calls, 1);
            } finally {
                probe.watch(null);
            }
        }

        @Override
        public String filter() throws IOException {
            if (pids == null) throw new IOException("the C ping-pong never got ready");
            return pids;
        }

        @Override
        public String program() { return CShmPingPong.program().getFileName().toString(); }

        @Override
        public boolean bothSides() { return true; }
    }
}
