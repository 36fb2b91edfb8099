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
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code sysframe compare}: the ping workload through the clients a user would pick instead of
 * sysframe's (the JDK's SocketChannel, jnr-unixsocket, a C client), all against one embedded sysframe
 * server ({@link PeerTable}), interleaved in rounds. Every peer's syscalls come from the kernel's counters of its thread
 * (or process).
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = "Compare sysframe's client with JDK SocketChannel, jnr-unixsocket and a C client on one server.")
final class CompareCommand implements Callable<Integer> {
    @Option(names = "--quick", description = "fewer calls per run")
    boolean quick;

    @Option(names = "--rounds", description = "interleaved rounds, at least 5 (default: ${DEFAULT-VALUE})")
    int rounds = 7;

    @Option(names = "--out", description = "output directory (default: bench/results/<timestamp>)")
    Path out;

    @Option(names = "--forks", description = "child JVMs the Java peers run in, rounds spread over them; 0: in this JVM"
            + " (default: " + PeerTable.DEFAULT_FORKS + ", with --quick 0)")
    Integer forks;

    @Option(names = "--server-loops", description = "event loops of the embedded server (default: ${DEFAULT-VALUE})")
    int serverLoops = 1;

    @Override
    public Integer call() throws Exception {
        if (rounds < 5) throw new IllegalArgumentException("--rounds must be at least 5");
        if (serverLoops < 1) throw new IllegalArgumentException("--server-loops must be at least 1");
        int peerForks = PeerTable.forks(forks, quick);
        if (out == null) out = Path.of("bench", "results", LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        ResultFiles.checkWritable("--out", out);
        long started = System.nanoTime();
        PeerTable table = new PeerTable();
        TableRun settings = TableRun.of(rounds, quick, false, serverLoops, peerForks);
        BenchTable peers = Progress.during(Progress.toStderr("compare", 1, table.goals()), () -> table.run(settings));
        BenchRun run = BenchRun.of(MachineInfo.describe(), rounds, quick, (System.nanoTime() - started) / 1e9, serverLoops,
                List.of(peers), KernelCounters.unavailable());
        System.out.print(TerminalReport.of(run));
        System.out.println(ResultFiles.wroteLine(out, ResultFiles.writeAll(run, out)));
        return 0;
    }
}
