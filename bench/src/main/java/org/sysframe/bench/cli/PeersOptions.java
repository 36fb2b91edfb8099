package org.sysframe.bench.cli;

import org.sysframe.bench.table.PeerTable;
import picocli.CommandLine.Option;

/**
 * {@code --server-loops} and {@code --forks} of {@code compare} and {@code matrix}: how the peers
 * table's server and its Java peers run (and, in {@code matrix}, the pairings table's servers).
 */
final class PeersOptions {
    @Option(names = "--server-loops", description =
            "event loops of the embedded servers of the peers table (matrix: and of the"
            + " pairings table) (default: ${DEFAULT-VALUE})")
    int serverLoops = 1;

    @Option(names = "--forks", description =
            "child JVMs the peers table's Java peers run in, rounds spread over them; 0: in this JVM"
            + " (default: " + PeerTable.DEFAULT_FORKS + ", with --quick 0)")
    Integer forks;

    /**
     * Refuses a server of no loop or forks out of 0..16, naming the option; the forks to run, quick's default applied.
     */
    int checkedForks(boolean quick) {
        if (serverLoops < 1) throw new IllegalArgumentException("--server-loops " + serverLoops + ": at least 1");
        return PeerTable.forks(forks, quick);
    }
}
