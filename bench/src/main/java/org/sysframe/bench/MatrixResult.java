package org.sysframe.bench;

import java.util.List;

/** Everything one matrix run measured, with the machine it ran on. */
public record MatrixResult(String machine, List<Pairing> pairings, int[] payloads, int rounds, boolean quick,
                           double seconds, List<CellSummary> cells, String kernelUnavailable, CompareResult compare) {

    /** The same run with the peer comparison attached. */
    public MatrixResult withCompare(CompareResult c) {
        return new MatrixResult(machine, pairings, payloads, rounds, quick, seconds, cells, kernelUnavailable, c);
    }

    public CellSummary cell(String pairing, int payload) {
        for (CellSummary c : cells) if (c.pairing().equals(pairing) && c.payload() == payload) return c;
        throw new IllegalArgumentException("no cell " + pairing + "/" + payload);
    }
}
