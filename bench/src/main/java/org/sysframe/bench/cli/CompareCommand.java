package org.sysframe.bench.cli;

import org.sysframe.bench.explore.BenchRun;
import org.sysframe.bench.measure.BenchTable;
import org.sysframe.bench.measure.KernelCounters;
import org.sysframe.bench.measure.Progress;
import org.sysframe.bench.report.ResultFiles;
import org.sysframe.bench.report.TerminalReport;
import org.sysframe.bench.table.PeerTable;
import org.sysframe.bench.table.TableRun;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code sysframe compare}: the ping workload through the clients a user would pick instead of
 * sysframe's (the JDK's SocketChannel, jnr-unixsocket, a C client), all against one embedded sysframe
 * server ({@link PeerTable}), interleaved in rounds. Every peer's syscalls come from the kernel's counters of its
 * thread (or process).
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = "Compare sysframe's client with JDK SocketChannel, jnr-unixsocket and a C client on one server.")
final class CompareCommand implements Callable<Integer> {
    @Option(names = "--quick", description = "fewer calls per run")
    boolean quick;

    @Mixin
    RoundsOption roundsOption;

    @Mixin
    OutOption outOption;

    @Mixin
    PeersOptions peers;

    @Override
    public Integer call() throws Exception {
        roundsOption.check();
        int peerForks = peers.checkedForks(quick);
        int serverLoops = peers.serverLoops;
        Path out = outOption.dir();
        long started = System.nanoTime();
        PeerTable table = new PeerTable();
        TableRun settings = TableRun.of(roundsOption.rounds, quick, false, serverLoops, peerForks);
        BenchTable peers = Progress.during(Progress.toStderr("compare", 1, table.goals()), () -> table.run(settings));
        double seconds = (System.nanoTime() - started) / 1e9;
        BenchRun run = BenchRun.of(MachineInfo.describe(), roundsOption.rounds, quick, seconds, serverLoops,
                List.of(peers), KernelCounters.unavailable());
        System.out.print(TerminalReport.of(run));
        System.out.println(ResultFiles.wroteLine(out, ResultFiles.writeAll(run, out)));
        return 0;
    }
}
